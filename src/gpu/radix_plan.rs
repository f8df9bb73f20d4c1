//! Dispatch math of the Vulkan radix sort, free of any GPU so that it is unit-tested
//! everywhere: tile shapes chosen from the device's limits, tile and workgroup counts,
//! scratch sizes, and the layout of the state buffer that the shaders share
//! (`shaders/radix_common.glsl`; a test reads that file and checks every number here).
//!
//! The sort is LSD radix with 8-bit digits in the Onesweep shape: one upfront pass counts
//! the digits of every pass, a one-workgroup plan turns the counts into bucket offsets and
//! decides which passes run, then one pass per digit ranks a tile of keys, finds the keys of
//! earlier tiles by decoupled look-back (or, by reduce-then-scan, from an upsweep's counts
//! and a scan) and scatters.

/// Bits per digit: 256 buckets, the Onesweep choice (4 passes for 32-bit keys).
pub const DIGIT_BITS: u32 = 8;
/// Buckets per pass.
pub const RADIX: u32 = 1 << DIGIT_BITS;
/// Most passes of any key width (64-bit keys).
pub const MAX_PASSES: u32 = 8;

/// Look-back words hold a 2-bit flag and a 30-bit count, so a sort takes fewer keys than this.
pub const LOOKBACK_COUNT_LIMIT: u64 = 1 << 30;

/// State buffer word offsets (the `ST_*` defines of `radix_common.glsl`).
pub mod state {
    /// Keys to sort.
    pub const COUNT: u32 = 0;
    /// Reduce-then-scan: tiles per partition, then partitions (set by the plan).
    pub const PARTITION: u32 = 1;
    /// Reduce-then-scan: 1 when the histogram left pass 0's tile offsets.
    pub const PASS0_OFFSETS: u32 = 3;
    /// OR of every key (after the key map), two words for 64-bit keys.
    pub const KEYS_OR: u32 = 4;
    /// OR of every key's complement: with `KEYS_OR`, the bits that vary.
    pub const KEYS_NAND: u32 = 6;
    /// 1 when the host wrote a pass's bucket offsets.
    pub const BUCKETS_GIVEN: u32 = 8;
    /// Tile counters, one per step (the passes that run, in order).
    pub const TILE_COUNTER: u32 = 16;
    /// Per-step flags (encode, decode, look-back slot; the step's pass from bit 8 on).
    pub const FLAGS: u32 = 32;
    /// Diagnostics (`SORTNET_RADIX_LB_STATS=1`): per step, look-back steps, steps that
    /// waited, tiles and fallbacks.
    pub const LB_STATS: u32 = 64;
    /// Bucket offsets, 256 per pass.
    pub const BUCKET: u32 = 128;
    /// Digit counts, 256 per pass.
    pub const HIST: u32 = 2176;
    /// Look-back words: two slots of `tiles * 256`; then, by reduce-then-scan, the
    /// partitions' offsets (`partition_offset_words`).
    pub const STATUS: u32 = 4224;
}

/// Indirect buffer word offsets (the `IND_*` defines of `radix_common.glsl`).
pub mod indirect {
    /// The scatter of each step (the passes that run, in order; `radix_common.glsl`), three
    /// words each.
    pub const PASS: u32 = 0;
    /// The final copy's dispatch.
    pub const COPY: u32 = 24;
    /// Reduce-then-scan: the upsweep of each step.
    pub const UPSWEEP: u32 = 27;
    /// Reduce-then-scan: the scan of each step.
    pub const SCAN: u32 = 51;
    /// Words in the indirect buffer.
    pub const WORDS: u32 = 75;
}

/// Invocations of the histogram and copy workgroups.
pub const STREAM_WORKGROUP: u32 = 256;
/// Keys each histogram invocation counts (grid-stride), which sets how many workgroups add
/// their shared counts into the global histogram with atomics. Run 8 of
/// BENCHMARKS.md (radix 6-8) (H200, 2^26 u32 keys): 32 / 64 / 128 took 0.143 / 0.132 / 0.132 ms
/// for the histogram phase (fewer workgroups, fewer global atomics on the same 1024 words).
pub const HISTOGRAM_KEYS_PER_INVOCATION: u32 = 128;
/// Keys each histogram invocation loads before counting them (the `BATCH` specialization
/// constant of `radix_histogram.comp`): several loads in flight per invocation.
pub const HISTOGRAM_BATCH: u32 = 8;

/// The same for the histogram and the upsweeps of reduce-then-scan sorts, which walk their
/// partition a tile at a time: u32 keys load their 2560-key tile in one step (run 49, H200,
/// best of 5, whole sorts: batch 10 0.569 / 1.800 / 6.666 ms at 2^24 / 2^26 / 2^28 against
/// 0.583 / 1.827 / 6.782 with 8, 0.606 / 1.891 / 6.981 with 20); u64 keys and u32 pairs
/// gained nothing measurable from a whole tile per step (7: 5.521 against 5.545 ms at 2^26;
/// pairs with 11 or 22 the same or 0.5% slower), so they keep 8.
pub fn reduce_then_scan_batch(variant: Variant) -> u32 {
    match (variant.wide, variant.pairs) {
        (false, false) => 10,
        _ => HISTOGRAM_BATCH,
    }
}
/// Invocations of the plan's single workgroup (one per bucket).
pub const PLAN_WORKGROUP: u32 = 256;
/// Earlier tiles whose look-back words one step of the look-back reads at once (independent
/// loads, then walked in order). Run 5 (H200, u32 keys, 2^26): 1 / 4 / 8 took 3.807 / 3.495 /
/// 3.504 ms per sort, so 4.
pub const LOOKAHEAD: u32 = 4;
/// Invocations that walk one digit's look-back together, each reading LOOKAHEAD tiles of a
/// step (at most the smallest subgroup). Run 13 of BENCHMARKS.md (H200, 2^26, whole sorts,
/// one lane against two): u32 keys 2.751 / 2.725 ms (6.35 / 3.70 steps per digit and tile),
/// u64 keys 8.744 / 8.430 (four lanes: 9.103), u32 pairs 3.198 / 3.144.
pub const LOOKBACK_LANES: u32 = 2;
/// Most partitions of a reduce-then-scan pass (the `PARTITIONS` specialization constant of
/// `radix_plan.comp`): the tiles are cut into at most this many runs of consecutive tiles,
/// each counted, a tile at a time, by one upsweep workgroup (the scatter keeps a workgroup
/// per tile: a workgroup per partition was slower, run 22).
/// Run 23 (u32 keys, 2^26): 256 / 512 / 1024 / 2048 / 4096 partitions took 2.549 / 2.371 /
/// 2.375 / 2.466 / 2.612 ms, and run 39 found 1024 as good or best at 2^24 and 2^28; since
/// each upsweep workgroup loads the next chunk of keys while it counts one (runs 76-77, H200,
/// best of 5, 512 / 1024 partitions): u32 keys 0.520 / 0.534 ms at 2^24, 1.750 / 1.767 at
/// 2^26, 6.590 / 6.605 at 2^28; u64 keys 1.276 / 1.392 at 2^24 (its upsweep's 38 registers
/// leave room for fewer than 1024 workgroups at once); u32 pairs 0.674 / 0.680 at 2^24 but
/// 8.962 / 8.922 at 2^28.
pub const PARTITIONS: u32 = 512;
/// The most partitions `SORTNET_RADIX_PARTITIONS` may ask for (the state holds their
/// offsets).
pub const MAX_PARTITIONS: u32 = 1024;
/// Reduce-then-scan sorts of fewer keys than this run each pass's scan in the first
/// workgroups of its scatter, larger ones as a dispatch of its own
/// (`SORTNET_RADIX_SCAN_IN_PASS=1` or `=0` makes it every sort or none). In the pass it
/// saves the dispatch, but the scatter compiled with it ran slower per tile. Run 79 of
/// BENCHMARKS.md (H200, best of 5, two rounds, by a dispatch / in the pass): u32 keys 0.941 /
/// 0.931 ms at 2^25, 1.747 / 1.754 at 2^26, 6.582 / 6.686 at 2^28; u64 keys 2.366 / 2.351 at
/// 2^25, 4.457 / 4.474 at 2^26; u32 pairs 1.235 / 1.210 at 2^25, 2.334 / 2.315 at 2^26.
pub const SCAN_IN_PASS_BELOW: u64 = 1 << 26;

/// Below how many keys `variant`'s reduce-then-scan passes scan in the pass
/// ([`SCAN_IN_PASS_BELOW`]). Pairs never do: a build of the scatter that differed only in
/// code that pairs of unsigned keys never run sorted u32 pairs wrong on the H200 wherever
/// their scan ran in the pass (BENCHMARKS.md, runs 97-98 and 106-109: with pairs' 512 x 11
/// tile and the key map fixed in the pipeline, whatever the spin limit; the cause not
/// found), and right with the scan in its own dispatch, which costs pairs 2-5% (0.691-0.694
/// against 0.659-0.672 ms at 2^24 in runs 89 and 99) and leaves them 1.24x faster than
/// CUB's argsort.
pub fn scan_in_pass_below(variant: Variant) -> u64 {
    if variant.pairs {
        0
    } else {
        SCAN_IN_PASS_BELOW
    }
}
/// Workgroups of a reduce-then-scan pass's scan (each takes `RADIX / SCAN_GROUPS` digits).
/// They run first in the pass's scatter dispatch, where tiles wait for them: enough that each
/// invocation loads its counts at once (run 73: 32 workgroups, 8 digits and 32 partitions per
/// invocation, took 0.020 ms per scan as a dispatch of their own).
pub const SCAN_GROUPS: u32 = 128;
/// From how many keys whole sorts of `variant` run their passes by reduce-then-scan (an
/// upsweep that counts each tile's digits, a scan of the partitions' counts, a scatter that
/// waits for no other tile) rather than by decoupled look-back; `None`: never.
/// `SORTNET_RADIX_REDUCE_SCAN=1` makes it every sort, `=0` none. 64-bit pairs keep the
/// look-back: their upsweep reads 8 bytes a key, and their scatter gained too little without
/// the look-back (BENCHMARKS.md, H200, 2^26: 8.130 ms by look-back against 9.685 at 256 x 6
/// in run 46; 8.46 against 9.43 at 1024 x 5 in run 23).
pub fn reduce_then_scan_from(variant: Variant) -> Option<u64> {
    match (variant.wide, variant.pairs) {
        (false, false) => Some(REDUCE_THEN_SCAN_MIN_KEYS),
        (false, true) => Some(REDUCE_THEN_SCAN_MIN_PAIRS),
        (true, false) => Some(REDUCE_THEN_SCAN_MIN_KEYS_64),
        (true, true) => None,
    }
}
/// 32-bit keys. Run 48 (H200, best of 5, ms, one process per row, look-back at 512 x 8
/// against reduce-then-scan at 256 x 10): 0.228 / 0.255 at 2^22, 0.386 / 0.360 at 2^23,
/// 0.687 / 0.580 at 2^24; runs 114-115 (look-back at 512 x 11): 0.104 / 0.115 at 2^20, 0.133 /
/// 0.142 at 2^21, 0.193 / 0.197 at 2^22, 0.320 / 0.300 at 2^23.
pub const REDUCE_THEN_SCAN_MIN_KEYS: u64 = 1 << 23;
/// u32 pairs. Run 48 (look-back at 512 x 8 against reduce-then-scan at 512 x 11): 0.266 /
/// 0.301 at 2^22, 0.446 / 0.446 at 2^23, 0.804 / 0.720 at 2^24; runs 114-115 (look-back at
/// 512 x 11): 0.381 / 0.411 at 2^23, 0.681-0.683 / 0.683-0.685 at 2^24, 1.282 / 1.214 at 2^25.
pub const REDUCE_THEN_SCAN_MIN_PAIRS: u64 = 1 << 24;
/// 64-bit keys (not pairs). Runs 114-115 (look-back at 1024 x 5 against reduce-then-scan at
/// 256 x 14 with half keys): 0.152 / 0.169 at 2^18, 0.162 / 0.183 at 2^19, 0.231 / 0.222 at
/// 2^20, 0.326 / 0.297 at 2^21, 0.530 / 0.417 at 2^22, 0.940 / 0.715 at 2^23. (It was 2^23
/// from run 48, before the half-key tiles.)
pub const REDUCE_THEN_SCAN_MIN_KEYS_64: u64 = 1 << 20;
/// Reads of a missing look-back word before the workgroup recounts that tile itself.
pub const SPIN_LIMIT: u32 = 4096;
/// The same on a software driver. llvmpipe (lavapipe) silently ends a loop after 65535
/// iterations of one invocation, counted over every entry of the loop: a look-back that
/// spun that long went on half walked and published wrong counts (found in session 6 with
/// tiles taken by workgroup id, where a tile can wait on one queued behind it on the same
/// CPU thread: 2^18 u32 keys sorted right with spin limits up to 16000 and wrong from 20000,
/// the look-back's walk loop being entered four times per round; BENCHMARKS.md run 19). A
/// short spin keeps every walk far below that limit; lavapipe's workgroups that wait are
/// descheduled threads, which a recount overtakes anyway.
pub const SOFTWARE_SPIN_LIMIT: u32 = 64;

/// 32-bit words of a subgroup ballot that can hold lanes: the scatter shader's match works
/// on one word where subgroups have at most 32 lanes (NVIDIA, lavapipe), on two for 64.
pub fn ballot_words(max_subgroup: u32) -> u32 {
    max_subgroup
        .div_ceil(32)
        .clamp(1, 4)
        .next_power_of_two()
        .min(4)
}

/// The key width and whether values ride along: one set of pipelines each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Variant {
    /// 64-bit keys (else 32-bit).
    pub wide: bool,
    /// `u32` values follow the keys.
    pub pairs: bool,
}

impl Variant {
    /// Index 0..4 for per-variant tables.
    pub fn index(self) -> usize {
        usize::from(self.wide) | (usize::from(self.pairs) << 1)
    }

    /// 32-bit words per key.
    pub fn key_words(self) -> u32 {
        if self.wide {
            2
        } else {
            1
        }
    }

    /// Radix passes (digits) of this width.
    pub fn passes(self) -> u32 {
        self.key_words() * 32 / DIGIT_BITS
    }

    /// Suffix of the SPIR-V files: `k32`, `k64`, `p32`, `p64`.
    pub fn suffix(self) -> &'static str {
        match (self.pairs, self.wide) {
            (false, false) => "k32",
            (false, true) => "k64",
            (true, false) => "p32",
            (true, true) => "p64",
        }
    }
}

/// What the tile shape depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceLimits {
    /// The smallest subgroup the driver may run (`minSubgroupSize`, else `subgroupSize`).
    pub min_subgroup: u32,
    /// The largest subgroup (`maxSubgroupSize`, else `subgroupSize`).
    pub max_subgroup: u32,
    /// `maxComputeSharedMemorySize` in bytes.
    pub shared_bytes: u32,
    /// `maxComputeWorkGroupInvocations`.
    pub max_invocations: u32,
    /// `maxComputeWorkGroupCount[0]`.
    pub max_groups_x: u32,
    /// `maxStorageBufferRange` in bytes.
    pub max_storage_range: u64,
}

/// The shape of one scatter tile: the specialization constants of `radix_scatter.comp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileShape {
    /// Invocations per workgroup.
    pub workgroup: u32,
    /// Keys per invocation.
    pub keys_per_invocation: u32,
    /// Subgroup counters kept in shared memory: workgroup / smallest subgroup.
    pub max_subgroups: u32,
}

impl TileShape {
    /// Keys per tile.
    pub fn tile_keys(self) -> u32 {
        self.workgroup * self.keys_per_invocation
    }

    /// Shared memory the scatter shader declares for this shape, in bytes (mirrors its
    /// `shared` declarations; the look-back keeps its per-digit state in registers).
    pub fn shared_bytes(self, variant: Variant, scheme: Scheme) -> u32 {
        let hist = self.max_subgroups * RADIX;
        let tile = self.tile_keys()
            * if half_keys(variant, scheme) {
                1
            } else {
                variant.key_words()
            };
        let words = hist.max(tile) + RADIX + self.max_subgroups + 5;
        words * 4
    }

    /// Tiles for `n` keys.
    pub fn tiles(self, n: u64) -> u64 {
        n.div_ceil(u64::from(self.tile_keys()))
    }
}

/// Keys per invocation the tile starts from for each variant (32-bit look-back tiles: 11 since
/// session 14, see the end). 32-bit keys: 8 with 512 invocations (H200, n = 2^26, one pass, run 3
/// of BENCHMARKS.md (vulkan-radix): 0.84 ms per pass; 6: 0.99, 10: 1.24, 12: 1.17; 256 x 15, CUB's
/// Onesweep tile: 1.12; run 7 of BENCHMARKS.md (radix 6-8), whole sorts of 2^26 keys: 512 x 8 2.726
/// ms, 512 x 7 2.949, 512 x 9 3.751, 384 x 11 2.709, 256 x 16 2.911). u32 pairs: 8 (run 7: 3.176
/// ms; 7: 3.412, 6: 3.736). 64-bit keys: 4 with 1024 invocations (run 7: k64 8.713 ms against 9.062
/// for 512 x 4 and 9.094 for 256 x 8; 1024 x 3: 10.494). More keys per invocation than these need
/// more registers than 64, the most that lets two workgroups of 512 (or one of 1024) share a
/// multiprocessor, and the spills cost more than the larger tile saves. Since the ranks are packed
/// two to a register, 64-bit keys fit 5 in 64 registers (runs 14-15 of BENCHMARKS.md, 2^26: keys
/// 1024 x 5 7.451 ms against 7.994 for 1024 x 4, pairs 8.803 against 9.828; 32-bit keys at 9 to 12
/// still take 68-80 registers and lose). 64-bit keys by reduce-then-scan: 8 with 256 invocations
/// (77 registers, three workgroups per multiprocessor; run 32, 2^26: 6.609 ms against 8.183 for
/// 1024 x 5, 6.876 for 256 x 7, 10.293 for 256 x 9, 9.428 for 384 x 8, 8.828 for 128 x 16). By
/// look-back the same shape took 11.532 (1024 x 5: 7.068), so each scheme has its own.
///
/// Shared memory decides as much as registers (run 44): on an H200 the driver gives a compute
/// pipeline 48 KiB of shared memory per multiprocessor, the same as the most one workgroup may
/// declare (two workgroups of 23 636 bytes fit, of 24 660 not; three of 16.4 KiB not), far
/// below the 228 KiB the hardware has; Vulkan offers no way to ask for more.
/// Without the look-back's words (and since run 47 without per-digit counts and prefixes:
/// the prefixes are added into the subgroup counters) the reduce-then-scan tiles got
/// smaller, and runs 45-47 chose again (2^26 / 2^28, ms): u32 keys 256 x 10 (four workgroups,
/// 11.1 KiB, 58 registers) 1.829 / 6.775, 256 x 9 1.880 / 6.987, 256 x 8 1.894 / 7.219,
/// 512 x 10 1.924 / 7.157; u32 pairs 512 x 11 (23.1 KiB, 64 registers) 2.360 / 8.863, 512 x
/// 10 2.424 / 9.115; u64 keys 256 x 7 (three workgroups, 15.1 KiB, 58 registers) 5.519 /
/// 21.424, 256 x 6 5.890 / 23.084, 256 x 8 5.984 / 22.927. Since run 53, 64-bit keys take
/// their tile through shared memory one 32-bit half at a time (`half_keys`), and runs 53-55
/// chose 256 x 14 (15.1 KiB, 79 registers: three workgroups): 4.572 / 17.394 ms against
/// 5.594 / 21.773 for 256 x 7 with whole keys; 256 x 12 4.677 / 17.991, 256 x 13 4.593 /
/// 17.698, 256 x 16 (103 registers) 5.076 / 21.048, 512 x 8 4.966 / 18.917, 512 x 10 4.884 /
/// 18.557, 384 x 12 5.007 / 18.975, 1024 x 5 6.901 / 26.638.
///
/// Since session 14 the look-back keeps its per-digit state in registers (5 KiB less shared
/// memory), so 32-bit look-back tiles grew to 512 x 11 (23.1 KiB, 64 registers: still two
/// workgroups per multiprocessor). Runs 114-115 (H200, best of 5, ms, 512 x 8 / 512 x 11): u32
/// keys 0.075 / 0.077 at 2^16, 0.082 / 0.086 at 2^18, 0.106 / 0.104 at 2^20, 0.142 / 0.133 at
/// 2^21, 0.219 / 0.193 at 2^22, 0.369 / 0.320 at 2^23; u32 pairs 0.080 / 0.085 at 2^16, 0.113
/// / 0.114 at 2^20, 0.255 / 0.232 at 2^22, 0.430 / 0.381 at 2^23, 0.785 / 0.683 at 2^24.
/// 64-bit look-back tiles keep 1024 x 5 (u64 pairs at 512 x 5: 0.619 / 2.119 / 8.148 ms at
/// 2^22 / 2^24 / 2^26 against 0.628 / 2.096 / 7.963).
pub fn preferred_keys_per_invocation(variant: Variant, scheme: Scheme) -> u32 {
    match (variant.wide, variant.pairs, scheme) {
        (true, false, Scheme::ReduceThenScan) => 14,
        (true, _, _) => 5,
        (false, true, Scheme::ReduceThenScan) => 11,
        (false, false, Scheme::ReduceThenScan) => 10,
        (false, _, _) => 11,
    }
}

/// The most keys a tile may hold: the scatter keeps ranks in 16 bits.
pub const MAX_TILE_KEYS: u32 = 1 << 16;

/// The invocations per workgroup the tile starts from (halved where shared memory is short,
/// as on lavapipe with its 8-lane subgroups): 512 for 32-bit keys (it beat 256 and 1024 on
/// the H200, run 3), 1024 for 64-bit keys (run 7, see above), 256 for keys by
/// reduce-then-scan (runs 45-47 and 53-55).
pub fn preferred_workgroup(variant: Variant, scheme: Scheme) -> u32 {
    match (variant.wide, variant.pairs, scheme) {
        (_, false, Scheme::ReduceThenScan) => 256,
        (true, _, _) => 1024,
        (false, _, _) => 512,
    }
}

/// Whether the scatter reorders one 32-bit half of each key at a time through shared memory
/// (its `HALF_KEYS` specialization constant): 64-bit keys by reduce-then-scan, whose tile then
/// needs half the shared memory.
pub fn half_keys(variant: Variant, scheme: Scheme) -> bool {
    variant.wide && !variant.pairs && scheme == Scheme::ReduceThenScan
}

/// How a pass finds where earlier tiles' keys end: the two kinds of scatter pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Decoupled look-back across tiles (Onesweep).
    LookBack,
    /// An upsweep and a scan before the scatter.
    ReduceThenScan,
}

/// The largest tile that fits the device: the preferred shape, halving the workgroup (never
/// below the largest subgroup or 64) and then trimming keys per invocation until the
/// shared memory fits. `None` if nothing fits.
pub fn choose_shape(
    variant: Variant,
    scheme: Scheme,
    limits: &DeviceLimits,
    keys_per_invocation: Option<u32>,
    workgroup: Option<u32>,
) -> Option<TileShape> {
    let min_sg = limits.min_subgroup.max(1);
    let max_sg = limits.max_subgroup.max(min_sg);
    let floor = max_sg.max(64);
    let workgroups: Vec<u32> = match workgroup {
        Some(wg) => vec![wg],
        None => std::iter::successors(
            Some(preferred_workgroup(variant, scheme).min(limits.max_invocations)),
            |&wg| (wg / 2 >= floor).then_some(wg / 2),
        )
        .collect(),
    };
    let start =
        keys_per_invocation.unwrap_or_else(|| preferred_keys_per_invocation(variant, scheme));
    for (i, &wg) in workgroups.iter().enumerate() {
        // At least 64 invocations: the scatter gives each at most four digits.
        if wg < RADIX / 4 || wg % max_sg != 0 || wg > limits.max_invocations {
            continue;
        }
        let last = i + 1 == workgroups.len();
        // Keys per invocation shrink only once the workgroup cannot.
        let lowest = if keys_per_invocation.is_none() && last {
            1
        } else {
            start
        };
        for kpi in (lowest..=start).rev() {
            let shape = TileShape {
                workgroup: wg,
                keys_per_invocation: kpi,
                max_subgroups: wg / min_sg,
            };
            if shape.tile_keys() <= MAX_TILE_KEYS
                && shape.shared_bytes(variant, scheme) <= limits.shared_bytes
            {
                return Some(shape);
            }
        }
    }
    None
}

/// Bytes of the scratch buffers a sort of up to `capacity` keys needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScratchSizes {
    /// The second key buffer (ping-pong).
    pub keys_bytes: u64,
    /// The second value buffer (zero for keys alone).
    pub values_bytes: u64,
    /// State: counters, flags, histograms, bucket offsets, two look-back slots.
    pub state_bytes: u64,
    /// Indirect dispatch sizes.
    pub indirect_bytes: u64,
}

impl ScratchSizes {
    /// All of it.
    pub fn total(self) -> u64 {
        self.keys_bytes + self.values_bytes + self.state_bytes + self.indirect_bytes
    }
}

/// Words of one look-back slot for `capacity` keys.
pub fn slot_words(shape: TileShape, capacity: u64) -> u64 {
    shape.tiles(capacity).max(1) * u64::from(RADIX)
}

/// Words of the partitions' offsets of reduce-then-scan, after the two slots: two rows (the
/// steps alternate) of at most [`MAX_PARTITIONS`] partitions, and no more than tiles
/// (`partition_offset_index` in `radix_common.glsl`).
pub fn partition_offset_words(shape: TileShape, capacity: u64) -> u64 {
    2 * shape.tiles(capacity).clamp(1, u64::from(MAX_PARTITIONS)) * u64::from(RADIX)
}

/// Words of the state buffer for `capacity` keys.
pub fn state_words(shape: TileShape, capacity: u64) -> u64 {
    u64::from(state::STATUS)
        + 2 * slot_words(shape, capacity)
        + partition_offset_words(shape, capacity)
}

/// Scratch for sorting up to `capacity` keys of `variant` with tiles of `shape`. Buffers
/// are never empty (Vulkan has no zero-sized buffers).
pub fn scratch_sizes(variant: Variant, shape: TileShape, capacity: u64) -> ScratchSizes {
    let cap = capacity.max(1);
    ScratchSizes {
        keys_bytes: cap * 4 * u64::from(variant.key_words()),
        values_bytes: if variant.pairs { cap * 4 } else { 0 },
        state_bytes: state_words(shape, capacity) * 4,
        indirect_bytes: u64::from(indirect::WORDS) * 4,
    }
}

/// The most keys one sort takes on this device: the look-back count limit, the largest
/// storage buffer binding (keys, and the look-back state), and the largest dispatch.
pub fn max_len(variant: Variant, shape: TileShape, limits: &DeviceLimits) -> u64 {
    let by_count = LOOKBACK_COUNT_LIMIT - 1;
    let by_keys = limits.max_storage_range / (4 * u64::from(variant.key_words()));
    let by_groups = u64::from(limits.max_groups_x) * u64::from(shape.tile_keys());
    // State words = STATUS + 2 * tiles * 256 + the partitions' offsets must fit the binding
    // range too.
    let state_range_words = limits.max_storage_range / 4;
    let by_state = state_range_words
        .saturating_sub(u64::from(state::STATUS + 2 * MAX_PARTITIONS * RADIX))
        / (2 * 256)
        * u64::from(shape.tile_keys());
    by_count.min(by_keys).min(by_groups).min(by_state)
}

/// Workgroups of the histogram dispatch for up to `capacity` keys: enough that each
/// invocation counts about `keys_per_invocation` keys (normally
/// [`HISTOGRAM_KEYS_PER_INVOCATION`]), at most `max_groups_x`.
/// (The count may come from a GPU buffer, so this is sized for the capacity; the shader
/// strides over the real count.)
pub fn histogram_groups(capacity: u64, max_groups_x: u32, keys_per_invocation: u32) -> u32 {
    let per_group = u64::from(STREAM_WORKGROUP * keys_per_invocation.max(1));
    capacity
        .div_ceil(per_group)
        .clamp(1, u64::from(max_groups_x.min(65535))) as u32
}

/// How the host path's grouped sort lays keys out after its one pass by the most
/// significant digit that tells them apart: the buckets of that digit, cut into contiguous
/// groups of roughly equal key counts, each group starting at an offset a storage-buffer
/// binding may take (so each is sorted as its own buffer range).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupLayout {
    /// The pass of the digit the keys are scattered by; `None` when every digit is the same
    /// for all keys (they are all equal: nothing to scatter or sort).
    pub pass: Option<u32>,
    /// Where each of the pass's 256 buckets starts, in keys (the scatter's bucket offsets).
    pub buckets: Vec<u32>,
    /// Each group's first key on the device and its key count, in key order.
    pub groups: Vec<(u64, u64)>,
}

impl GroupLayout {
    /// Keys the device buffers must hold: the last group's end.
    pub fn extent(&self) -> u64 {
        self.groups.last().map_or(0, |&(start, len)| start + len)
    }
}

/// Cuts `n` keys into at most `groups` groups by the most significant non-trivial digit of
/// `hist` (the upfront histogram: 256 counts per pass, pass 0 first), each group starting at
/// a multiple of `align` keys. A bucket is never split, so one bucket holding most keys
/// makes one big group (still correct, less overlap).
pub fn group_layout(hist: &[u32], n: u64, groups: usize, align: u64) -> GroupLayout {
    let radix = RADIX as usize;
    let passes = hist.len() / radix;
    let pass = (0..passes).rev().find(|&p| {
        hist[p * radix..(p + 1) * radix]
            .iter()
            .all(|&c| u64::from(c) < n)
    });
    let Some(pass) = pass else {
        return GroupLayout {
            pass: None,
            buckets: vec![0; radix],
            groups: vec![(0, n)],
        };
    };
    groups_by_digit(
        pass as u32,
        &hist[pass * radix..(pass + 1) * radix],
        n,
        groups,
        align,
    )
}

/// [`group_layout`] by the digit of pass `pass`, whose 256 counts (summing to `n`) are
/// `counts`: the grouped host path counts the top digit on the host while it uploads.
pub fn groups_by_digit(
    pass: u32,
    counts: &[u32],
    n: u64,
    groups: usize,
    align: u64,
) -> GroupLayout {
    let radix = RADIX as usize;
    let groups = groups.max(1) as u64;
    let align = align.max(1);
    let mut buckets = Vec::with_capacity(radix);
    let mut cuts = Vec::new();
    let (mut at, mut seen, mut group_start, mut group_len) = (0u64, 0u64, 0u64, 0u64);
    for &c in counts {
        let c = u64::from(c);
        if group_len == 0 {
            at = at.next_multiple_of(align);
            group_start = at;
        }
        buckets.push(at as u32);
        at += c;
        seen += c;
        group_len += c;
        // Close the group once it holds its share of the keys not in earlier groups.
        let left = groups.saturating_sub(cuts.len() as u64).max(1);
        let share = (n - (seen - group_len)).div_ceil(left);
        if group_len > 0 && (group_len >= share || seen == n) {
            cuts.push((group_start, group_len));
            group_len = 0;
        }
    }
    GroupLayout {
        pass: Some(pass),
        buckets,
        groups: cuts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAVAPIPE: DeviceLimits = DeviceLimits {
        min_subgroup: 8,
        max_subgroup: 8,
        shared_bytes: 32 * 1024,
        max_invocations: 1024,
        max_groups_x: 65535,
        max_storage_range: 128 << 20,
    };
    const NVIDIA: DeviceLimits = DeviceLimits {
        min_subgroup: 32,
        max_subgroup: 32,
        shared_bytes: 48 * 1024,
        max_invocations: 1024,
        max_groups_x: u32::MAX >> 1,
        max_storage_range: u32::MAX as u64,
    };
    const AMD: DeviceLimits = DeviceLimits {
        min_subgroup: 32,
        max_subgroup: 64,
        shared_bytes: 64 * 1024,
        max_invocations: 1024,
        max_groups_x: u32::MAX,
        max_storage_range: u32::MAX as u64,
    };

    const KEYS32: Variant = Variant {
        wide: false,
        pairs: false,
    };
    const PAIRS32: Variant = Variant {
        wide: false,
        pairs: true,
    };

    fn variants() -> [Variant; 4] {
        [false, true]
            .map(|p| [false, true].map(|w| Variant { wide: w, pairs: p }))
            .concat()
            .try_into()
            .unwrap()
    }

    #[test]
    fn only_keys_scan_in_the_pass() {
        for v in variants() {
            let below = scan_in_pass_below(v);
            assert_eq!(below == 0, v.pairs, "{v:?}");
            assert!(below <= SCAN_IN_PASS_BELOW);
        }
    }

    #[test]
    fn variants_have_distinct_indices_and_passes() {
        let idx: Vec<usize> = variants().iter().map(|v| v.index()).collect();
        assert_eq!(idx, vec![0, 1, 2, 3]);
        assert_eq!(
            Variant {
                wide: false,
                pairs: true
            }
            .passes(),
            4
        );
        assert_eq!(
            Variant {
                wide: true,
                pairs: false
            }
            .passes(),
            8
        );
        assert_eq!(
            Variant {
                wide: true,
                pairs: true
            }
            .suffix(),
            "p64"
        );
    }

    #[test]
    fn shapes_fit_every_device() {
        for limits in [LAVAPIPE, NVIDIA, AMD] {
            for v in variants() {
                for scheme in [Scheme::LookBack, Scheme::ReduceThenScan] {
                    let s = choose_shape(v, scheme, &limits, None, None).expect("a shape fits");
                    assert!(
                        s.shared_bytes(v, scheme) <= limits.shared_bytes,
                        "{s:?} {v:?}"
                    );
                    assert!(s.tile_keys() <= MAX_TILE_KEYS, "{s:?} {v:?}");
                    assert_eq!(s.workgroup % limits.max_subgroup, 0);
                    assert_eq!(s.max_subgroups, s.workgroup / limits.min_subgroup);
                    assert!(s.keys_per_invocation >= 1);
                }
            }
        }
        // NVIDIA keeps the preferred tile.
        let s = choose_shape(
            Variant {
                wide: false,
                pairs: false,
            },
            Scheme::LookBack,
            &NVIDIA,
            None,
            None,
        )
        .unwrap();
        assert_eq!((s.workgroup, s.tile_keys()), (512, 5632));
        // 64-bit keys take a tile of their own by reduce-then-scan.
        let wide = Variant {
            wide: true,
            pairs: false,
        };
        let s = choose_shape(wide, Scheme::ReduceThenScan, &NVIDIA, None, None).unwrap();
        assert_eq!((s.workgroup, s.keys_per_invocation), (256, 14));
        // Reduce-then-scan tiles keep at least two workgroups per multiprocessor within the
        // shared memory an H200 gives them (48 KiB in all, run 44).
        for (v, shape) in [(KEYS32, (256, 10)), (PAIRS32, (512, 11)), (wide, (256, 14))] {
            let s = choose_shape(v, Scheme::ReduceThenScan, &NVIDIA, None, None).unwrap();
            assert_eq!((s.workgroup, s.keys_per_invocation), shape);
            assert!(
                2 * s.shared_bytes(v, Scheme::ReduceThenScan) <= 47 * 1024,
                "{s:?}"
            );
        }
        let s = choose_shape(wide, Scheme::LookBack, &NVIDIA, None, None).unwrap();
        assert_eq!((s.workgroup, s.keys_per_invocation), (1024, 5));
        // Lavapipe's 8-lane subgroups need 32 counters per 256 invocations: 32 KiB alone,
        // so the workgroup halves twice.
        let s = choose_shape(
            Variant {
                wide: false,
                pairs: false,
            },
            Scheme::LookBack,
            &LAVAPIPE,
            None,
            None,
        )
        .unwrap();
        assert_eq!(s.workgroup, 128);
    }

    #[test]
    fn forced_shapes_that_do_not_fit_are_refused() {
        let v = Variant {
            wide: true,
            pairs: false,
        };
        assert!(choose_shape(v, Scheme::LookBack, &NVIDIA, Some(64), Some(256)).is_none());
        assert!(
            choose_shape(v, Scheme::LookBack, &NVIDIA, Some(4), Some(80)).is_none(),
            "not a subgroup multiple"
        );
        let s = choose_shape(v, Scheme::LookBack, &NVIDIA, Some(4), Some(256)).unwrap();
        assert_eq!(s.tile_keys(), 1024);
        // Ranks are kept in 16 bits: no tile of more than 65536 keys, whatever the memory.
        let roomy = DeviceLimits {
            shared_bytes: 1 << 30,
            ..NVIDIA
        };
        assert!(choose_shape(v, Scheme::LookBack, &roomy, Some(128), Some(1024)).is_none());
        assert!(choose_shape(v, Scheme::LookBack, &roomy, Some(64), Some(1024)).is_some());
    }

    #[test]
    fn ballot_words_cover_the_subgroup() {
        assert_eq!(ballot_words(8), 1);
        assert_eq!(ballot_words(32), 1);
        assert_eq!(ballot_words(64), 2);
        assert_eq!(ballot_words(128), 4);
    }

    #[test]
    fn tiles_and_scratch() {
        let shape = TileShape {
            workgroup: 256,
            keys_per_invocation: 15,
            max_subgroups: 8,
        };
        assert_eq!(shape.tiles(0), 0);
        assert_eq!(shape.tiles(1), 1);
        assert_eq!(shape.tiles(3840), 1);
        assert_eq!(shape.tiles(3841), 2);
        let v = Variant {
            wide: false,
            pairs: true,
        };
        let s = scratch_sizes(v, shape, 3841);
        assert_eq!(s.keys_bytes, 3841 * 4);
        assert_eq!(s.values_bytes, 3841 * 4);
        // The header, two slots of two tiles, two rows of offsets of (at most) two
        // partitions.
        assert_eq!(s.state_bytes, (4224 + 2 * 2 * 256 + 2 * 2 * 256) * 4);
        // Many tiles: the partitions' offsets stop at MAX_PARTITIONS.
        let many = scratch_sizes(v, shape, 3840 * 5000);
        assert_eq!(
            many.state_bytes,
            (4224 + 2 * 5000 * 256 + 2 * 1024 * 256) * 4
        );
        assert_eq!(
            s.total(),
            s.keys_bytes + s.values_bytes + s.state_bytes + 75 * 4
        );
        let empty = scratch_sizes(
            Variant {
                wide: true,
                pairs: false,
            },
            shape,
            0,
        );
        assert!(empty.keys_bytes > 0 && empty.state_bytes > 0 && empty.values_bytes == 0);
    }

    #[test]
    fn max_len_respects_each_limit() {
        let v32 = Variant {
            wide: false,
            pairs: false,
        };
        let shape = choose_shape(v32, Scheme::LookBack, &NVIDIA, None, None).unwrap();
        assert_eq!(max_len(v32, shape, &NVIDIA), (1 << 30) - 1);
        let v64 = Variant {
            wide: true,
            pairs: false,
        };
        let shape64 = choose_shape(v64, Scheme::LookBack, &NVIDIA, None, None).unwrap();
        assert_eq!(max_len(v64, shape64, &NVIDIA), u64::from(u32::MAX) / 8);
        let lp = choose_shape(v32, Scheme::LookBack, &LAVAPIPE, None, None).unwrap();
        assert_eq!(max_len(v32, lp, &LAVAPIPE), (128 << 20) / 4);
        let tight = DeviceLimits {
            max_groups_x: 10,
            ..NVIDIA
        };
        assert_eq!(
            max_len(v32, shape, &tight),
            10 * u64::from(shape.tile_keys())
        );
    }

    #[test]
    fn histogram_groups_are_bounded() {
        assert_eq!(histogram_groups(0, 65535, 32), 1);
        assert_eq!(histogram_groups(8192, 65535, 32), 1);
        assert_eq!(histogram_groups(8193, 65535, 32), 2);
        assert_eq!(histogram_groups(1 << 28, 65535, 32), (1 << 28) / 8192);
        assert_eq!(histogram_groups(1 << 30, 65535, 32), 65535);
        assert_eq!(histogram_groups(1 << 40, u32::MAX, 32), 65535);
        assert_eq!(histogram_groups(1 << 28, 65535, 128), (1 << 28) / 32768);
        assert_eq!(histogram_groups(5, 65535, 0), 1);
    }

    /// The shaders and this file describe one layout: read the defines from the GLSL.
    #[test]
    fn layout_matches_the_shaders() {
        let glsl = include_str!("../../shaders/radix_common.glsl");
        let define = |name: &str| -> u32 {
            let line = glsl
                .lines()
                .find(|l| l.starts_with(&format!("#define {name} ")))
                .unwrap_or_else(|| panic!("no #define {name}"));
            let value = line
                .split_whitespace()
                .nth(2)
                .unwrap()
                .trim_end_matches('u');
            value.parse().unwrap()
        };
        assert_eq!(define("ST_COUNT"), state::COUNT);
        assert_eq!(define("ST_PARTITION"), state::PARTITION);
        assert_eq!(define("ST_PASS0_OFFSETS"), state::PASS0_OFFSETS);
        assert_eq!(define("ST_KEYS_OR"), state::KEYS_OR);
        assert_eq!(define("ST_KEYS_NAND"), state::KEYS_NAND);
        assert_eq!(define("ST_BUCKETS_GIVEN"), state::BUCKETS_GIVEN);
        assert_eq!(define("ST_TILE_COUNTER"), state::TILE_COUNTER);
        assert_eq!(define("SCAN_GROUPS"), SCAN_GROUPS);
        assert_eq!(define("ST_FLAGS"), state::FLAGS);
        assert_eq!(define("ST_LB_STATS"), state::LB_STATS);
        assert_eq!(define("ST_BUCKET"), state::BUCKET);
        assert_eq!(define("ST_HIST"), state::HIST);
        assert_eq!(define("ST_STATUS"), state::STATUS);
        assert_eq!(define("IND_PASS"), indirect::PASS);
        assert_eq!(define("IND_COPY"), indirect::COPY);
        assert_eq!(define("IND_UPSWEEP"), indirect::UPSWEEP);
        assert_eq!(define("IND_SCAN"), indirect::SCAN);
        assert_eq!(define("IND_WORDS"), indirect::WORDS);
        // The regions do not overlap.
        const { assert!(state::TILE_COUNTER + MAX_PASSES <= state::FLAGS) };
        const { assert!(RADIX.is_multiple_of(SCAN_GROUPS)) };
        const { assert!(state::FLAGS + MAX_PASSES <= state::LB_STATS) };
        const { assert!(state::LB_STATS + MAX_PASSES * 4 <= state::BUCKET) };
        assert_eq!(state::BUCKET + MAX_PASSES * RADIX, state::HIST);
        assert_eq!(state::HIST + MAX_PASSES * RADIX, state::STATUS);
        assert_eq!(indirect::PASS + MAX_PASSES * 3, indirect::COPY);
        const { assert!(state::PARTITION + 2 <= state::PASS0_OFFSETS) };
        const { assert!(state::PASS0_OFFSETS < state::KEYS_OR) };
        const { assert!(state::KEYS_OR + 2 <= state::KEYS_NAND) };
        const { assert!(state::KEYS_NAND + 2 <= state::BUCKETS_GIVEN) };
        const { assert!(state::BUCKETS_GIVEN < state::TILE_COUNTER) };
        assert_eq!(indirect::COPY + 3, indirect::UPSWEEP);
        assert_eq!(indirect::UPSWEEP + MAX_PASSES * 3, indirect::SCAN);
        assert_eq!(indirect::SCAN + MAX_PASSES * 3, indirect::WORDS);
    }

    /// Counts of 256 buckets for `passes` passes from keys, pass 0 the lowest byte.
    fn histogram(keys: &[u64], passes: usize) -> Vec<u32> {
        let mut hist = vec![0u32; passes * 256];
        for &k in keys {
            for p in 0..passes {
                hist[p * 256 + ((k >> (8 * p)) & 255) as usize] += 1;
            }
        }
        hist
    }

    /// Checks the layout against the keys: groups in order, aligned, disjoint, covering all
    /// keys, every bucket inside one group at its offset.
    fn check_layout(keys: &[u64], passes: usize, groups: usize, align: u64) -> GroupLayout {
        let hist = histogram(keys, passes);
        let n = keys.len() as u64;
        let layout = group_layout(&hist, n, groups, align);
        assert!(layout.groups.len() <= groups.max(1));
        assert_eq!(layout.groups.iter().map(|g| g.1).sum::<u64>(), n);
        let mut end = 0;
        for &(start, len) in &layout.groups {
            assert!(start >= end && start % align == 0 && len > 0, "{layout:?}");
            end = start + len;
        }
        assert!(layout.extent() <= n + groups as u64 * align);
        if let Some(p) = layout.pass {
            let counts = &hist[p as usize * 256..][..256];
            let mut at = 0;
            for (d, &c) in counts.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let start = u64::from(layout.buckets[d]);
                assert!(start >= at, "buckets in digit order");
                let group = layout
                    .groups
                    .iter()
                    .find(|&&(s, l)| s <= start && start + u64::from(c) <= s + l);
                assert!(group.is_some(), "bucket {d} inside one group: {layout:?}");
                at = start + u64::from(c);
            }
        }
        layout
    }

    #[test]
    fn group_layout_cuts_by_the_top_digit_that_varies() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let random: Vec<u64> = (0..10_000).map(|_| next() & 0xffff_ffff).collect();
        let l = check_layout(&random, 4, 16, 4);
        assert_eq!(l.pass, Some(3));
        assert_eq!(l.groups.len(), 16);
        for &(_, len) in &l.groups {
            assert!((400..900).contains(&len), "about 625 keys each: {l:?}");
        }
        // Only the low 16 bits vary: the cut is by byte 1.
        let low: Vec<u64> = random.iter().map(|k| k & 0xffff).collect();
        assert_eq!(check_layout(&low, 4, 8, 2).pass, Some(1));
        // Only the top byte varies: by byte 3, and 64-bit keys by byte 7.
        let top: Vec<u64> = random.iter().map(|k| k & 0xff00_0000).collect();
        assert_eq!(check_layout(&top, 4, 8, 1).pass, Some(3));
        let wide: Vec<u64> = random.iter().map(|k| k << 32).collect();
        assert_eq!(check_layout(&wide, 8, 32, 2).pass, Some(7));
        // All equal: nothing to scatter, one group.
        let same = vec![42u64; 1000];
        let l = check_layout(&same, 4, 8, 4);
        assert_eq!((l.pass, l.groups.clone()), (None, vec![(0, 1000)]));
        // One bucket holding nearly everything: a big group, the rest around it.
        let mut skew = vec![0x8000_0000u64; 1000];
        skew.extend(random.iter().take(20));
        let l = check_layout(&skew, 4, 16, 4);
        assert!(l.groups.iter().any(|&(_, len)| len >= 1000), "{l:?}");
        // More groups than buckets with keys, and tiny inputs.
        assert!(check_layout(&random[..3], 4, 32, 4).groups.len() <= 3);
        check_layout(&random[..2], 4, 1, 1);
    }
}
