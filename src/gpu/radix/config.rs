//! [`RadixConfig`]: the radix sorter's tuning as a value, `Default` = what ships.
//!
//! Every value gives the same sorted, stable result; out-of-range values are clamped to
//! what the shaders take, and a tile that does not fit the device is an `Err` when the
//! pipelines are built. Tests build sorters with other values to run the paths the
//! shipped tuning takes only on other devices or sizes (the look-back's recount, the
//! four-word ballot match, reduce-then-scan with few partitions); the benchmarks vary them
//! to reproduce BENCHMARKS.md's "GPU radix tiles".

use super::plan;
use crate::gpu::transfer::TransferConfig;

/// Which scheme the passes of a whole sort find their offsets by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PassScheme {
    /// By the measured crossovers: decoupled look-back for small sorts, reduce-then-scan
    /// from a size that depends on the key width and values (64-bit pairs never).
    #[default]
    Measured,
    /// Decoupled look-back (Onesweep) at every size; on a software driver (lavapipe) only up
    /// to 64 tiles, whose loop limit would cut longer walks short (reduce-then-scan above).
    LookBack,
    /// Reduce-then-scan at every size, for every variant.
    ReduceThenScan,
}

/// The radix sorter's tuning. `Default` is the shipped tuning; every field gives the same
/// result (see the module description).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RadixConfig {
    /// Which scheme the passes take.
    pub scheme: PassScheme,
    /// Invocations per scatter workgroup (`None`: the preferred size per variant and
    /// scheme, halved until it fits the device).
    pub workgroup: Option<u32>,
    /// Keys per scatter invocation (`None`: the preferred count per variant and scheme,
    /// trimmed until it fits the device).
    pub keys_per_invocation: Option<u32>,
    /// Most partitions of a reduce-then-scan pass, 1 to 1024.
    pub partitions: u32,
    /// Whether reduce-then-scan passes of keys alone below 2^26 keys scan the partitions'
    /// counts in the first workgroups of their scatter (`true`, shipped) rather than in a
    /// dispatch of their own (pairs always take the dispatch).
    pub scan_in_pass: bool,
    /// Reads of a missing look-back word (or, by reduce-then-scan, of a partition's offset)
    /// before the workgroup computes it itself; `None`: the device's default. Capped at that
    /// default (a software driver's loop limit makes longer spins unsafe); 0 makes every tile
    /// that waits take the fallback.
    pub spin_limit: Option<u32>,
    /// Use the general four-word subgroup match (needed with subgroups of more than 32
    /// lanes) whatever the device's subgroup size.
    pub four_word_match: bool,
    /// Earlier tiles whose look-back words one look-back step reads at once, 1 to 16.
    pub lookahead: u32,
    /// Invocations that walk one digit's look-back together (rounded down to a power of
    /// two, at most the smallest subgroup).
    pub lookback_lanes: u32,
    /// Keys each histogram invocation counts, at least 1.
    pub histogram_keys_per_invocation: u32,
    /// Keys each histogram or upsweep invocation loads at once, 1 to 32 (`None`: per
    /// variant).
    pub histogram_batch: Option<u32>,
    /// Look-back sorts of 32-bit keys (alone or with values) of fewer keys than this take a
    /// small tile (512 invocations of 2 keys where the device takes it), so that more
    /// workgroups share the work; 0: never; default 2^16. Not used where `workgroup` or
    /// `keys_per_invocation` is set.
    pub small_below: u64,
    /// Sorts of at most this many 32-bit keys (alone or with values; a count known when
    /// recording, or buffers this small) run in one workgroup, in one dispatch, instead of the
    /// passes' chain of dispatches; 0: never. Capped at what the device's shared memory
    /// holds (8 bytes a key) and rounded down to a power of two. `None`: 1024 on a GPU, 0
    /// on a software driver (lavapipe ran a 1024-invocation workgroup's barriers 5x slower
    /// than the passes at 256 keys).
    pub one_workgroup_max: Option<u32>,
    /// Sorts of at most this many 32-bit keys (alone or with values) that do not run in one
    /// workgroup take the short path: two dispatches instead of the histogram and a pass per
    /// digit: a split of tiles into 256 buckets, then one workgroup per bucket that sorts it
    /// in shared memory; 0: never. The split draws a sample of the keys (alike in every
    /// workgroup) and buckets by the top digit below the end bit where the sample finds it
    /// spread, else by 255 splitters, the sample's quantiles, a value frequent enough to fill
    /// several buckets spreading over them by position (stable); so keys of one top digit
    /// (depths of one narrow float range) or a few values fill no bucket past its shared
    /// memory. A bucket that still does (a sample that missed: unlikely at any distribution)
    /// is sorted right, slowly, by its workgroup alone. Capped where the split's tiles
    /// outnumber what a bucket's workgroup reads, and where the buckets would average more
    /// than a quarter of their shared memory (2^17 keys on an H200). `None`: [`SHORT_MAX`] on
    /// a GPU (2^16 pairs 0.028 ms against the chain's 0.068 on an H200), 0 on a software
    /// driver (lavapipe took 10x the chain's time there); capped at 2^14 on a software driver.
    pub short_max: Option<u32>,
    /// Look-back sorts dispatch each pass directly, a workgroup per tile of the count (of
    /// the capacity where the GPU holds the count: those past it leave at once), rather than
    /// by the plan's indirect sizes; a step the plan leaves out finds no pass in its flags and
    /// its workgroups leave at once. Default `true`: on an H200 each pass after the first
    /// took 2.3-2.8 us less (pairs 2^20: 0.090 against 0.098 ms; BENCHMARKS.md, "In the
    /// application's own Vulkan device").
    pub direct_passes: bool,
    /// How host slices travel (the `SortBackend` path).
    pub transfer: TransferConfig,
}

/// [`RadixConfig::one_workgroup_max`]'s default: on an H200 the one-workgroup sort takes
/// 0.017 ms at 2^10 keys and 0.052 at 2^12, the short path 0.019 at 2^14 (BENCHMARKS.md, "In
/// the application's own Vulkan device").
pub(crate) const ONE_WORKGROUP_MAX: u32 = 1024;

/// [`RadixConfig::short_max`](RadixConfig#structfield.short_max)'s default on a GPU: on an
/// H200 the short path sorts 2^16 random pairs in 0.028 ms (the chain 0.068) and 2^16 keys of
/// one top digit in 0.047, but 2^17 random pairs in 0.080, where the sampled splitters take
/// over, more than the chain's 0.075 at 2^18 (BENCHMARKS.md, "In the application's own
/// Vulkan device", short path).
pub const SHORT_MAX: u32 = 1 << 16;

/// The small sorts' tile, (invocations, keys per invocation): at 2^13-2^15 u32 keys and
/// pairs on an H200 it took 13-20% less time than the shipped 512 x 11 tile, at 2^16 about
/// as much, and from 2^18 on more (BENCHMARKS.md, "GPU radix sort", small sorts).
pub(crate) const SMALL_TILE: (u32, u32) = (512, 2);

/// [`RadixConfig::small_below`]'s default: the small tile below 2^16 keys (see
/// [`SMALL_TILE`]).
pub(crate) const SMALL_BELOW: u64 = 1 << 16;

impl Default for RadixConfig {
    fn default() -> Self {
        RadixConfig {
            scheme: PassScheme::Measured,
            workgroup: None,
            keys_per_invocation: None,
            partitions: plan::PARTITIONS,
            scan_in_pass: true,
            spin_limit: None,
            four_word_match: false,
            lookahead: plan::LOOKAHEAD,
            lookback_lanes: plan::LOOKBACK_LANES,
            histogram_keys_per_invocation: plan::HISTOGRAM_KEYS_PER_INVOCATION,
            histogram_batch: None,
            small_below: SMALL_BELOW,
            one_workgroup_max: None,
            short_max: None,
            direct_passes: true,
            transfer: TransferConfig::default(),
        }
    }
}

impl RadixConfig {
    /// The one-workgroup sort's most keys on a device (`software`: a CPU driver).
    pub(crate) fn one_workgroup_max(&self, software: bool) -> u32 {
        self.one_workgroup_max
            .unwrap_or(if software { 0 } else { ONE_WORKGROUP_MAX })
    }

    /// The short path's most keys on a device (`software`: a CPU driver; 0: the path is off).
    pub(crate) fn short_max(&self, software: bool) -> u32 {
        self.short_max
            .unwrap_or(if software { 0 } else { SHORT_MAX })
    }

    /// Below how many keys sorts of `variant` take the small tile (0: never).
    pub(crate) fn small_below(&self, variant: plan::Variant) -> u64 {
        if variant.wide || self.workgroup.is_some() || self.keys_per_invocation.is_some() {
            0
        } else {
            self.small_below
        }
    }

    /// From how many keys whole sorts of `variant` run by reduce-then-scan (`None`: never).
    pub(crate) fn reduce_then_scan_from(&self, variant: plan::Variant) -> Option<u64> {
        match self.scheme {
            PassScheme::Measured => plan::reduce_then_scan_from(variant),
            PassScheme::LookBack => None,
            PassScheme::ReduceThenScan => Some(0),
        }
    }

    /// The partitions, within what the state holds.
    pub(crate) fn partitions(&self) -> u32 {
        self.partitions.clamp(1, plan::MAX_PARTITIONS)
    }

    /// The spin limit on a device whose default is `default`.
    pub(crate) fn spin_limit(&self, default: u32) -> u32 {
        self.spin_limit.map_or(default, |s| s.min(default))
    }

    /// Ballot words of the scatter's match for subgroups of up to `max_subgroup` lanes.
    pub(crate) fn ballot_words(&self, max_subgroup: u32) -> u32 {
        if self.four_word_match {
            4
        } else {
            plan::ballot_words(max_subgroup)
        }
    }

    /// Look-back lanes per digit: a power of two, so a digit's lanes never straddle two
    /// subgroups (the shader caps it at the smallest subgroup).
    pub(crate) fn lookback_lanes(&self) -> u32 {
        1 << self.lookback_lanes.max(1).ilog2()
    }

    pub(crate) fn lookahead(&self) -> u32 {
        self.lookahead.clamp(1, 16)
    }

    pub(crate) fn histogram_keys_per_invocation(&self) -> u32 {
        self.histogram_keys_per_invocation.max(1)
    }

    /// The histogram's batch (`for_reduce`: the reduce-then-scan histogram and upsweeps).
    pub(crate) fn histogram_batch(&self, variant: plan::Variant, for_reduce: bool) -> u32 {
        match self.histogram_batch {
            Some(b) => b.clamp(1, 32),
            None if for_reduce => plan::reduce_then_scan_batch(variant),
            None => plan::HISTOGRAM_BATCH,
        }
    }
}
