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
pub(crate) const DIGIT_BITS: u32 = 8;
/// Buckets per pass.
pub(crate) const RADIX: u32 = 1 << DIGIT_BITS;
/// Most passes of any key width (64-bit keys).
pub(crate) const MAX_PASSES: u32 = 8;

/// Look-back words hold a 2-bit flag and a 30-bit count, so a sort takes fewer keys than this.
pub(crate) const LOOKBACK_COUNT_LIMIT: u64 = 1 << 30;

/// State buffer word offsets (the `ST_*` defines of `radix_common.glsl`; the shaders use
/// them all, the host a few, and a test checks each against the shader source).
#[allow(dead_code)]
pub(crate) mod state {
    /// Keys to sort.
    pub(crate) const COUNT: u32 = 0;
    /// Reduce-then-scan: tiles per partition, then partitions (set by the plan).
    pub(crate) const PARTITION: u32 = 1;
    /// Histogram workgroups finished: the last one plans the passes and sets it back to 0.
    pub(crate) const TICKET: u32 = 3;
    /// OR of every key (after the key map), two words for 64-bit keys.
    pub(crate) const KEYS_OR: u32 = 4;
    /// OR of every key's complement: with `KEYS_OR`, the bits that vary.
    pub(crate) const KEYS_NAND: u32 = 6;
    /// 1 when the host wrote a pass's bucket offsets.
    pub(crate) const BUCKETS_GIVEN: u32 = 8;
    /// Reserved (tile counters, one per step; no shipped scatter hands tiles out by counter).
    pub(crate) const TILE_COUNTER: u32 = 16;
    /// Per-step flags (encode, decode, look-back slot; the step's pass from bit 8 on).
    pub(crate) const FLAGS: u32 = 32;
    /// Reserved (per-step look-back statistics; no shipped scatter writes them).
    pub(crate) const LB_STATS: u32 = 64;
    /// Bucket offsets, 256 per pass.
    pub(crate) const BUCKET: u32 = 128;
    /// Digit counts, 256 per pass.
    pub(crate) const HIST: u32 = 2176;
    /// Look-back words: two slots of `tiles * 256`; then, by reduce-then-scan, the
    /// partitions' offsets (`partition_offset_words`).
    pub(crate) const STATUS: u32 = 4224;
}

/// Indirect buffer word offsets (the `IND_*` defines of `radix_common.glsl`).
pub(crate) mod indirect {
    /// The scatter of each step (the passes that run, in order; `radix_common.glsl`), three
    /// words each.
    pub(crate) const PASS: u32 = 0;
    /// The final copy's dispatch.
    pub(crate) const COPY: u32 = 24;
    /// Reduce-then-scan: the upsweep of each step.
    pub(crate) const UPSWEEP: u32 = 27;
    /// Reduce-then-scan: the scan of each step.
    pub(crate) const SCAN: u32 = 51;
    /// Words in the indirect buffer.
    pub(crate) const WORDS: u32 = 75;
}

/// Invocations of the histogram and copy workgroups.
pub(crate) const STREAM_WORKGROUP: u32 = 256;
/// Keys each histogram invocation counts (grid-stride), which sets how many workgroups add
/// their shared counts into the global histogram with atomics: fewer workgroups, fewer
/// global atomics on the same 1024 words, but more rounds of loads each (H200: 2^26 u32
/// keys, 128 as fast as 64, faster than 32; 2^22 pairs, 256 workgroups of 64 took 26.6 us
/// against 30.1 for 128 of 128, 29.3 for 512 of 32 and 35.0 for 1024 of 16; BENCHMARKS.md,
/// "In the application's own Vulkan device").
pub(crate) const HISTOGRAM_KEYS_PER_INVOCATION: u32 = 64;
/// Keys each histogram invocation loads before counting them (the `BATCH` specialization
/// constant of `radix_histogram.comp`): several loads in flight per invocation.
pub(crate) const HISTOGRAM_BATCH: u32 = 8;

/// The same for the histogram and the upsweeps of reduce-then-scan sorts, which walk their
/// partition a tile at a time: u32 keys load their 2560-key tile in one step (10 beat 8 and
/// 20 by 2-3% at 2^24-2^28 on an H200); u64 keys and u32 pairs gained nothing measurable
/// from a whole tile per step, so they keep 8 (BENCHMARKS.md, "GPU radix tiles").
pub(crate) fn reduce_then_scan_batch(variant: Variant) -> u32 {
    match (variant.wide, variant.pairs) {
        (false, false) => 10,
        _ => HISTOGRAM_BATCH,
    }
}
/// Earlier tiles whose look-back words one step of the look-back reads at once (independent
/// loads, then walked in order): 4 took 8% less than 1 per u32 sort at 2^26 on an H200, and
/// 8 gained nothing more (BENCHMARKS.md, "GPU radix tiles").
pub(crate) const LOOKAHEAD: u32 = 4;
/// Invocations that walk one digit's look-back together, each reading LOOKAHEAD tiles of a
/// step (at most the smallest subgroup): two lanes took 1-4% less than one at 2^26 on an
/// H200 for u32 keys, u64 keys and u32 pairs, and four lanes more (BENCHMARKS.md, "GPU radix
/// tiles").
pub(crate) const LOOKBACK_LANES: u32 = 2;
/// Most partitions of a reduce-then-scan pass (the `PARTITIONS` specialization constant of
/// `radix_plan.glsl`): the tiles are cut into at most this many runs of consecutive tiles,
/// each counted, a tile at a time, by one upsweep workgroup (the scatter keeps a workgroup
/// per tile). 512 is as fast as 1024 or faster for u32 keys at 2^24-2^28 and for u64 keys
/// (whose upsweep's registers leave room for fewer than 1024 workgroups at once) on an H200
/// (BENCHMARKS.md, "GPU radix tiles").
pub(crate) const PARTITIONS: u32 = 512;
/// The most partitions a [`RadixConfig`](super::RadixConfig) may ask for (the state holds
/// their offsets).
pub(crate) const MAX_PARTITIONS: u32 = 1024;
/// Reduce-then-scan sorts below this many keys do each pass's scan in the first workgroups
/// of its scatter; larger ones give the scan a dispatch of its own. In the pass it saves the
/// dispatch, but the scatter compiled with it runs slower per tile: on an H200 the scan in
/// the pass won at 2^25 and lost at 2^26 and 2^28 (BENCHMARKS.md, "GPU radix tiles").
pub(crate) const SCAN_IN_PASS_BELOW: u64 = 1 << 26;

/// Below how many keys `variant`'s reduce-then-scan passes scan in the pass
/// ([`SCAN_IN_PASS_BELOW`]; 0 where `in_pass` is false). Pairs never do: with the scan in
/// the pass, the scatter sorts u32 pairs wrong on the H200 (pairs' 512 x 11 tile, key map
/// fixed in the pipeline, any spin limit; cause unknown, in code pairs of unsigned keys never
/// run); with the scan in its own dispatch they sort right, at 2-5% of their time at 2^24
/// (BENCHMARKS.md, "GPU radix sort").
pub(crate) fn scan_in_pass_below(variant: Variant, in_pass: bool) -> u64 {
    if variant.pairs || !in_pass {
        0
    } else {
        SCAN_IN_PASS_BELOW
    }
}
/// Workgroups of a reduce-then-scan pass's scan (each takes `RADIX / SCAN_GROUPS` digits).
/// They run first in the pass's scatter dispatch, where tiles wait for them: enough that each
/// invocation loads its counts at once (32 workgroups took 0.020 ms per scan as a dispatch
/// of their own on an H200).
#[allow(dead_code)] // the shaders' `SCAN_GROUPS`, checked against them by a test
pub(crate) const SCAN_GROUPS: u32 = 128;
/// From how many keys whole sorts of `variant` run their passes by reduce-then-scan (an
/// upsweep that counts each tile's digits, a scan of the partitions' counts, a scatter that
/// waits for no other tile) rather than by decoupled look-back; `None`: never. 64-bit pairs
/// keep the look-back: their upsweep reads 8 bytes a key, and their scatter gained too little
/// without the look-back (8.1 against 9.7 ms at 2^26 on an H200; BENCHMARKS.md, "GPU radix
/// tiles").
pub(crate) fn reduce_then_scan_from(variant: Variant) -> Option<u64> {
    match (variant.wide, variant.pairs) {
        (false, false) => Some(REDUCE_THEN_SCAN_MIN_KEYS),
        (false, true) => Some(REDUCE_THEN_SCAN_MIN_PAIRS),
        (true, false) => Some(REDUCE_THEN_SCAN_MIN_KEYS_64),
        (true, true) => None,
    }
}
/// 32-bit keys: the look-back (512 x 11) is faster up to 2^22 keys, reduce-then-scan (256 x
/// 10) from 2^23 (0.300 against 0.320 ms on an H200; BENCHMARKS.md, "GPU radix tiles").
pub(crate) const REDUCE_THEN_SCAN_MIN_KEYS: u64 = 1 << 23;
/// u32 pairs: the two schemes tie at 2^24 on an H200 (0.683 ms), reduce-then-scan (512 x 11)
/// wins from 2^25 (1.214 against 1.282 ms; BENCHMARKS.md, "GPU radix tiles").
pub(crate) const REDUCE_THEN_SCAN_MIN_PAIRS: u64 = 1 << 24;
/// 64-bit keys (not pairs): reduce-then-scan at 256 x 14 with half keys beats the look-back
/// at 1024 x 5 from 2^20 keys on an H200 (0.222 against 0.231 ms; 0.715 against 0.940 at
/// 2^23; BENCHMARKS.md, "GPU radix tiles").
pub(crate) const REDUCE_THEN_SCAN_MIN_KEYS_64: u64 = 1 << 20;
/// Reads of a missing look-back word before the workgroup recounts that tile itself.
pub(crate) const SPIN_LIMIT: u32 = 4096;
/// The same on a software driver. llvmpipe (lavapipe) silently ends a loop once one
/// invocation has run 65535 loop iterations, counted over every loop of the shader: a
/// look-back cut short that way publishes wrong counts (2^18 u32 keys sorted right with
/// spin limits up to 16000 and wrong from 20000). A short spin keeps one wait far below that
/// limit; lavapipe's workgroups that wait are descheduled threads, which a recount overtakes
/// anyway. So no configuration may raise a spin limit above the device's default. (The
/// length of a whole walk is bounded by [`SOFTWARE_LOOKBACK_TILES`].)
pub(crate) const SOFTWARE_SPIN_LIMIT: u32 = 64;
/// The most tiles of a look-back sort on a software driver; larger sorts there run by
/// reduce-then-scan, whose loops per invocation do not grow with the tiles before a tile.
/// lavapipe hands each of its threads one contiguous run of a dispatch's workgroups, so the
/// second thread's first tile walks back over about half the tiles, none published yet,
/// waiting out the spin limit and recounting each one: about 300 loop iterations per tile
/// for 512 x 11 u32 pair tiles (four look-back rounds of 64 spins, then the recount), so a
/// walk's length grows with the tiles and any spin limit is passed at some size (2^22 pairs,
/// 2979 tiles, exceed it with two lavapipe threads; one thread never walks over unpublished
/// tiles). 64 tiles keep a walk near 20000 iterations.
pub(crate) const SOFTWARE_LOOKBACK_TILES: u64 = 64;

/// 32-bit words of a subgroup ballot that can hold lanes: the scatter shader's match works
/// on one word where subgroups have at most 32 lanes (NVIDIA, lavapipe), on two for 64.
pub(crate) fn ballot_words(max_subgroup: u32) -> u32 {
    max_subgroup
        .div_ceil(32)
        .clamp(1, 4)
        .next_power_of_two()
        .min(4)
}

/// The key width and whether values ride along: one set of pipelines each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Variant {
    /// 64-bit keys (else 32-bit).
    pub wide: bool,
    /// `u32` values follow the keys.
    pub pairs: bool,
}

impl Variant {
    /// Index 0..4 for per-variant tables.
    pub(crate) fn index(self) -> usize {
        usize::from(self.wide) | (usize::from(self.pairs) << 1)
    }

    /// 32-bit words per key.
    pub(crate) fn key_words(self) -> u32 {
        if self.wide {
            2
        } else {
            1
        }
    }

    /// Radix passes (digits) of this width.
    pub(crate) fn passes(self) -> u32 {
        self.key_words() * 32 / DIGIT_BITS
    }

    /// Suffix of the SPIR-V files: `k32`, `k64`, `p32`, `p64`.
    pub(crate) fn suffix(self) -> &'static str {
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
pub(crate) struct DeviceLimits {
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
pub(crate) struct TileShape {
    /// Invocations per workgroup.
    pub workgroup: u32,
    /// Keys per invocation.
    pub keys_per_invocation: u32,
    /// Subgroup counters kept in shared memory: workgroup / smallest subgroup.
    pub max_subgroups: u32,
}

impl TileShape {
    /// Keys per tile.
    pub(crate) fn tile_keys(self) -> u32 {
        self.workgroup * self.keys_per_invocation
    }

    /// Shared memory the scatter shader declares for this shape, in bytes (mirrors its
    /// `shared` declarations; the look-back keeps its per-digit state in registers).
    pub(crate) fn shared_bytes(self, variant: Variant, scheme: Scheme) -> u32 {
        let hist = self.max_subgroups * RADIX;
        let tile = self.tile_keys()
            * if half_keys(variant, scheme) {
                1
            } else {
                variant.key_words()
            };
        // s_mem (ranks, then the tile's keys), s_out, s_sg_sum, s_pending and s_stalled.
        let words = hist.max(tile) + RADIX + self.max_subgroups + 2;
        words * 4
    }

    /// Tiles for `n` keys.
    pub(crate) fn tiles(self, n: u64) -> u64 {
        n.div_ceil(u64::from(self.tile_keys()))
    }
}

/// Keys per invocation the tile starts from for each variant and scheme. More keys per
/// invocation than these need more than 64 registers, the most that lets two workgroups of
/// 512 (or one of 1024) share a multiprocessor, and the spills cost more than the larger tile
/// saves; and an H200 gives a compute pipeline 48 KiB of shared memory per multiprocessor
/// (the most one workgroup may declare, far below the 228 KiB the hardware has; Vulkan offers
/// no way to ask for more), so shared memory decides as much as registers. On an H200 at
/// 2^26 keys (BENCHMARKS.md, "GPU radix tiles", with the neighbouring shapes):
///
/// - 32-bit keys and u32 pairs by look-back: 512 x 11 (23.1 KiB, 64 registers, two
///   workgroups per multiprocessor: the look-back keeps its per-digit state in registers);
/// - 64-bit keys by look-back: 1024 x 5 (ranks packed two to a register);
/// - u32 keys by reduce-then-scan: 256 x 10 (four workgroups, 11.1 KiB, 58 registers);
/// - u32 pairs by reduce-then-scan: 512 x 11 (23.1 KiB, 64 registers);
/// - u64 keys by reduce-then-scan: 256 x 14, one 32-bit half of the keys at a time through
///   shared memory ([`half_keys`]; 15.1 KiB, 79 registers: three workgroups).
pub(crate) fn preferred_keys_per_invocation(variant: Variant, scheme: Scheme) -> u32 {
    match (variant.wide, variant.pairs, scheme) {
        (true, false, Scheme::ReduceThenScan) => 14,
        (true, _, _) => 5,
        (false, true, Scheme::ReduceThenScan) => 11,
        (false, false, Scheme::ReduceThenScan) => 10,
        (false, _, _) => 11,
    }
}

/// The most keys a tile may hold: the scatter keeps ranks in 16 bits.
pub(crate) const MAX_TILE_KEYS: u32 = 1 << 16;

/// The invocations per workgroup the tile starts from (halved where shared memory is short,
/// as on lavapipe with its 8-lane subgroups): 512 for 32-bit keys, 1024 for 64-bit keys by
/// look-back, 256 for keys alone by reduce-then-scan (see
/// [`preferred_keys_per_invocation`]).
pub(crate) fn preferred_workgroup(variant: Variant, scheme: Scheme) -> u32 {
    match (variant.wide, variant.pairs, scheme) {
        (_, false, Scheme::ReduceThenScan) => 256,
        (true, _, _) => 1024,
        (false, _, _) => 512,
    }
}

/// Whether the scatter reorders one 32-bit half of each key at a time through shared memory
/// (its `HALF_KEYS` specialization constant): 64-bit keys by reduce-then-scan, whose tile then
/// needs half the shared memory.
pub(crate) fn half_keys(variant: Variant, scheme: Scheme) -> bool {
    variant.wide && !variant.pairs && scheme == Scheme::ReduceThenScan
}

/// How a pass finds where earlier tiles' keys end: the two kinds of scatter pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// Decoupled look-back across tiles (Onesweep).
    LookBack,
    /// An upsweep and a scan before the scatter.
    ReduceThenScan,
}

/// The largest tile that fits the device: the preferred shape, halving the workgroup (never
/// below the largest subgroup or 64) and then trimming keys per invocation until the
/// shared memory fits. `None` if nothing fits.
pub(crate) fn choose_shape(
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
pub(crate) struct ScratchSizes {
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
    pub(crate) fn total(self) -> u64 {
        self.keys_bytes + self.values_bytes + self.state_bytes + self.indirect_bytes
    }
}

/// Words of one look-back slot for `capacity` keys.
pub(crate) fn slot_words(shape: TileShape, capacity: u64) -> u64 {
    shape.tiles(capacity).max(1) * u64::from(RADIX)
}

/// Words of the partitions' offsets of reduce-then-scan, after the two slots: two rows (the
/// steps alternate) of at most [`MAX_PARTITIONS`] partitions, and no more than tiles
/// (`partition_offset_index` in `radix_common.glsl`).
pub(crate) fn partition_offset_words(shape: TileShape, capacity: u64) -> u64 {
    2 * shape.tiles(capacity).clamp(1, u64::from(MAX_PARTITIONS)) * u64::from(RADIX)
}

/// Words of the state buffer for `capacity` keys.
pub(crate) fn state_words(shape: TileShape, capacity: u64) -> u64 {
    u64::from(state::STATUS)
        + 2 * slot_words(shape, capacity)
        + partition_offset_words(shape, capacity)
}

/// Scratch for sorting up to `capacity` keys of `variant` with tiles of `shape`. Buffers
/// are never empty (Vulkan has no zero-sized buffers).
pub(crate) fn scratch_sizes(variant: Variant, shape: TileShape, capacity: u64) -> ScratchSizes {
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
pub(crate) fn max_len(variant: Variant, shape: TileShape, limits: &DeviceLimits) -> u64 {
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

/// Workgroups of the look-back histogram for up to `capacity` keys: each invocation counts at
/// most `keys_per_invocation` keys (normally [`HISTOGRAM_KEYS_PER_INVOCATION`]), and below
/// that the keys spread over [`HISTOGRAM_SPREAD_GROUPS`] workgroups (at least
/// [`HISTOGRAM_MIN_KEYS_PER_INVOCATION`] keys an invocation); at most `max_groups_x`.
/// (The count may come from a GPU buffer, so this is sized for the capacity; the shader
/// strides over the real count.)
pub(crate) fn histogram_groups(capacity: u64, max_groups_x: u32, keys_per_invocation: u32) -> u32 {
    let per_invocation = capacity
        .div_ceil(HISTOGRAM_SPREAD_GROUPS * u64::from(STREAM_WORKGROUP))
        .max(HISTOGRAM_MIN_KEYS_PER_INVOCATION)
        .min(u64::from(keys_per_invocation.max(1)));
    capacity
        .div_ceil(u64::from(STREAM_WORKGROUP) * per_invocation)
        .clamp(1, u64::from(max_groups_x.min(65535))) as u32
}

/// Workgroups the histogram of a smaller look-back sort spreads its keys over, so that a
/// short sort's histogram runs on many multiprocessors rather than a few: at a fixed 128
/// keys an invocation, 2^16 keys would fill 2 workgroups and the histogram would take a
/// quarter of the sort (H200, phase timestamps: 23-27 us of 88-110). With 128 workgroups (2
/// keys an invocation at 2^14-2^16, 8 at 2^18, 32 at 2^20), u32 keys and pairs take 12-17%
/// less time on an H200 at 2^14-2^18, 7-8% less at 2^20 and the same at 2^22 (BENCHMARKS.md,
/// "In the application's own Vulkan device").
pub(crate) const HISTOGRAM_SPREAD_GROUPS: u64 = 128;
/// The fewest keys a histogram invocation counts: one key each is no faster than two at
/// 2^14-2^16 keys on an H200, and two halves the invocations.
pub(crate) const HISTOGRAM_MIN_KEYS_PER_INVOCATION: u64 = 2;

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
            let below = scan_in_pass_below(v, true);
            assert_eq!(below == 0, v.pairs, "{v:?}");
            assert!(below <= SCAN_IN_PASS_BELOW);
            assert_eq!(scan_in_pass_below(v, false), 0, "{v:?}");
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
        // shared memory an H200 gives them (48 KiB in all).
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
        // Small sorts spread over up to 128 workgroups, two keys an invocation.
        assert_eq!(histogram_groups(512, 65535, 32), 1);
        assert_eq!(histogram_groups(8192, 65535, 32), 16);
        assert_eq!(histogram_groups(8193, 65535, 32), 17);
        assert_eq!(histogram_groups(1 << 16, 65535, 128), 128);
        assert_eq!(histogram_groups(1 << 20, 65535, 128), 128);
        assert_eq!(histogram_groups(1 << 22, 65535, 128), 128);
        assert_eq!(histogram_groups(1 << 24, 65535, 128), 512);
        assert_eq!(histogram_groups(1 << 28, 65535, 32), (1 << 28) / 8192);
        assert_eq!(histogram_groups(1 << 30, 65535, 32), 65535);
        assert_eq!(histogram_groups(1 << 40, u32::MAX, 32), 65535);
        assert_eq!(histogram_groups(1 << 28, 65535, 128), (1 << 28) / 32768);
        assert_eq!(histogram_groups(5, 65535, 0), 1);
    }

    /// The shaders and this file describe one layout: read the defines from the GLSL.
    #[test]
    fn layout_matches_the_shaders() {
        let glsl = include_str!("../../../shaders/radix_common.glsl");
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
        assert_eq!(define("ST_TICKET"), state::TICKET);
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
        const { assert!(state::PARTITION + 2 <= state::TICKET) };
        const { assert!(state::TICKET < state::KEYS_OR) };
        const { assert!(state::KEYS_OR + 2 <= state::KEYS_NAND) };
        const { assert!(state::KEYS_NAND + 2 <= state::BUCKETS_GIVEN) };
        const { assert!(state::BUCKETS_GIVEN < state::TILE_COUNTER) };
        assert_eq!(indirect::COPY + 3, indirect::UPSWEEP);
        assert_eq!(indirect::UPSWEEP + MAX_PASSES * 3, indirect::SCAN);
        assert_eq!(indirect::SCAN + MAX_PASSES * 3, indirect::WORDS);
    }
}
