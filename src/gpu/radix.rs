//! `vulkan-radix`: LSD radix sort with 8-bit digits on a Vulkan device: one upfront
//! histogram of every digit, then one pass per digit whose offsets across tiles come either
//! from decoupled look-back (Onesweep) or from reduce-then-scan.
//!
//! Per sort, all recorded into one command buffer:
//!
//! 1. clear the state buffer and set the key count (from the host, or copied from a GPU
//!    buffer of the caller's; by reduce-then-scan with the host's count, `radix_clear`);
//! 2. `radix_histogram`: counts the digits of every pass at once (by reduce-then-scan only
//!    pass 0's, each upsweep counting its own), and ORs the keys and their complements;
//! 3. `radix_plan` (one workgroup): which passes run (a pass whose digit is the same for
//!    every key is skipped) and, for the look-back, bucket offsets. The decision is made on
//!    the GPU, so no read-back stalls the queue and the count may come from a GPU buffer. The
//!    passes that run become steps, alternately A->B and B->A, each an indirect dispatch
//!    sized by the plan, which also tells each step its digit;
//! 4. per step, by one of two schemes (the first step applies the key map on read, the
//!    last undoes it on write):
//!    - decoupled look-back: `radix_scatter` ranks a tile, finds the keys of earlier tiles
//!      with the same digits by look-back, and scatters;
//!    - reduce-then-scan (large sorts of every variant but 64-bit pairs, from
//!      `radix_plan::reduce_then_scan_from`, where it measured faster; with tiles of its
//!      own, sized to the shared memory that lets several workgroups share a multiprocessor,
//!      64-bit keys passing through it one 32-bit half at a time): `radix_upsweep` counts
//!      each tile's digits within its partition (for pass 0 the histogram did), a scan
//!      turns the partitions' counts into offsets (with the bucket offsets), and
//!      `radix_scatter` ranks and scatters each tile without waiting for any other tile.
//!      The scan runs in the scatter's first workgroups below
//!      `radix_plan::SCAN_IN_PASS_BELOW` keys (its tiles wait for their offsets, with a
//!      bounded spin and a fallback that sums the counts itself), as `radix_scan` before
//!      the scatter above and for pairs (`radix_plan::scan_in_pass_below`);
//! 5. `radix_copy`: brings the result back to the caller's buffer when an odd number of
//!    passes ran.
//!
//! The look-back spins a bounded number of times and then recounts the missing tile from
//! the keys (Vulkan promises no forward progress between workgroups); see
//! `shaders/radix_scatter.comp`. Reduce-then-scan has no tile wait for another. The
//! sort is stable, so pairs keep equal keys' values in input order.
//!
//! Host slices (`SortBackend`): small ones go up, are sorted and come down in one command
//! buffer; from two stream pieces on the transfers stream piece by piece with the host's
//! copies on all cores ([`HostStream`](super::context::HostStream)). Keys alone may take
//! the grouped path instead (`SORTNET_GPU_KEYS_OVERLAP=1`; by default only from
//! `GROUPED_MIN_BYTES`, more than one sort takes, as the whole sort now measures as fast or
//! faster), whose sort overlaps the transfers: a pass by the top digit over each batch of
//! the upload as it lands and a gather cut the keys into `KEY_GROUPS` groups, then each
//! group is sorted while the one before it travels back (`RadixSorter::sort_keys_grouped`).
//!
//! Data already on the GPU: [`RadixSorter::record`] records the sort into the caller's
//! command buffer for caller-owned buffers, with scratch from [`RadixSorter::new_scratch`]
//! (its size from [`RadixSorter::scratch_bytes`]).

use std::sync::{Arc, Mutex, OnceLock};

use vulkano::buffer::{Buffer, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::{
    AutoCommandBufferBuilder, CopyBufferInfo, DispatchIndirectCommand, PrimaryAutoCommandBuffer,
};
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::device::physical::SubgroupFeatures;
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter};
use vulkano::pipeline::{ComputePipeline, Pipeline, PipelineBindPoint};
use vulkano::shader::ShaderStages;

use super::context::{
    context, gpu_err, Counts, DownloadGroup, GpuContext, Memory, Recorder, RoundTripTrace,
};
use super::copy::{record_gather, Run};
use super::host_buffer::{self, HostSide};
use super::radix_plan::{self as plan, DeviceLimits, TileShape, Variant};
use crate::backend::{Device, SortBackend, Workload};
use crate::error::{Error, Result};
use crate::keys::key::{KeyMap, KeyWidth};

const NAME: &str = "vulkan-radix";

/// SPIR-V of one variant's pipelines.
struct Spirv {
    histogram: &'static [u8],
    plan: &'static [u8],
    scatter: &'static [u8],
    copy: &'static [u8],
    upsweep: &'static [u8],
}

fn spirv(variant: Variant) -> Spirv {
    macro_rules! spv {
        ($name:literal) => {
            include_bytes!(concat!("../../shaders/spv/", $name, ".spv")).as_slice()
        };
    }
    let (histogram, plan, upsweep) = if variant.wide {
        (
            spv!("radix_histogram_k64"),
            spv!("radix_plan_64"),
            spv!("radix_upsweep_k64"),
        )
    } else {
        (
            spv!("radix_histogram_k32"),
            spv!("radix_plan_32"),
            spv!("radix_upsweep_k32"),
        )
    };
    let (scatter, copy) = match variant.suffix() {
        "k32" => (spv!("radix_scatter_k32"), spv!("radix_copy_k32")),
        "k64" => (spv!("radix_scatter_k64"), spv!("radix_copy_k64")),
        "p32" => (spv!("radix_scatter_p32"), spv!("radix_copy_p32")),
        _ => (spv!("radix_scatter_p64"), spv!("radix_copy_p64")),
    };
    Spirv {
        histogram,
        plan,
        scatter,
        copy,
        upsweep,
    }
}

/// The radix scan shader is the same for every variant.
const SCAN_SPIRV: &[u8] = include_bytes!("../../shaders/spv/radix_scan.spv");

/// Reduce-then-scan's clear of the state is the same for every variant.
const CLEAR_SPIRV: &[u8] = include_bytes!("../../shaders/spv/radix_clear.spv");

/// The pipelines of one variant, built on first use.
struct Pipelines {
    /// The look-back scatter's tile.
    shape: TileShape,
    histogram: Arc<ComputePipeline>,
    plan: Arc<ComputePipeline>,
    /// The scatter with the look-back (also the grouped host path's piece scatter).
    scatter: Arc<ComputePipeline>,
    copy: Arc<ComputePipeline>,
    /// Present when whole sorts of enough keys run their passes by reduce-then-scan.
    reduce: Option<ReduceThenScan>,
}

impl Pipelines {
    /// The tile of sorts too small for reduce-then-scan (or of every sort where it always
    /// runs).
    fn small_shape(&self) -> TileShape {
        match &self.reduce {
            Some(r) if r.from == 0 => r.shape,
            _ => self.shape,
        }
    }

    /// The tiles of both schemes.
    fn shapes(&self) -> impl Iterator<Item = TileShape> + '_ {
        std::iter::once(self.shape).chain(self.reduce.as_ref().map(|r| r.shape))
    }

    /// The most keys a sort takes, by either scheme.
    fn max_len(&self, variant: Variant, limits: &DeviceLimits) -> u64 {
        self.shapes()
            .map(|s| plan::max_len(variant, s, limits))
            .min()
            .unwrap_or(0)
    }

    /// Scratch for `capacity` keys, by either scheme (the state words differ with the tile).
    fn scratch_sizes(&self, variant: Variant, capacity: u64) -> plan::ScratchSizes {
        self.shapes()
            .map(|s| plan::scratch_sizes(variant, s, capacity))
            .max_by_key(|sizes| sizes.state_bytes)
            .unwrap_or_else(|| plan::scratch_sizes(variant, self.shape, capacity))
    }
}

/// Passes by reduce-then-scan: count each partition's digits and each tile's offset in its
/// partition, scan the partitions' counts into offsets, scatter each tile without waiting
/// for another (no look-back). For sorts of at least `from` keys.
struct ReduceThenScan {
    from: u64,
    /// Its own tile (64-bit keys measured faster with a smaller one).
    shape: TileShape,
    partitions: u32,
    /// Clears the state's header and sets a count the host knows (`None`: by transfer
    /// commands, `SORTNET_RADIX_CLEAR_SHADER=0`).
    clear: Option<Arc<ComputePipeline>>,
    /// The histogram that also leaves pass 0's tile offsets.
    histogram: Arc<ComputePipeline>,
    upsweep: Arc<ComputePipeline>,
    /// Sorts of fewer keys than this scan the partitions' counts in the scatter's first
    /// workgroups (`in_pass`), the others by a dispatch of their own (`separate`).
    in_pass_below: u64,
    in_pass: Option<ScanScheme>,
    separate: Option<ScanScheme>,
}

/// The pipelines that depend on where reduce-then-scan's scan runs (the `SCAN_IN_PASS`
/// specialization constant of the plan and the scatter).
struct ScanScheme {
    plan: Arc<ComputePipeline>,
    scatter: Arc<ComputePipeline>,
    /// The scan's own dispatch (`None`: in the pass).
    scan: Option<Arc<ComputePipeline>>,
}

/// The element count of a recorded sort.
#[derive(Debug, Clone)]
pub enum Count {
    /// Known when recording.
    Known(u32),
    /// Read by the GPU from this buffer when the sort runs (clamped to the buffers'
    /// capacity), e.g. written by an earlier compute pass of the caller's.
    Buffer(Subbuffer<u32>),
}

/// What to sort: caller-owned device buffers (storage + transfer usage).
#[derive(Debug, Clone)]
pub struct SortJob {
    /// The keys as 32-bit words: one per key for 32-bit keys, two (low word first) for 64-bit
    /// keys. Sorted in place.
    pub keys: Subbuffer<[u32]>,
    /// Values that follow their keys, as many as there are keys; `None` to sort keys alone.
    pub values: Option<Subbuffer<[u32]>>,
    /// Key width.
    pub width: KeyWidth,
    /// How the key bits map to unsigned order (`KeyMap::Float` for `f32`/`f64`, ...).
    pub map: KeyMap,
    /// How many keys, from the start of the buffers, to sort.
    pub count: Count,
}

impl SortJob {
    fn variant(&self) -> Variant {
        Variant {
            wide: self.width == KeyWidth::W64,
            pairs: self.values.is_some(),
        }
    }

    /// Keys the buffers hold.
    fn capacity(&self) -> u64 {
        let keys = self.keys.len() / u64::from(self.variant().key_words());
        match &self.values {
            Some(v) => keys.min(v.len()),
            None => keys,
        }
    }
}

/// Scratch memory for sorts of up to `capacity` keys of one variant. Reusable across sorts
/// that do not run at the same time.
pub struct RadixScratch {
    variant: Variant,
    capacity: u64,
    keys: Subbuffer<[u32]>,
    values: Option<Subbuffer<[u32]>>,
    state: Subbuffer<[u32]>,
    indirect: Subbuffer<[DispatchIndirectCommand]>,
}

impl RadixScratch {
    /// The most keys this scratch serves.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The state buffer (layout in `radix_plan::state`), for diagnostics such as the
    /// look-back statistics of `SORTNET_RADIX_LB_STATS=1`.
    #[doc(hidden)]
    pub fn state(&self) -> &Subbuffer<[u32]> {
        &self.state
    }
}

/// Which parts of a sort [`RadixSorter::record_phases`] records: the grouped host path
/// records the histogram, reads it back, then records one pass with bucket offsets of its
/// own.
struct Phases<'a> {
    /// Clear the state and set the count.
    clear: bool,
    /// Count every digit.
    histogram: bool,
    /// The passes the plan may run (bit p: pass p); zero records no plan, pass or copy.
    pass_mask: u32,
    /// Bucket offsets for the lowest pass of `pass_mask`, written over the plan's.
    buckets: Option<&'a [u32]>,
    /// Copy the result back into the job's keys when an odd number of passes ran.
    copy_back: bool,
}

impl Phases<'_> {
    /// A whole sort.
    const WHOLE: Phases<'static> = Phases {
        clear: true,
        histogram: true,
        pass_mask: (1 << plan::MAX_PASSES) - 1,
        buckets: None,
        copy_back: true,
    };
}

/// The radix sorter on the shared context.
pub struct RadixSorter {
    ctx: Arc<GpuContext>,
    limits: DeviceLimits,
    pipelines: [Mutex<Option<Arc<Pipelines>>>; 4],
}

impl std::fmt::Debug for RadixSorter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RadixSorter")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// The device limits the tile shape is chosen from, or `None` when the device lacks the
/// subgroup operations the shaders use in compute shaders.
fn device_limits(ctx: &GpuContext) -> Option<DeviceLimits> {
    let props = ctx.device().physical_device().properties();
    let needed = SubgroupFeatures::BASIC
        | SubgroupFeatures::BALLOT
        | SubgroupFeatures::ARITHMETIC
        | SubgroupFeatures::SHUFFLE;
    if !props.subgroup_supported_operations?.contains(needed)
        || !props
            .subgroup_supported_stages?
            .contains(ShaderStages::COMPUTE)
    {
        return None;
    }
    let size = props.subgroup_size?;
    let l = ctx.limits();
    Some(DeviceLimits {
        min_subgroup: props.min_subgroup_size.unwrap_or(size).min(size),
        max_subgroup: props.max_subgroup_size.unwrap_or(size).max(size),
        shared_bytes: l.max_shared_memory,
        max_invocations: l.max_workgroup_invocations.min(l.max_workgroup_size_x),
        max_groups_x: l.max_workgroup_count[0],
        max_storage_range: l.max_buffer_bytes(None),
    })
}

/// Knobs for benchmarks and tests, read when a variant's pipelines are built:
/// `SORTNET_RADIX_KPI_<k32|k64|p32|p64>` and `SORTNET_RADIX_WG` override keys per invocation
/// and invocations per workgroup; `SORTNET_RADIX_SPIN_LIMIT=0` makes every look-back take
/// the recount fallback and `SORTNET_RADIX_BALLOT_WORDS=4` the general four-word match
/// (both in tests/gpu_radix_fallback.rs, so lavapipe runs those paths too);
/// `SORTNET_RADIX_LOOKBACK_FIRST`, `SORTNET_RADIX_LOOKAHEAD` and `SORTNET_RADIX_LB_LOAD` (0:
/// look-back words read with `atomicOr(w, 0)` instead of relaxed atomic loads) pick the
/// look-back variant, `SORTNET_RADIX_LB_STORE=0` publishes look-back words with
/// `atomicExchange` instead of relaxed atomic stores, `SORTNET_RADIX_HIST_BATCH` and
/// `SORTNET_RADIX_HIST_KPI` the keys each histogram invocation loads at once and counts in
/// all (see the shaders and `radix_plan::histogram_groups`; the batch also for the upsweeps,
/// `radix_plan::reduce_then_scan_batch`), `SORTNET_RADIX_LB_LANES` the
/// invocations that walk one digit's look-back together (rounded down to a power of two),
/// `SORTNET_RADIX_TILE_COUNTER=1` hands tiles out in the order workgroups start instead of
/// by workgroup id, `SORTNET_RADIX_LB_STATS=1` counts the look-back's steps into the
/// state buffer (`radix_plan::state::LB_STATS`, printed by `examples/gpu_radix_bench.rs`),
/// `SORTNET_RADIX_REDUCE_SCAN=1` (`=0`) runs every whole sort's passes by reduce-then-scan
/// (by look-back) whatever its size and key width, `SORTNET_RADIX_CLEAR_SHADER=0` clears its
/// state by transfer commands instead of a dispatch, `SORTNET_RADIX_PARTITIONS` caps the
/// partitions of a reduce-then-scan pass (`radix_plan::PARTITIONS`, at most
/// `radix_plan::MAX_PARTITIONS`), and `SORTNET_RADIX_SCAN_IN_PASS=1` (`=0`) runs every
/// reduce-then-scan pass's scan in the first workgroups of its scatter (as a dispatch of its
/// own) whatever the sort's size and variant (`radix_plan::scan_in_pass_below`).
/// All give the same result, except the timing-only knobs `SORTNET_RADIX_NO_WAIT=1`, which
/// skips the look-back's reads, and `SORTNET_RADIX_NO_RANK=1`, which skips the ranking
/// (wrong output, so the writes go elsewhere than in a real sort: NO_WAIT sends every tile's
/// keys of a digit to the same places, which made it overstate what the look-back costs for
/// 64-bit keys; BENCHMARKS.md, run 25).
fn env_u32(name: &str) -> Option<u32> {
    std::env::var(name).ok()?.parse().ok()
}

impl RadixSorter {
    /// The sorter on the shared context; `None` without a usable Vulkan device.
    pub fn get() -> Option<&'static RadixSorter> {
        static SORTER: OnceLock<Option<RadixSorter>> = OnceLock::new();
        SORTER
            .get_or_init(|| {
                let ctx = context()?;
                let limits = device_limits(&ctx)?;
                Some(RadixSorter {
                    ctx,
                    limits,
                    pipelines: Default::default(),
                })
            })
            .as_ref()
    }

    /// The context it runs on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    fn pipelines(&self, variant: Variant) -> Result<Arc<Pipelines>> {
        let mut slot = self.pipelines[variant.index()]
            .lock()
            .map_err(|_| Error::Gpu("radix pipeline lock poisoned".into()))?;
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let kpi = env_u32(&format!("SORTNET_RADIX_KPI_{}", variant.suffix()));
        let choose = |scheme| {
            plan::choose_shape(
                variant,
                scheme,
                &self.limits,
                kpi,
                env_u32("SORTNET_RADIX_WG"),
            )
        };
        let shape = choose(plan::Scheme::LookBack).ok_or_else(|| {
            Error::Gpu(format!(
                "no radix tile fits this device's {} bytes of shared memory",
                self.limits.shared_bytes
            ))
        })?;
        let reduce_shape = choose(plan::Scheme::ReduceThenScan).unwrap_or(shape);
        let code = spirv(variant);
        let lanes = env_u32("SORTNET_RADIX_LB_LANES").unwrap_or(plan::LOOKBACK_LANES);
        let stream_wg = plan::STREAM_WORKGROUP.min(self.limits.max_invocations);
        let reduce_from = match env_u32("SORTNET_RADIX_REDUCE_SCAN") {
            Some(1) => Some(0),
            Some(_) => None,
            None => plan::reduce_then_scan_from(variant),
        };
        // At most MAX_PARTITIONS: the state holds that many partitions' offsets.
        let partitions = env_u32("SORTNET_RADIX_PARTITIONS")
            .map_or(plan::PARTITIONS, |p| p.clamp(1, plan::MAX_PARTITIONS));
        let in_pass_below = match env_u32("SORTNET_RADIX_SCAN_IN_PASS") {
            Some(0) => 0,
            Some(_) => u64::MAX,
            None => plan::scan_in_pass_below(variant),
        };
        let scatter_constants = |shape: TileShape, reduce: u32, scan_in_pass: u32| {
            vec![
                (0, shape.workgroup),
                (1, shape.keys_per_invocation),
                (2, shape.max_subgroups),
                (
                    3,
                    env_u32("SORTNET_RADIX_SPIN_LIMIT").unwrap_or(if self.ctx.is_software() {
                        plan::SOFTWARE_SPIN_LIMIT
                    } else {
                        plan::SPIN_LIMIT
                    }),
                ),
                (
                    4,
                    env_u32("SORTNET_RADIX_BALLOT_WORDS")
                        .unwrap_or_else(|| plan::ballot_words(self.limits.max_subgroup)),
                ),
                (8, env_u32("SORTNET_RADIX_LOOKBACK_FIRST").unwrap_or(0)),
                (
                    10,
                    env_u32("SORTNET_RADIX_LOOKAHEAD").unwrap_or(plan::LOOKAHEAD),
                ),
                (11, env_u32("SORTNET_RADIX_LB_LOAD").unwrap_or(1)),
                (13, env_u32("SORTNET_RADIX_LB_STORE").unwrap_or(1)),
                (14, env_u32("SORTNET_RADIX_NO_WAIT").unwrap_or(0)),
                (15, env_u32("SORTNET_RADIX_NO_RANK").unwrap_or(0)),
                (17, env_u32("SORTNET_RADIX_LB_STATS").unwrap_or(0)),
                // A power of two, so a digit's lanes never straddle two subgroups.
                (18, 1 << lanes.max(1).ilog2()),
                (20, env_u32("SORTNET_RADIX_TILE_COUNTER").unwrap_or(0)),
                (21, reduce),
                (23, scan_in_pass),
                (24, partitions),
                (
                    22,
                    u32::from(
                        reduce == 1 && plan::half_keys(variant, plan::Scheme::ReduceThenScan),
                    ),
                ),
            ]
        };
        let plan_subgroups = plan::PLAN_WORKGROUP / self.limits.min_subgroup.max(1);
        let hist_batch = env_u32("SORTNET_RADIX_HIST_BATCH").unwrap_or(plan::HISTOGRAM_BATCH);
        let reduce_batch = env_u32("SORTNET_RADIX_HIST_BATCH")
            .unwrap_or_else(|| plan::reduce_then_scan_batch(variant));
        let scan_subgroups = (stream_wg / self.limits.min_subgroup.max(1)).max(1);
        let scan_scheme = |in_pass: bool| -> Result<ScanScheme> {
            let flag = u32::from(in_pass);
            Ok(ScanScheme {
                plan: self.ctx.compute_pipeline(
                    code.plan,
                    &[
                        (0, plan_subgroups),
                        (1, stream_wg),
                        (2, 1),
                        (3, partitions),
                        (4, flag),
                    ],
                )?,
                scatter: self
                    .ctx
                    .compute_pipeline(code.scatter, &scatter_constants(reduce_shape, 1, flag))?,
                scan: (!in_pass)
                    .then(|| {
                        self.ctx.compute_pipeline(
                            SCAN_SPIRV,
                            &[(0, stream_wg), (1, scan_subgroups), (2, partitions)],
                        )
                    })
                    .transpose()?,
            })
        };
        let built = Arc::new(Pipelines {
            shape,
            histogram: self
                .ctx
                .compute_pipeline(code.histogram, &[(0, stream_wg), (1, hist_batch)])?,
            plan: self
                .ctx
                .compute_pipeline(code.plan, &[(0, plan_subgroups), (1, stream_wg)])?,
            scatter: self
                .ctx
                .compute_pipeline(code.scatter, &scatter_constants(shape, 0, 0))?,
            copy: self.ctx.compute_pipeline(code.copy, &[(0, stream_wg)])?,
            reduce: if let Some(from) = reduce_from {
                Some(ReduceThenScan {
                    from,
                    shape: reduce_shape,
                    partitions,
                    clear: (env_u32("SORTNET_RADIX_CLEAR_SHADER") != Some(0))
                        .then(|| self.ctx.compute_pipeline(CLEAR_SPIRV, &[(0, stream_wg)]))
                        .transpose()?,
                    histogram: self.ctx.compute_pipeline(
                        code.histogram,
                        &[(0, stream_wg), (1, reduce_batch), (2, 1), (3, partitions)],
                    )?,
                    upsweep: self
                        .ctx
                        .compute_pipeline(code.upsweep, &[(0, stream_wg), (1, reduce_batch)])?,
                    in_pass_below,
                    in_pass: (in_pass_below > 0).then(|| scan_scheme(true)).transpose()?,
                    separate: (in_pass_below < u64::MAX)
                        .then(|| scan_scheme(false))
                        .transpose()?,
                })
            } else {
                None
            },
        });
        *slot = Some(built.clone());
        Ok(built)
    }

    fn variant(width: KeyWidth, pairs: bool) -> Variant {
        Variant {
            wide: width == KeyWidth::W64,
            pairs,
        }
    }

    /// The tile shape of sorts of this key width (with or without values) too small for
    /// reduce-then-scan (see [`reduces_then_scans`](Self::reduces_then_scans)), whose tile
    /// may differ.
    pub fn tile_shape(&self, width: KeyWidth, pairs: bool) -> Result<TileShape> {
        Ok(self.pipelines(Self::variant(width, pairs))?.small_shape())
    }

    /// Whether a whole sort of `n` keys of this width (with or without values) runs its
    /// passes by reduce-then-scan rather than by decoupled look-back.
    pub fn reduces_then_scans(&self, width: KeyWidth, pairs: bool, n: u64) -> Result<bool> {
        let p = self.pipelines(Self::variant(width, pairs))?;
        Ok(p.reduce.as_ref().is_some_and(|r| n >= r.from))
    }

    /// The most keys one sort takes on this device.
    pub fn max_len(&self, width: KeyWidth, pairs: bool) -> Result<u64> {
        let variant = Self::variant(width, pairs);
        Ok(self.pipelines(variant)?.max_len(variant, &self.limits))
    }

    /// Bytes of scratch device memory a sort of up to `capacity` keys needs.
    pub fn scratch_bytes(&self, width: KeyWidth, pairs: bool, capacity: u64) -> Result<u64> {
        let variant = Self::variant(width, pairs);
        Ok(self
            .pipelines(variant)?
            .scratch_sizes(variant, capacity)
            .total())
    }

    /// Allocates scratch for sorts of up to `capacity` keys (device-local memory).
    pub fn new_scratch(&self, width: KeyWidth, pairs: bool, capacity: u64) -> Result<RadixScratch> {
        let variant = Self::variant(width, pairs);
        let p = self.pipelines(variant)?;
        self.check_len(&p, variant, capacity)?;
        let sizes = p.scratch_sizes(variant, capacity);
        let alloc = |bytes: u64| -> Result<Subbuffer<[u32]>> {
            Buffer::new_slice::<u32>(
                self.ctx.memory_allocator().clone(),
                BufferCreateInfo {
                    usage: BufferUsage::STORAGE_BUFFER
                        | BufferUsage::TRANSFER_DST
                        | BufferUsage::TRANSFER_SRC,
                    ..Default::default()
                },
                AllocationCreateInfo {
                    memory_type_filter: MemoryTypeFilter::PREFER_DEVICE,
                    ..Default::default()
                },
                bytes / 4,
            )
            .map_err(gpu_err("allocating radix scratch"))
        };
        Ok(RadixScratch {
            variant,
            capacity,
            keys: alloc(sizes.keys_bytes)?,
            values: if variant.pairs {
                Some(alloc(sizes.values_bytes)?)
            } else {
                None
            },
            state: alloc(sizes.state_bytes)?,
            indirect: self.indirect_buffer()?,
        })
    }

    fn indirect_buffer(&self) -> Result<Subbuffer<[DispatchIndirectCommand]>> {
        Buffer::new_slice::<DispatchIndirectCommand>(
            self.ctx.memory_allocator().clone(),
            BufferCreateInfo {
                usage: BufferUsage::STORAGE_BUFFER | BufferUsage::INDIRECT_BUFFER,
                ..Default::default()
            },
            AllocationCreateInfo {
                memory_type_filter: MemoryTypeFilter::PREFER_DEVICE,
                ..Default::default()
            },
            u64::from(plan::indirect::WORDS / 3),
        )
        .map_err(gpu_err("allocating the radix dispatch buffer"))
    }

    fn check_len(&self, p: &Pipelines, variant: Variant, len: u64) -> Result<()> {
        let max = p.max_len(variant, &self.limits);
        if len > max {
            return Err(Error::TooLarge {
                backend: NAME,
                len: len as usize,
                max: max as usize,
            });
        }
        Ok(())
    }

    /// Records the sort of `job` into `builder` (the caller submits it). `scratch` must be
    /// for the same key width and values-or-not, with a capacity of at least the job's
    /// buffers, and must not be in use by another sort running at the same time.
    pub fn record(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
    ) -> Result<()> {
        self.record_marked(builder, job, scratch, &mut |_, _| {})
    }

    /// [`record`](Self::record) that calls `mark(builder, phase)` after each phase
    /// (`"clear"`, `"histogram"`, `"plan"`, by reduce-then-scan `"upsweep 0"` and, where
    /// the scan has a dispatch of its own, `"scan 0"` before each `"pass 0"`.., `"copy"`),
    /// e.g. to write timestamps for a per-phase profile.
    #[doc(hidden)]
    pub fn record_marked(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
        mark: &mut dyn FnMut(&mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>, &str),
    ) -> Result<()> {
        self.record_phases(builder, job, scratch, &Phases::WHOLE, mark)
    }

    /// [`record_marked`](Self::record_marked) limited to `phases` (the grouped host path
    /// records the histogram and a one-pass scatter in separate submissions).
    fn record_phases(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
        phases: &Phases,
        mark: &mut dyn FnMut(&mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>, &str),
    ) -> Result<()> {
        let variant = job.variant();
        if scratch.variant != variant {
            return Err(Error::Gpu(format!(
                "radix scratch made for {:?} used for {:?}",
                scratch.variant, variant
            )));
        }
        let capacity = job.capacity();
        if let Count::Known(n) = job.count {
            if u64::from(n) > capacity {
                return Err(Error::Gpu(format!(
                    "sorting {n} keys in buffers that hold {capacity}"
                )));
            }
        }
        if capacity > scratch.capacity {
            return Err(Error::Gpu(format!(
                "radix scratch holds {} keys, the buffers {capacity}",
                scratch.capacity
            )));
        }
        let p = self.pipelines(variant)?;
        self.check_len(&p, variant, capacity)?;
        // The scheme of the passes goes by the count, or by the capacity where the GPU holds
        // the count; each scheme has its tile.
        let keys_hint = match &job.count {
            Count::Known(n) => u64::from(*n),
            Count::Buffer(_) => capacity,
        };
        let reduce = p.reduce.as_ref().filter(|r| keys_hint >= r.from);
        // Where reduce-then-scan's scan runs (one of the two is always built).
        let scan_scheme = reduce.and_then(|r| {
            if keys_hint < r.in_pass_below {
                r.in_pass.as_ref()
            } else {
                r.separate.as_ref()
            }
        });
        let shape = reduce.map_or(p.shape, |r| r.shape);
        let kw = u64::from(variant.key_words());
        let slot_words = plan::slot_words(shape, capacity);
        let state_words = plan::state_words(shape, capacity);
        let state = scratch.state.clone().slice(0..state_words);
        let b_keys = scratch.keys.clone().slice(0..(capacity * kw).max(1));
        let b_values = scratch
            .values
            .as_ref()
            .map(|v| v.clone().slice(0..capacity.max(1)));
        let a_keys = job.keys.clone().slice(0..(capacity * kw).max(1));
        let a_values = job
            .values
            .as_ref()
            .map(|v| v.clone().slice(0..capacity.max(1)));
        let map_code = map_code(job.map);
        let params = |pass: u32| -> [u32; 5] {
            [
                pass,
                map_code,
                slot_words as u32,
                shape.tile_keys(),
                capacity as u32,
            ]
        };

        // 1. Clear the state, set the count. Reduce-then-scan writes every status word
        // before it reads it (partition counts and tile offsets), so only the words before
        // the status slots need clearing, by a dispatch where the host knows the count (the
        // transfer commands took longer: BENCHMARKS.md, run 67); the look-back needs its
        // slots zero (at 2^28 u32 keys the slots are 215 MB, whose clearing took 0.05 ms).
        if phases.clear {
            match (reduce.and_then(|r| r.clear.as_ref()), &job.count) {
                (Some(clear), Count::Known(n)) => {
                    let clear_set = self.descriptor_set(
                        clear,
                        vec![WriteDescriptorSet::buffer(4, state.clone())],
                    )?;
                    let mut push = params(0);
                    push[0] = *n;
                    Self::bind(builder, clear, clear_set, push)?;
                    // SAFETY: one workgroup writes the state's first STATUS words, all of
                    // which exist (state_words > STATUS).
                    unsafe { builder.dispatch([1, 1, 1]) }
                        .map_err(gpu_err("clearing radix state"))?;
                }
                _ => {
                    let cleared = match reduce {
                        Some(_) => state.clone().slice(0..u64::from(plan::state::STATUS)),
                        None => state.clone(),
                    };
                    builder
                        .fill_buffer(cleared, 0)
                        .map_err(gpu_err("clearing radix state"))?;
                    match &job.count {
                        Count::Known(n) => builder
                            .update_buffer(
                                state.clone().index(plan::state::COUNT.into()),
                                Box::new(*n),
                            )
                            .map_err(gpu_err("setting the key count"))?,
                        Count::Buffer(buf) => builder
                            .copy_buffer(CopyBufferInfo::buffers(
                                buf.clone(),
                                state.clone().index(plan::state::COUNT.into()),
                            ))
                            .map_err(gpu_err("copying the key count"))?,
                    };
                }
            }
        }

        let set = |pipeline: &Arc<ComputePipeline>, writes| self.descriptor_set(pipeline, writes);
        let bind = Self::bind;
        let direction = |src_k: &Subbuffer<[u32]>,
                         dst_k: &Subbuffer<[u32]>,
                         src_v: &Option<Subbuffer<[u32]>>,
                         dst_v: &Option<Subbuffer<[u32]>>| {
            scatter_writes(src_k, dst_k, src_v, dst_v, &state)
        };

        // 2. Histogram of every digit, and the bits that vary among the keys. Reduce-then-scan
        // counts only pass 0's digit, with its tile offsets (each upsweep counts its own
        // pass), unless the host reads every digit's counts back (no pass recorded).
        let tile_offsets = reduce.filter(|_| phases.pass_mask != 0);
        if phases.histogram {
            mark(builder, "clear");
            let histogram = tile_offsets.map_or(&p.histogram, |r| &r.histogram);
            let hist_set = set(
                histogram,
                vec![
                    WriteDescriptorSet::buffer(0, a_keys.clone()),
                    WriteDescriptorSet::buffer(4, state.clone()),
                ],
            )?;
            bind(builder, histogram, hist_set, params(0))?;
            let groups = match tile_offsets {
                // One workgroup per partition: the count's partitions are no more than the
                // capacity's tiles, nor than `partitions`.
                Some(r) => shape.tiles(capacity).clamp(1, u64::from(r.partitions)) as u32,
                None => plan::histogram_groups(
                    capacity,
                    self.limits.max_groups_x,
                    env_u32("SORTNET_RADIX_HIST_KPI")
                        .unwrap_or(plan::HISTOGRAM_KEYS_PER_INVOCATION),
                ),
            };
            // SAFETY: the histogram shader reads keys[i] for i < min(count, capacity), and
            // a_keys holds capacity keys; it writes the histogram words of the state buffer,
            // which holds state_words >= STATUS words, and by reduce-then-scan the words of
            // tiles below ceil(count / tile) and of as many partitions in the two status
            // slots, which hold ceil(capacity / tile) tiles each, and of as many partitions'
            // first row of offsets (min(tiles, MAX_PARTITIONS) rows after the slots).
            unsafe { builder.dispatch([groups, 1, 1]) }
                .map_err(gpu_err("dispatching the radix histogram"))?;
            mark(builder, "histogram");
        }
        if phases.pass_mask == 0 {
            return Ok(());
        }

        // 3. Plan (its pass slot holds the passes it may run).
        let plan_pipeline = scan_scheme.map_or(&p.plan, |s| &s.plan);
        let indirect = scratch.indirect.clone();
        let plan_set = set(
            plan_pipeline,
            vec![
                WriteDescriptorSet::buffer(4, state.clone()),
                WriteDescriptorSet::buffer(5, indirect.clone().reinterpret::<[u32]>()),
            ],
        )?;
        bind(builder, plan_pipeline, plan_set, params(phases.pass_mask))?;
        // SAFETY: one workgroup of 256 invocations reads and writes state words below STATUS
        // and the 75 words of the indirect buffer, all of which exist.
        unsafe { builder.dispatch([1, 1, 1]) }.map_err(gpu_err("dispatching the radix plan"))?;
        if let Some(buckets) = phases.buckets {
            // The host's bucket offsets for the one pass that runs replace the plan's (and
            // the reduce-then-scan scan's own).
            let at =
                u64::from(plan::state::BUCKET + plan::RADIX * phases.pass_mask.trailing_zeros());
            builder
                .update_buffer(
                    state.clone().slice(at..at + u64::from(plan::RADIX)),
                    buckets.to_vec().into_boxed_slice(),
                )
                .map_err(gpu_err("setting bucket offsets"))?;
            builder
                .update_buffer(
                    state.clone().index(u64::from(plan::state::BUCKETS_GIVEN)),
                    Box::new(1u32),
                )
                .map_err(gpu_err("setting bucket offsets"))?;
        }
        mark(builder, "plan");

        // 4. The steps (the passes that run, in order: radix_common.glsl), alternately A->B
        // and B->A. Steps past the passes in the mask would have no workgroups: not recorded.
        let scatter = scan_scheme.map_or(&p.scatter, |s| &s.scatter);
        let ab = set(scatter, direction(&a_keys, &b_keys, &a_values, &b_values))?;
        let ba = set(scatter, direction(&b_keys, &a_keys, &b_values, &a_values))?;
        // Reduce-then-scan: the upsweep reads the step's source keys, the scan the state only.
        let reduce_sets = match reduce {
            Some(r) => {
                let up = |keys: &Subbuffer<[u32]>| {
                    set(
                        &r.upsweep,
                        vec![
                            WriteDescriptorSet::buffer(0, keys.clone()),
                            WriteDescriptorSet::buffer(4, state.clone()),
                        ],
                    )
                };
                let scan = match scan_scheme.and_then(|s| s.scan.as_ref()) {
                    Some(scan) => Some((
                        scan,
                        set(scan, vec![WriteDescriptorSet::buffer(4, state.clone())])?,
                    )),
                    None => None,
                };
                Some((r, [up(&a_keys)?, up(&b_keys)?], scan))
            }
            None => None,
        };
        let steps = phases.pass_mask.count_ones().min(variant.passes());
        for step in 0..steps {
            let parity = (step % 2) as usize;
            if let Some((r, up, scan)) = &reduce_sets {
                bind(builder, &r.upsweep, up[parity].clone(), params(step))?;
                let at = u64::from(plan::indirect::UPSWEEP / 3 + step);
                // SAFETY: the plan sizes this dispatch to the partitions (or zero: for step
                // 0 when the histogram counted its tiles); each workgroup reads keys below
                // count in a buffer of capacity keys and writes the 256 status words of its
                // partition in the state's first slot (partitions <= tiles) and of each of its
                // tiles in the second, and zeroes its partition's row of offsets after them.
                unsafe { builder.dispatch_indirect(indirect.clone().slice(at..at + 1)) }
                    .map_err(gpu_err("dispatching a radix upsweep"))?;
                mark(builder, &format!("upsweep {step}"));
                if let Some((scan, scan_set)) = scan {
                    bind(builder, scan, scan_set.clone(), params(step))?;
                    let at = u64::from(plan::indirect::SCAN / 3 + step);
                    // SAFETY: SCAN_GROUPS workgroups (or zero), each reading its digits'
                    // status words of every partition (inside the first slot) and writing
                    // their offsets in the region after the two slots, which holds two rows
                    // of min(tiles, MAX_PARTITIONS) >= partitions partitions.
                    unsafe { builder.dispatch_indirect(indirect.clone().slice(at..at + 1)) }
                        .map_err(gpu_err("dispatching a radix scan"))?;
                    mark(builder, &format!("scan {step}"));
                }
            }
            bind(builder, scatter, [&ab, &ba][parity].clone(), params(step))?;
            let at = u64::from(plan::indirect::PASS / 3 + step);
            // SAFETY: the plan sizes this dispatch to ceil(count / tile) workgroups (or zero),
            // count <= capacity, by reduce-then-scan with the scan in the pass SCAN_GROUPS
            // more, which scan as the scan dispatch would (see there) and sort no tile; each
            // tile reads and writes keys and values below count in buffers of capacity
            // elements, and look-back words (by reduce-then-scan: offset words) of tiles below
            // ceil(capacity / tile) in a state buffer sized for exactly that
            // (radix_plan::state_words, for this scheme's tile). Tile ids are workgroup ids
            // (less SCAN_GROUPS, or, with SORTNET_RADIX_TILE_COUNTER=1, from a counter cleared
            // in step 1).
            unsafe { builder.dispatch_indirect(indirect.clone().slice(at..at + 1)) }
                .map_err(gpu_err("dispatching a radix pass"))?;
            mark(builder, &format!("pass {step}"));
        }

        // 5. Back to A when an odd number of passes ran.
        if !phases.copy_back {
            return Ok(());
        }
        let copy_set = set(&p.copy, direction(&b_keys, &a_keys, &b_values, &a_values))?;
        bind(builder, &p.copy, copy_set, params(0))?;
        let at = u64::from(plan::indirect::COPY / 3);
        // SAFETY: grid-stride copy of count <= capacity elements between buffers of capacity
        // elements; the plan sizes it (at most 65535 workgroups, or zero).
        unsafe { builder.dispatch_indirect(indirect.slice(at..at + 1)) }
            .map_err(gpu_err("dispatching the radix copy"))?;
        mark(builder, "copy");
        Ok(())
    }

    fn descriptor_set(
        &self,
        pipeline: &Arc<ComputePipeline>,
        writes: Vec<WriteDescriptorSet>,
    ) -> Result<Arc<DescriptorSet>> {
        DescriptorSet::new(
            self.ctx.descriptor_set_allocator().clone(),
            pipeline.layout().set_layouts()[0].clone(),
            writes,
            [],
        )
        .map_err(gpu_err("creating a radix descriptor set"))
    }

    fn bind(
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        pipeline: &Arc<ComputePipeline>,
        set: Arc<DescriptorSet>,
        push: [u32; 5],
    ) -> Result<()> {
        builder
            .bind_pipeline_compute(pipeline.clone())
            .map_err(gpu_err("binding a radix pipeline"))?
            .bind_descriptor_sets(
                PipelineBindPoint::Compute,
                pipeline.layout().clone(),
                0,
                set,
            )
            .map_err(gpu_err("binding radix buffers"))?
            .push_constants(pipeline.layout().clone(), 0, push)
            .map_err(gpu_err("setting radix parameters"))?;
        Ok(())
    }

    /// Records one pass by digit `pass` over `src` (keys alone, `len` of them) into `dst`,
    /// with the bucket offsets of `counts` (the keys' digit counts) and a `state` of its
    /// own: the grouped host path scatters each batch of upload pieces by its top digit as
    /// it lands.
    /// No histogram and no plan: the host knows the counts and that the pass runs (it
    /// applies the key map on read and undoes it on write).
    fn record_piece_scatter(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        variant: Variant,
        (src, dst, state): ScatterBuffers,
        map: KeyMap,
        pass: u32,
        counts: &Counts,
    ) -> Result<()> {
        let p = self.pipelines(variant)?;
        let len = src.len() / u64::from(variant.key_words());
        let state = state.slice(0..plan::state_words(p.shape, len));
        let mut buckets = Vec::with_capacity(counts.len());
        let mut at = 0u32;
        for &c in counts {
            buckets.push(at);
            at += c;
        }
        builder
            .fill_buffer(state.clone(), 0)
            .map_err(gpu_err("clearing radix state"))?;
        builder
            .update_buffer(
                state.clone().index(plan::state::COUNT.into()),
                Box::new(len as u32),
            )
            .map_err(gpu_err("setting the key count"))?;
        // Step 0 (src to dst) by `pass`: encode on read, decode on write, look-back slot 0
        // (radix_plan.comp's flags).
        builder
            .update_buffer(
                state.clone().index(u64::from(plan::state::FLAGS)),
                Box::new(3u32 | pass << 8),
            )
            .map_err(gpu_err("setting the pass flags"))?;
        let at = u64::from(plan::state::BUCKET + plan::RADIX * pass);
        builder
            .update_buffer(
                state.clone().slice(at..at + u64::from(plan::RADIX)),
                buckets.into_boxed_slice(),
            )
            .map_err(gpu_err("setting bucket offsets"))?;
        let push = [
            0,
            map_code(map),
            plan::slot_words(p.shape, len) as u32,
            p.shape.tile_keys(),
            len as u32,
        ];
        let writes = scatter_writes(&src, &dst, &None, &None, &state);
        Self::bind(
            builder,
            &p.scatter,
            self.descriptor_set(&p.scatter, writes)?,
            push,
        )?;
        // One dispatch: tile ids are workgroup ids (radix_plan::max_len keeps the tiles of any
        // sort within max_groups_x; the batch is part of one).
        let tiles = len.div_ceil(u64::from(p.shape.tile_keys()));
        if tiles > u64::from(self.limits.max_groups_x) {
            return Err(Error::Gpu(format!(
                "a radix pass of {tiles} tiles exceeds the device's workgroup count"
            )));
        }
        if tiles > 0 {
            // SAFETY: ceil(len / tile) workgroups, one per tile (by workgroup id, or by the
            // pass's counter, cleared above): each tile reads keys below `len` in `src` (len
            // keys, also the capacity it is told) and writes to bucket offsets below `len`
            // in `dst`, which holds as many; its look-back words lie in `state`, sized for
            // len keys.
            unsafe { builder.dispatch([tiles as u32, 1, 1]) }
                .map_err(gpu_err("dispatching a radix pass"))?;
        }
        Ok(())
    }

    /// Sorts host slices: upload through staging, sort, download (streamed in pieces for
    /// large slices, grouped for large slices of keys alone: see the module's description).
    /// On `Err` the slices hold their original contents.
    fn sort_host(
        &self,
        keys: &mut [u32],
        values: Option<&mut [u32]>,
        width: KeyWidth,
        map: KeyMap,
    ) -> Result<()> {
        let variant = Self::variant(width, values.is_some());
        let kw = u64::from(variant.key_words());
        let n = keys.len() as u64 / kw;
        if n <= 1 {
            return Ok(());
        }
        let p = self.pipelines(variant)?;
        self.check_len(&p, variant, n)?;
        let ctx = &self.ctx;
        let mut trace = RoundTripTrace::new(ctx)?;
        // Keys inside a host buffer are copied by the GPU directly: no staging, so no
        // streaming either.
        let pinned = host_buffer::is_in_host_buffer(keys);
        if !pinned && values.is_none() && ctx.streams(n * kw * 4) && keys_overlap(n * kw * 4) {
            return self.sort_keys_grouped(keys, width, map, &p);
        }
        let sizes = p.scratch_sizes(variant, n);
        let a_keys = ctx.buffer(Memory::Device, n * kw * 4)?;
        let a_values = values
            .as_ref()
            .map(|_| ctx.buffer(Memory::Device, n * 4))
            .transpose()?;
        let b_keys = ctx.buffer(Memory::Device, sizes.keys_bytes)?;
        let b_values = values
            .as_ref()
            .map(|_| ctx.buffer(Memory::Device, sizes.values_bytes))
            .transpose()?;
        let state = ctx.buffer(Memory::Device, sizes.state_bytes)?;
        let scratch = RadixScratch {
            variant,
            capacity: n,
            keys: b_keys.slice(n * kw),
            values: b_values.as_ref().map(|b| b.slice(n)),
            state: state.slice(sizes.state_bytes / 4),
            indirect: self.indirect_buffer()?,
        };
        let job = SortJob {
            keys: a_keys.slice(n * kw),
            values: a_values.as_ref().map(|b| b.slice(n)),
            width,
            map,
            count: Count::Known(n as u32),
        };
        if !pinned && values.is_none() && ctx.streams(n * kw * 4) {
            // Host copies overlap the PCIe copies, piece by piece (keys only; the whole sort
            // between upload and download: `SORTNET_GPU_KEYS_OVERLAP=0`).
            return ctx.round_trip_streamed(keys, &job.keys, |builder| {
                self.record(builder, &job, &scratch)
            });
        }
        // The host side of the copies: the caller's host buffers, or staging copies.
        let host_keys = HostSide::of(ctx, keys)?;
        let host_values = values
            .as_deref()
            .map(|v| HostSide::of(ctx, v))
            .transpose()?;
        let mut upload = ctx.command_builder()?;
        trace.mark(&mut upload, 0)?;
        upload
            .copy_buffer(CopyBufferInfo::buffers(
                host_keys.view.clone(),
                job.keys.clone(),
            ))
            .map_err(gpu_err("uploading keys"))?;
        if let (Some(s), Some(d)) = (&host_values, &job.values) {
            upload
                .copy_buffer(CopyBufferInfo::buffers(s.view.clone(), d.clone()))
                .map_err(gpu_err("uploading values"))?;
        }
        trace.mark(&mut upload, 1)?;
        trace.host("staged");
        // The sort is recorded while the keys travel (2^24 u32 keys from a host buffer on
        // the H200: 3.35-3.44 ms against 3.51-3.76 recording first; BENCHMARKS.md, run 96).
        ctx.submit_while_recording(upload, || {
            let mut builder = ctx.command_builder()?;
            trace.host("upload submitted");
            trace.mark(&mut builder, 2)?;
            self.record(&mut builder, &job, &scratch)?;
            trace.mark(&mut builder, 3)?;
            builder
                .copy_buffer(CopyBufferInfo::buffers(
                    job.keys.clone(),
                    host_keys.view.clone(),
                ))
                .map_err(gpu_err("downloading keys"))?;
            if let (Some(s), Some(d)) = (&host_values, &job.values) {
                builder
                    .copy_buffer(CopyBufferInfo::buffers(d.clone(), s.view.clone()))
                    .map_err(gpu_err("downloading values"))?;
            }
            trace.mark(&mut builder, 4)?;
            trace.host("sort recorded");
            Ok(builder)
        })?;
        trace.host("GPU done");
        host_keys.finish(keys)?;
        if let (Some(h), Some(v)) = (host_values, values) {
            h.finish(v)?;
        }
        trace.print(ctx, "radix")
    }
}

impl RadixSorter {
    /// Sorts keys from a host slice with the sort overlapping the transfers: the keys are
    /// scattered by their top digit, cut into groups of roughly equal size (whole buckets),
    /// each group starting where a storage buffer may be bound; then each group is sorted
    /// on its own (the existing sort on the group's range, the other buffer's same range as
    /// scratch) and downloaded on the transfer queue while the next one sorts
    /// ([`HostStream::download`](super::context::HostStream::download)).
    ///
    /// The host counts the keys' top digits while it copies them into staging memory
    /// ([`HostStream::upload_counted`](super::context::HostStream::upload_counted)), and
    /// each batch of upload pieces is scattered by that digit into its own range of B as
    /// soon as it lands ([`RadixSorter::record_piece_scatter`], offsets from the host's
    /// counts); after the last batch a gather kernel collects each group's runs from the
    /// batches into A ([`record_gather`]). When every key has the same top digit, the
    /// device counts every digit after the upload and the host reads the counts back to
    /// scatter by the most significant digit that varies (also `SORTNET_GPU_HOST_COUNT=0`).
    ///
    /// Why: the whole sort between upload and download (`SORTNET_GPU_KEYS_OVERLAP=0`) leaves
    /// its 10.7 ms (2^28 u32 keys, H200) beside 41 ms of PCIe copies unhidden. Counting on
    /// the device after the upload left the count with its read-back (1.0 ms) and the
    /// scatter (3.0 ms) unhidden; the upload is paced by the host's staging copies, so only
    /// a scatter of pieces as they land overlaps it (H200, 2^28: 78-80% of the transfer bound
    /// against 76% in the same call). Still unhidden: the first group's sort (1.4 ms), the
    /// last batch's scatter and the gather. The price: the keys make one pass more (the
    /// groups' sorts run their top digit again), the later groups' sorts run about 2x slower
    /// beside the copy engine's downloads, and the batches need states of their own
    /// (BENCHMARKS.md (GPU keys: the scatter follows the upload)). On `Err` `keys` holds its
    /// original contents.
    fn sort_keys_grouped(
        &self,
        keys: &mut [u32],
        width: KeyWidth,
        map: KeyMap,
        p: &Pipelines,
    ) -> Result<()> {
        let ctx = &self.ctx;
        let variant = Self::variant(width, false);
        let kw = u64::from(variant.key_words());
        let n = keys.len() as u64 / kw;
        let groups = env_u32("SORTNET_GPU_KEY_GROUPS").map_or(KEY_GROUPS, |g| g.max(1) as usize);
        // Groups start where a storage buffer binding may, so each is sorted as a buffer of
        // its own; the padding in between costs at most `align` keys per group.
        let align_bytes = ctx
            .device()
            .physical_device()
            .properties()
            .min_storage_buffer_offset_alignment
            .as_devicesize();
        let align = (align_bytes / (4 * kw)).max(1);
        let capacity = n + groups as u64 * align;
        self.check_len(p, variant, capacity)?;
        let a = ctx.buffer(Memory::Device, capacity * kw * 4)?;
        let b = ctx.buffer(Memory::Device, capacity * kw * 4)?;
        let (a, b) = (a.slice::<u32>(capacity * kw), b.slice::<u32>(capacity * kw));
        let state_bytes = p.scratch_sizes(variant, capacity).state_bytes;
        let state = ctx.buffer(Memory::Device, state_bytes)?;
        let scatter_job = SortJob {
            keys: a.clone(),
            values: None,
            width,
            map,
            count: Count::Known(n as u32),
        };
        let scatter_scratch = RadixScratch {
            variant,
            capacity,
            keys: b.clone(),
            values: None,
            state: state.slice::<u32>(state_bytes / 4),
            indirect: self.indirect_buffer()?,
        };
        // Each state starts where a storage buffer binding may.
        let state_of = |len: u64| {
            p.scratch_sizes(variant, len)
                .state_bytes
                .next_multiple_of(align_bytes.max(4))
        };
        let mut stream = ctx.host_stream(keys)?;
        let result = (|| {
            // `SORTNET_GPU_HOST_COUNT=0`: count on the device after the upload (the path
            // before, to compare).
            let host_counts = std::env::var("SORTNET_GPU_HOST_COUNT").as_deref() != Ok("0");
            let top_pass = variant.passes() - 1;
            // The upload's pieces, a few at a time, are scattered by their top digit into
            // the same range of B as they land, each batch with a state of its own.
            let batches = scatter_batches(&stream.piece_ranges());
            let batch_states: u64 = batches
                .iter()
                .map(|words| state_of((words.end - words.start) / kw))
                .sum();
            let batch_states = ctx.buffer(Memory::Device, batch_states)?.bytes();
            let mut state_at = 0u64;
            // Each scattered batch: its words and digit counts.
            let mut scattered: Vec<(std::ops::Range<u64>, Counts)> = Vec::new();
            let mut batch_counts = [0u32; 256];
            let count = top_digit_counter(width, map);
            let pieces =
                stream.upload_counted(&a.clone().slice(0..n * kw), &count, |words, counts| {
                    for (t, c) in batch_counts.iter_mut().zip(counts) {
                        *t += c;
                    }
                    let batch = &batches[scattered.len()];
                    if !host_counts || words.end != batch.end {
                        return Ok(None);
                    }
                    let bytes = state_of((batch.end - batch.start) / kw);
                    let state = batch_states.clone().slice(state_at..state_at + bytes);
                    state_at += bytes;
                    let mut builder = ctx.command_builder()?;
                    let buffers = (
                        a.clone().slice(batch.clone()),
                        b.clone().slice(batch.clone()),
                        state.reinterpret::<[u32]>(),
                    );
                    self.record_piece_scatter(
                        &mut builder,
                        variant,
                        buffers,
                        map,
                        top_pass,
                        &batch_counts,
                    )?;
                    scattered.push((
                        batch.clone(),
                        std::mem::replace(&mut batch_counts, [0; 256]),
                    ));
                    Ok(Some(builder))
                })?;
            let mut top = [0u32; 256];
            for (_, counts) in &pieces {
                for (t, c) in top.iter_mut().zip(counts) {
                    *t += c;
                }
            }
            // Where the groups are sorted: in A after gathering them from the batches in B,
            // or in B after a scatter of the whole buffer.
            let (layout, sorted, scratch) = if host_counts && top.iter().all(|&c| u64::from(c) < n)
            {
                // The top digit varies (the usual case): gather each group's runs from the
                // batches into A.
                let layout = plan::groups_by_digit(top_pass, &top, n, groups, align);
                stream.note(format_args!("top digits counted while staging"));
                let runs = gather_regions(&layout, &top, &scattered, kw);
                let mut builder = ctx.command_builder()?;
                // (vulkano takes no new submission on buffers that pending ones write.)
                stream.wait_uploads()?;
                record_gather(ctx, &mut builder, b.clone(), a.clone(), &runs)?;
                // The groups are recorded while the gather runs.
                stream.submit_before_download(builder)?;
                (layout, &a, &b)
            } else {
                // Every key has the same top digit: count every digit on the device, read
                // the counts back, and scatter by the most significant digit that varies.
                stream.wait_uploads()?;
                let layout =
                    self.count_on_device(&scatter_job, &scatter_scratch, n, groups, align)?;
                stream.note(format_args!(
                    "digit counts read back: pass {:?}, {} groups",
                    layout.pass,
                    layout.groups.len()
                ));
                // All keys equal: they stay sorted in A, nothing to scatter or sort.
                let Some(pass) = layout.pass else {
                    let source = a.clone().slice(0..n * kw);
                    return stream.download(vec![DownloadGroup {
                        work: Box::new(|_| Ok(())),
                        source,
                    }]);
                };
                let mut builder = ctx.command_builder()?;
                let scatter = Phases {
                    clear: false,
                    histogram: false,
                    pass_mask: 1 << pass,
                    buckets: Some(&layout.buckets),
                    copy_back: false,
                };
                self.record_phases(
                    &mut builder,
                    &scatter_job,
                    &scatter_scratch,
                    &scatter,
                    &mut |_, _| {},
                )?;
                // The groups are recorded while the scatter runs.
                stream.submit_before_download(builder)?;
                (layout, &b, &a)
            };
            // Each group is sorted on its own range, the other buffer's same range as
            // scratch, with a state of its own: the slices of one buffer.
            let states_bytes: u64 = layout.groups.iter().map(|&(_, len)| state_of(len)).sum();
            let states = ctx.buffer(Memory::Device, states_bytes)?;
            let states = states.bytes();
            let mut state_at = 0u64;
            let mut download = Vec::with_capacity(layout.groups.len());
            for &(start, len) in &layout.groups {
                let words = start * kw..(start + len) * kw;
                let bytes = state_of(len);
                let job = SortJob {
                    keys: sorted.clone().slice(words.clone()),
                    values: None,
                    width,
                    map,
                    count: Count::Known(len as u32),
                };
                let scratch = RadixScratch {
                    variant,
                    capacity: len,
                    keys: scratch.clone().slice(words),
                    values: None,
                    state: states
                        .clone()
                        .slice(state_at..state_at + bytes)
                        .reinterpret::<[u32]>(),
                    indirect: self.indirect_buffer()?,
                };
                state_at += bytes;
                let source = job.keys.clone();
                let work: Recorder = if len < 2 {
                    Box::new(|_| Ok(()))
                } else {
                    Box::new(move |builder| {
                        self.record_phases(builder, &job, &scratch, &Phases::WHOLE, &mut |_, _| {})
                    })
                };
                download.push(DownloadGroup { work, source });
            }
            stream.download(download)
        })();
        stream.finish(result)
    }
}

impl RadixSorter {
    /// Counts every digit of the keys in `job` on the device (clearing the state first),
    /// reads the counts back and lays the grouped path's groups out by the most
    /// significant digit that varies.
    fn count_on_device(
        &self,
        job: &SortJob,
        scratch: &RadixScratch,
        n: u64,
        groups: usize,
        align: u64,
    ) -> Result<plan::GroupLayout> {
        let hist_words = u64::from(job.variant().passes() * plan::RADIX);
        let hist_host = self.ctx.buffer(Memory::Staging, hist_words * 4)?;
        let hist_host = hist_host.slice::<u32>(hist_words);
        let mut builder = self.ctx.command_builder()?;
        let histogram = Phases {
            clear: true,
            histogram: true,
            pass_mask: 0,
            buckets: None,
            copy_back: false,
        };
        self.record_phases(&mut builder, job, scratch, &histogram, &mut |_, _| {})?;
        let at = u64::from(plan::state::HIST);
        builder
            .copy_buffer(CopyBufferInfo::buffers(
                scratch.state.clone().slice(at..at + hist_words),
                hist_host.clone(),
            ))
            .map_err(gpu_err("reading digit counts back"))?;
        self.ctx.submit_and_wait(builder)?;
        let hist = hist_host
            .read()
            .map_err(gpu_err("mapping a staging buffer"))?;
        Ok(plan::group_layout(&hist, n, groups, align))
    }
}

/// The upload pieces (word ranges) cut into consecutive batches that the grouped host path
/// scatters together: up to `SCATTER_BATCHES` of them (`SORTNET_GPU_SCATTER_BATCHES`
/// overrides).
fn scatter_batches(pieces: &[std::ops::Range<u64>]) -> Vec<std::ops::Range<u64>> {
    let batches = env_u32("SORTNET_GPU_SCATTER_BATCHES").map_or(SCATTER_BATCHES, |b| b as usize);
    let per = pieces.len().div_ceil(batches.max(1)).max(1);
    pieces
        .chunks(per)
        .map(|c| c[0].start..c[c.len() - 1].end)
        .collect()
}

/// At most this many batches of upload pieces are scattered by the grouped host path. Fewer
/// submissions leave the host's staging copies, which set the upload's pace, more time;
/// more let the scatter start earlier and leave less of it after the last piece. H200, 2^28
/// u32 keys (32 pieces), bound / wall clock, warm, two rounds (BENCHMARKS.md (GPU keys: the
/// scatter follows the upload), call 5): 4 batches 78 / 77%, 8 batches 78 / 80%, 32
/// batches 79 / 78%, one batch per piece submitted from a thread of its own 67-72% (call 3).
const SCATTER_BATCHES: usize = 8;

/// The runs of words (from B to A) that gather each group of `layout` from the scattered
/// batches ("pieces" here) of the grouped host path, each of which holds its keys ordered
/// by the top digit in its own range of B: per piece and group, the run of the group's
/// digits, placed after the group's runs from earlier pieces. `top` holds the digit counts
/// of all keys, `pieces` each piece's words and digit counts.
fn gather_regions(
    layout: &plan::GroupLayout,
    top: &Counts,
    pieces: &[(std::ops::Range<u64>, Counts)],
    kw: u64,
) -> Vec<Run> {
    // The digits of each group: a group holds the buckets that start inside it, and every
    // key of a digit lies in its bucket (empty digits belong nowhere).
    let mut first_digit = vec![256usize; layout.groups.len()];
    let mut last_digit = vec![0usize; layout.groups.len()];
    let mut g = 0;
    for d in (0..256).filter(|&d| top[d] > 0) {
        let bucket = u64::from(layout.buckets[d]);
        while bucket >= layout.groups[g].0 + layout.groups[g].1 {
            g += 1;
        }
        first_digit[g] = first_digit[g].min(d);
        last_digit[g] = d;
    }
    let mut filled: Vec<u64> = layout.groups.iter().map(|&(start, _)| start).collect();
    let mut regions = Vec::new();
    for (words, counts) in pieces {
        let piece_start = words.start / kw;
        let mut before = 0u64;
        let mut d = 0;
        for (g, (&first, &last)) in first_digit.iter().zip(&last_digit).enumerate() {
            if first > last {
                continue;
            }
            while d < first {
                before += u64::from(counts[d]);
                d += 1;
            }
            let run: u64 = counts[first..=last].iter().map(|&c| u64::from(c)).sum();
            if run > 0 {
                regions.push(Run {
                    src_word: ((piece_start + before) * kw) as u32,
                    dst_word: (filled[g] * kw) as u32,
                    words: (run * kw) as u32,
                });
            }
            filled[g] += run;
        }
    }
    regions
}

/// Counts the top digit of each key (after the key map) in 32-bit words of keys of `width`,
/// for the grouped path, which counts while it stages the upload. Four sets of counters, so
/// that runs of equal digits do not wait on one counter's last increment.
fn top_digit_counter(width: KeyWidth, map: KeyMap) -> impl Fn(&[u32], &mut Counts) + Sync {
    // `STRIDE` words per key; the key's top word is its last: the only word of a 32-bit
    // key, the high one of a 64-bit key, whose top byte is the key's top byte under every
    // map.
    fn count<const STRIDE: usize>(words: &[u32], counts: &mut Counts, top: impl Fn(u32) -> u32) {
        let mut sets = [[0u32; 256]; 4];
        let fours = words.chunks_exact(4 * STRIDE);
        let rest = fours.remainder();
        for four in fours {
            for (j, set) in sets.iter_mut().enumerate() {
                set[top(four[j * STRIDE + STRIDE - 1]) as usize] += 1;
            }
        }
        for key in rest.chunks_exact(STRIDE) {
            sets[0][top(key[STRIDE - 1]) as usize] += 1;
        }
        for (d, c) in counts.iter_mut().enumerate() {
            *c += sets[0][d] + sets[1][d] + sets[2][d] + sets[3][d];
        }
    }
    fn by_map<const STRIDE: usize>(words: &[u32], counts: &mut Counts, map: KeyMap) {
        match map {
            KeyMap::Unsigned => count::<STRIDE>(words, counts, |w| w >> 24),
            KeyMap::Signed => count::<STRIDE>(words, counts, |w| (w >> 24) ^ 0x80),
            KeyMap::Float => count::<STRIDE>(words, counts, |w| map.encode32(w) >> 24),
        }
    }
    move |words: &[u32], counts: &mut Counts| match width {
        KeyWidth::W32 => by_map::<1>(words, counts, map),
        KeyWidth::W64 => by_map::<2>(words, counts, map),
    }
}

/// Groups the grouped host path sorts and downloads one after the other
/// (`SORTNET_GPU_KEY_GROUPS` overrides). H200, u32 keys, warm, bound / wall clock
/// (BENCHMARKS.md (GPU keys overlapping the download), call 3): 2^28: 4 / 6 / 8 / 12 / 16 groups 76 / 78 / 77 / 76 /
/// 74%; 2^26: 66 / 67 / 67 / 62 / 60%. The first group's sort is not hidden, and each group
/// costs a sort's fixed steps (and its recording, about 80 us on the host); every later sort
/// runs about 2x slower beside a download on the copy engine (1.4 -> 2.8 ms per 2^25 keys),
/// so that the sorts, not the downloads, pace the download phase. Since the sorts got about
/// 1.25x faster (session 8), four groups do better (run 52, 2^28, two rounds, warm: 4 / 8 /
/// 16 groups 73-71% / 70-68% / 68-68%; cold 70-69% / 69-69% / 67-67%): the download paces
/// the later groups either way, and fewer groups cost fewer fixed steps.
const KEY_GROUPS: usize = 4;

/// Keys from host slices of at least this many bytes take the grouped path (when they
/// stream at all): none that one sort takes today (its largest buffer holds 4 GiB), so the
/// grouped path is opt-in (`SORTNET_GPU_KEYS_OVERLAP=1`). It won when it came (H200, u32
/// keys, warm, bound / wall clock, grouped against the whole sort, BENCHMARKS.md (GPU keys
/// overlapping the download), calls 2-3: 2^28 (1 GiB) 77 against 71%), but since the sorts
/// got faster the whole sort does as well or better at every size measured, 256 MiB to
/// 2 GiB: 2^28 62 against 67% (run 68), 63-65 against 65-74% in three rounds (run 69); 2^29
/// (2 GiB) 68-71 against 71-72% (run 69); u64 keys at 2^26 62 against 66% (run 68), 68
/// against 68% (run 56). (The group sorts run slower beside the downloads than alone,
/// which takes back what the overlap hides.)
const GROUPED_MIN_BYTES: u64 = 4 << 30;

/// Whether keys from a host slice of `bytes` bytes take the grouped path:
/// `SORTNET_GPU_KEYS_OVERLAP=1` always, `=0` never (the whole sort between upload and
/// download, to compare), else from [`GROUPED_MIN_BYTES`].
fn keys_overlap(bytes: u64) -> bool {
    match std::env::var("SORTNET_GPU_KEYS_OVERLAP").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => bytes >= GROUPED_MIN_BYTES,
    }
}

/// The buffers of a scatter: source keys, destination keys, state.
type ScatterBuffers = (Subbuffer<[u32]>, Subbuffer<[u32]>, Subbuffer<[u32]>);

/// The shaders' code for a key map.
fn map_code(map: KeyMap) -> u32 {
    match map {
        KeyMap::Unsigned => 0,
        KeyMap::Signed => 1,
        KeyMap::Float => 2,
    }
}

/// The bindings of a scatter or copy from `src` to `dst` (keys, values when both are
/// given), with the state.
fn scatter_writes(
    src_k: &Subbuffer<[u32]>,
    dst_k: &Subbuffer<[u32]>,
    src_v: &Option<Subbuffer<[u32]>>,
    dst_v: &Option<Subbuffer<[u32]>>,
    state: &Subbuffer<[u32]>,
) -> Vec<WriteDescriptorSet> {
    let mut w = vec![
        WriteDescriptorSet::buffer(0, src_k.clone()),
        WriteDescriptorSet::buffer(1, dst_k.clone()),
        WriteDescriptorSet::buffer(4, state.clone()),
    ];
    if let (Some(s), Some(d)) = (src_v, dst_v) {
        w.push(WriteDescriptorSet::buffer(2, s.clone()));
        w.push(WriteDescriptorSet::buffer(3, d.clone()));
    }
    w
}

/// Views 64-bit keys as 32-bit words (low word first on little-endian hosts, as the
/// shaders read them).
fn words_of(keys: &mut [u64]) -> &mut [u32] {
    // SAFETY: u64 has no padding and every bit pattern is a valid pair of u32; u32's
    // alignment (4) divides u64's (8); the length doubles to cover the same bytes, and the
    // borrow of `keys` is held for the lifetime of the view.
    unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<u32>(), keys.len() * 2) }
}

/// The `vulkan-radix` backend.
pub struct VulkanRadix {
    sorter: &'static RadixSorter,
}

impl VulkanRadix {
    /// The backend, when a Vulkan device with the needed subgroup operations exists and
    /// the host is little-endian (64-bit keys are uploaded as word pairs, low word first).
    pub fn get() -> Option<&'static VulkanRadix> {
        static BACKEND: OnceLock<Option<VulkanRadix>> = OnceLock::new();
        BACKEND
            .get_or_init(|| {
                if cfg!(target_endian = "big") {
                    return None;
                }
                RadixSorter::get().map(|sorter| VulkanRadix { sorter })
            })
            .as_ref()
    }

    /// The sorter behind the backend (for data already on the GPU).
    pub fn sorter(&self) -> &'static RadixSorter {
        self.sorter
    }
}

impl SortBackend for VulkanRadix {
    fn name(&self) -> &'static str {
        NAME
    }

    fn device(&self) -> Device {
        Device::Gpu {
            software: self.sorter.ctx.is_software(),
        }
    }

    fn status(&self) -> String {
        self.sorter.ctx.status()
    }

    fn supports(&self, workload: Workload) -> bool {
        match workload {
            Workload::Nibbles => super::nibble::supported(&self.sorter.ctx),
            Workload::Keys(_) | Workload::Pairs(_) => true,
        }
    }

    /// Nibble sorts are independent 16-element sorts, no radix work: the GPU nibble kernel.
    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        super::nibble::sort_host(&self.sorter.ctx, words)
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        self.sorter.sort_host(keys, None, KeyWidth::W32, map)
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        self.sorter
            .sort_host(words_of(keys), None, KeyWidth::W64, map)
    }

    fn sort_pairs32(&self, keys: &mut [u32], values: &mut [u32], map: KeyMap) -> Result<()> {
        self.sorter
            .sort_host(keys, Some(values), KeyWidth::W32, map)
    }

    fn sort_pairs64(&self, keys: &mut [u64], values: &mut [u32], map: KeyMap) -> Result<()> {
        self.sorter
            .sort_host(words_of(keys), Some(values), KeyWidth::W64, map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nibble::tests::xorshift_words;

    /// Gathering per the regions puts every key of every piece into its group: each group
    /// of A ends up holding exactly the keys whose top digit lies in the group's buckets.
    #[test]
    fn gather_regions_collect_each_group_from_every_piece() {
        let keys: Vec<u32> = xorshift_words(0x2545_f491_4f6c_dd1d, 5000)
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                // Skewed: half the keys in 8 buckets.
                if i % 2 == 0 {
                    (w as u32) | 0xf800_0000
                } else {
                    w as u32
                }
            })
            .collect();
        let pieces: Vec<(std::ops::Range<u64>, Counts)> = [0..1024u64, 1024..3000, 3000..5000]
            .into_iter()
            .map(|r| {
                let mut counts = [0u32; 256];
                top_digit_counter(KeyWidth::W32, KeyMap::Unsigned)(
                    &keys[r.start as usize..r.end as usize],
                    &mut counts,
                );
                (r, counts)
            })
            .collect();
        let mut top = [0u32; 256];
        for (_, c) in &pieces {
            for d in 0..256 {
                top[d] += c[d];
            }
        }
        for groups in [1, 3, 8, 300] {
            let layout = plan::groups_by_digit(3, &top, 5000, groups, 16);
            // B: each piece ordered by its top digit (stably) in its own range.
            let mut b = keys.clone();
            for (r, _) in &pieces {
                b[r.start as usize..r.end as usize].sort_by_key(|k| k >> 24);
            }
            let mut a = vec![u32::MAX; layout.extent() as usize];
            for run in gather_regions(&layout, &top, &pieces, 1) {
                let (src, dst, len) = (run.src_word, run.dst_word, run.words);
                a[dst as usize..(dst + len) as usize]
                    .copy_from_slice(&b[src as usize..(src + len) as usize]);
            }
            let mut seen = 0;
            for &(start, len) in &layout.groups {
                let mut got = a[start as usize..(start + len) as usize].to_vec();
                let digits: Vec<u32> = got.iter().map(|k| k >> 24).collect();
                let (lo, hi) = (digits.iter().min().unwrap(), digits.iter().max().unwrap());
                let mut want: Vec<u32> = keys
                    .iter()
                    .copied()
                    .filter(|k| (lo..=hi).contains(&&(k >> 24)))
                    .collect();
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "{groups} groups, group at {start}");
                seen += len;
            }
            assert_eq!(seen, 5000, "{groups} groups cover every key");
        }
    }

    /// The host's top-digit counts match the key maps' top byte for every width and map,
    /// at lengths that leave every remainder of the four-key loop.
    #[test]
    fn top_digit_counts_match_the_key_maps() {
        let raw = xorshift_words(0x9e37_79b9_7f4a_7c15, 1003);
        for map in [KeyMap::Unsigned, KeyMap::Signed, KeyMap::Float] {
            for len in [0usize, 1, 2, 3, 4, 5, 1003] {
                let keys32: Vec<u32> = raw[..len].iter().map(|&k| k as u32).collect();
                let mut want = [0u32; 256];
                for &k in &keys32 {
                    want[(map.encode32(k) >> 24) as usize] += 1;
                }
                let mut got = [0u32; 256];
                top_digit_counter(KeyWidth::W32, map)(&keys32, &mut got);
                assert_eq!(got, want, "u32 words, {map:?}, {len} keys");

                let words: Vec<u32> = raw[..len]
                    .iter()
                    .flat_map(|&k| [k as u32, (k >> 32) as u32])
                    .collect();
                let mut want = [0u32; 256];
                for &k in &raw[..len] {
                    want[(map.encode64(k) >> 56) as usize] += 1;
                }
                let mut got = [0u32; 256];
                top_digit_counter(KeyWidth::W64, map)(&words, &mut got);
                assert_eq!(got, want, "u64 keys, {map:?}, {len} keys");
            }
        }
    }
}
