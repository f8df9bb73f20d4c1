//! [`RadixSorter`]: recording a sort of caller-owned buffers ([`SortJob`]) into a command
//! buffer, with scratch from [`RadixSorter::new_scratch`]. The steps are described in the
//! [module](super) documentation.

use std::sync::{Arc, Mutex};

use vulkano::buffer::{Buffer, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::{
    AutoCommandBufferBuilder, DispatchIndirectCommand, PrimaryAutoCommandBuffer,
};
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter};
use vulkano::pipeline::{ComputePipeline, Pipeline, PipelineBindPoint};

use super::config::RadixConfig;
pub use super::count::Count;
use super::pipelines::{self, Pipelines};
use super::plan::{self, DeviceLimits, Variant};
use super::{stamp, Stamps, NAME};
use crate::error::{Error, Result};
use crate::gpu::context::{gpu_err, GpuContext};
use crate::gpu::transfer::HostPath;
use crate::keys::key::{KeyMap, KeyWidth};

/// What to sort: caller-owned device buffers (`STORAGE_BUFFER` usage).
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
    /// Sort by the low `B` bits of the mapped key only (CUB's `end_bit`), 1 to the key
    /// width: passes over the digits above them do not run (16 bits of a 32-bit key: two
    /// 8-bit passes instead of four), and keys equal in those bits keep their input order.
    /// `None`: every bit. The bits are those of the key after its [`KeyMap`] (a float's low
    /// bits are its mantissa's).
    pub key_bits: Option<u32>,
}

impl SortJob {
    /// The end bit: digits see only the mapped key's bits below it.
    fn end_bit(&self) -> Result<u32> {
        let width = match self.width {
            KeyWidth::W32 => 32,
            KeyWidth::W64 => 64,
        };
        match self.key_bits {
            None => Ok(width),
            Some(b) if (1..=width).contains(&b) => Ok(b),
            Some(b) => Err(Error::Gpu(format!(
                "key_bits {b} is outside 1..={width} for {width}-bit keys; nothing was recorded"
            ))),
        }
    }

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
/// that do not run at the same time. It also keeps the descriptor sets of the last buffers
/// it sorted (so a sort of the same buffers every frame makes none), which hold those
/// buffers alive until it sorts others or is dropped.
pub struct RadixScratch {
    pub(super) variant: Variant,
    pub(super) capacity: u64,
    pub(super) keys: Subbuffer<[u32]>,
    pub(super) values: Option<Subbuffer<[u32]>>,
    pub(super) state: Subbuffer<[u32]>,
    pub(super) indirect: Subbuffer<[DispatchIndirectCommand]>,
    /// The descriptor sets of the last sort recorded with this scratch, and what they bind.
    pub(super) sets: Mutex<Option<(SetsKey, Arc<Sets>)>>,
    /// The same for the one-workgroup sort.
    pub(super) one_set: Mutex<Option<(OneSetKey, Arc<DescriptorSet>)>>,
    /// The same for the short path: the split's set and the buckets'.
    pub(super) short_sets: Mutex<Option<(OneSetKey, [Arc<DescriptorSet>; 2])>>,
    /// The same for the load of a [`Count::Buffer`]: its pipeline, the count and the state.
    pub(super) count_set: Mutex<Option<(CountSetKey, Arc<DescriptorSet>)>>,
}

impl RadixScratch {
    /// The most keys this scratch serves.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
}

/// The Vulkan radix sort of one context with one [`RadixConfig`]: records sorts of
/// caller-owned buffers ([`record`](Self::record)), and sorts host slices through
/// [`VulkanRadix`](super::VulkanRadix). Pipelines are built on first use of each variant
/// (key width, values or not).
pub struct RadixSorter {
    pub(super) ctx: Arc<GpuContext>,
    limits: DeviceLimits,
    config: RadixConfig,
    pub(super) host: HostPath,
    /// Per variant, unmasked then masked (sorts by fewer bits than the key has).
    pipelines: [Mutex<Option<Arc<Pipelines>>>; 8],
    /// The load of a [`Count::Buffer`] (`count.rs`), built on its first use.
    pub(super) count_pipeline: Mutex<Option<Arc<ComputePipeline>>>,
}

impl std::fmt::Debug for RadixSorter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RadixSorter")
            .field("limits", &self.limits)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl RadixSorter {
    /// A sorter on `ctx` with the shipped tuning. `Err` when the device lacks the subgroup
    /// operations the shaders use (basic, ballot, arithmetic, shuffle in compute shaders).
    pub fn new(ctx: Arc<GpuContext>) -> Result<Self> {
        Self::with_config(ctx, RadixConfig::default())
    }

    /// A sorter on `ctx` with the tuning of `config`.
    pub fn with_config(ctx: Arc<GpuContext>, config: RadixConfig) -> Result<Self> {
        let limits = pipelines::device_limits(&ctx).ok_or_else(|| {
            Error::Gpu(
                "the device lacks the subgroup operations the radix sort needs \
                 (basic, ballot, arithmetic, shuffle in compute shaders)"
                    .into(),
            )
        })?;
        Ok(RadixSorter {
            host: HostPath::new(ctx.clone(), config.transfer.clone()),
            ctx,
            limits,
            config,
            pipelines: Default::default(),
            count_pipeline: Mutex::new(None),
        })
    }

    /// The context it runs on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// Its tuning.
    pub fn config(&self) -> &RadixConfig {
        &self.config
    }

    pub(super) fn pipelines(&self, variant: Variant) -> Result<Arc<Pipelines>> {
        self.pipelines_for(variant, false)
    }

    /// The pipelines of `variant`, those that mask digits above an end bit if `masked`.
    fn pipelines_for(&self, variant: Variant, masked: bool) -> Result<Arc<Pipelines>> {
        let mut slot = self.pipelines[variant.index() * 2 + usize::from(masked)]
            .lock()
            .map_err(|_| Error::Gpu("radix pipeline lock poisoned".into()))?;
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let built = Arc::new(pipelines::build(
            &self.ctx,
            &self.limits,
            &self.config,
            variant,
            masked,
        )?);
        *slot = Some(built.clone());
        Ok(built)
    }

    pub(super) fn variant(width: KeyWidth, pairs: bool) -> Variant {
        Variant {
            wide: width == KeyWidth::W64,
            pairs,
        }
    }

    /// Keys per scatter tile of sorts of this key width (with or without values) too small
    /// for reduce-then-scan (see [`reduces_then_scans`](Self::reduces_then_scans)), whose
    /// tile may differ. Tests size their inputs around it.
    pub(crate) fn tile_keys(&self, width: KeyWidth, pairs: bool) -> Result<u32> {
        Ok(self
            .pipelines(Self::variant(width, pairs))?
            .small_shape()
            .tile_keys())
    }

    /// Whether a whole sort of `n` keys of this width (with or without values) runs its
    /// passes by reduce-then-scan rather than by decoupled look-back.
    pub(crate) fn reduces_then_scans(&self, width: KeyWidth, pairs: bool, n: u64) -> Result<bool> {
        let p = self.pipelines(Self::variant(width, pairs))?;
        Ok(p.reduce.as_ref().is_some_and(|r| n >= r.from))
    }

    /// Whether a sort of `n` keys of this width (with or without values) runs in one
    /// workgroup (`RadixConfig::one_workgroup_max`).
    pub(crate) fn runs_in_one_workgroup(
        &self,
        width: KeyWidth,
        pairs: bool,
        n: u64,
    ) -> Result<bool> {
        let p = self.pipelines(Self::variant(width, pairs))?;
        Ok(p.one.as_ref().is_some_and(|o| n <= o.max))
    }

    /// Whether a sort of `n` keys of this width (with or without values) takes the short
    /// path (`RadixConfig::short_max`): a split into buckets and a workgroup per bucket.
    pub(crate) fn takes_short_path(&self, width: KeyWidth, pairs: bool, n: u64) -> Result<bool> {
        let p = self.pipelines(Self::variant(width, pairs))?;
        let one = p.one.as_ref().is_some_and(|o| n <= o.max);
        Ok(!one && p.short.as_ref().is_some_and(|s| n <= s.max))
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

    /// Allocates scratch for sorts of up to `capacity` keys (device-local memory), and
    /// zeroes its state by a command submitted to the context's queue (waited for).
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
        // Sorts find the histogram's accumulators zero and leave them so (record_phases): zero
        // them once here.
        let state = alloc(sizes.state_bytes)?;
        let mut zero = self.ctx.command_builder()?;
        zero.fill_buffer(state.clone().slice(0..u64::from(plan::state::STATUS)), 0)
            .map_err(gpu_err("clearing radix state"))?;
        self.ctx.submit_and_wait(zero)?;
        Ok(RadixScratch {
            variant,
            capacity,
            keys: alloc(sizes.keys_bytes)?,
            values: if variant.pairs {
                Some(alloc(sizes.values_bytes)?)
            } else {
                None
            },
            state,
            indirect: self.indirect_buffer()?,
            sets: Mutex::new(None),
            one_set: Mutex::new(None),
            short_sets: Mutex::new(None),
            count_set: Mutex::new(None),
        })
    }

    pub(super) fn indirect_buffer(&self) -> Result<Subbuffer<[DispatchIndirectCommand]>> {
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

    pub(super) fn check_len(&self, p: &Pipelines, variant: Variant, len: u64) -> Result<()> {
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
    ///
    /// Per frame: the pipelines are built on the sorter's first use of a variant and the
    /// descriptor sets on the scratch's first sort of these buffers; after that, recording
    /// allocates nothing but the builder's own commands (BENCHMARKS.md, "GPU radix sort",
    /// gives its CPU time). Barriers: commands recorded into the same vulkano builder before
    /// and after are ordered by vulkano's automatic barriers; for anything outside the
    /// builder see [`GpuContext::from_queue`]. Elements past the count are left untouched.
    pub fn record(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
    ) -> Result<()> {
        self.record_phases(builder, job, scratch, &mut None)
    }

    pub(super) fn record_phases(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
        stamps: &mut Stamps,
    ) -> Result<()> {
        let variant = job.variant();
        let end_bit = job.end_bit()?;
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
        let p = self.pipelines_for(variant, end_bit < 32 * variant.key_words())?;
        self.check_len(&p, variant, capacity)?;
        // The scheme of the passes goes by the count, or by the capacity where the GPU holds
        // the count; each scheme has its tile.
        let keys_hint = match &job.count {
            Count::Known(n) => u64::from(*n),
            Count::Buffer(_) => capacity,
        };
        // The key map in the low byte, the end bit above it (radix_common.glsl).
        let map_code = map_code(job.map) | end_bit << 8;
        if let Some(one) = p.one.as_ref().filter(|o| keys_hint <= o.max) {
            self.record_one_workgroup(builder, job, scratch, one, map_code, capacity, stamps)?;
            return stamp(builder, stamps, "one workgroup");
        }
        if let Some(short) = p.short.as_ref().filter(|s| keys_hint <= s.max) {
            return self.record_short(builder, job, scratch, short, map_code, capacity, stamps);
        }
        let reduce = p.reduce.as_ref().filter(|r| keys_hint >= r.from);
        // Where reduce-then-scan's scan runs (one of the two is always built).
        let scan_scheme = reduce.and_then(|r| {
            if keys_hint < r.in_pass_below {
                r.in_pass.as_ref()
            } else {
                r.separate.as_ref()
            }
        });
        // Small look-back sorts: the small tile, where the buffers are small too (the scratch's
        // state is sized for the small tile's many tiles only then).
        let small = p
            .small
            .as_ref()
            .filter(|s| reduce.is_none() && capacity < s.below);
        let shape = match (reduce, small) {
            (Some(r), _) => r.shape,
            (None, Some(s)) => s.shape,
            (None, None) => p.shape,
        };
        let scatter = match (scan_scheme, small) {
            (Some(s), _) => &s.scatter,
            (None, Some(s)) => &s.scatter,
            (None, None) => &p.scatter,
        };
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
        // The passes whose digits lie (at least partly) below the end bit.
        let pass_mask = (1u32 << end_bit.div_ceil(plan::DIGIT_BITS).min(plan::MAX_PASSES)) - 1;
        // A count the host knows goes in the push constants, as the capacity (COUNT_KNOWN in
        // radix_common.glsl): no command sets it before the histogram.
        let (map_word, bound) = match &job.count {
            Count::Known(n) => (map_code | 1 << 16, *n),
            Count::Buffer(_) => (map_code, capacity as u32),
        };
        let params = |pass: u32| -> [u32; 5] {
            [pass, map_word, slot_words as u32, shape.tile_keys(), bound]
        };

        // The descriptor sets: made on the first sort of these buffers with this scratch,
        // reused by the next ones (a renderer sorts the same buffers every frame).
        let key = SetsKey {
            pipelines: Arc::as_ptr(&p) as usize,
            reduce: reduce.is_some(),
            small: small.is_some(),
            separate_scan: scan_scheme.is_some_and(|s| s.scan.is_some()),
            capacity,
            keys: view_id(&job.keys),
            values: job.values.as_ref().map(view_id),
        };
        let sets = cached(&scratch.sets, key, || {
            let set =
                |pipeline: &Arc<ComputePipeline>, writes| self.descriptor_set(pipeline, writes);
            let direction = |src_k: &Subbuffer<[u32]>,
                             dst_k: &Subbuffer<[u32]>,
                             src_v: &Option<Subbuffer<[u32]>>,
                             dst_v: &Option<Subbuffer<[u32]>>| {
                scatter_writes(src_k, dst_k, src_v, dst_v, &state)
            };
            let histogram = scan_scheme.map_or(&p.histogram, |s| &s.histogram);
            let state_only =
                |pipeline| set(pipeline, vec![WriteDescriptorSet::buffer(4, state.clone())]);
            let made = Arc::new(Sets {
                clear: state_only(&p.clear)?,
                histogram: set(
                    histogram,
                    vec![
                        WriteDescriptorSet::buffer(0, a_keys.clone()),
                        WriteDescriptorSet::buffer(4, state.clone()),
                        WriteDescriptorSet::buffer(
                            5,
                            scratch.indirect.clone().reinterpret::<[u32]>(),
                        ),
                    ],
                )?,
                ab: set(scatter, direction(&a_keys, &b_keys, &a_values, &b_values))?,
                ba: set(scatter, direction(&b_keys, &a_keys, &b_values, &a_values))?,
                // Reduce-then-scan: the upsweep reads the step's source keys, the scan
                // the state only.
                upsweep: match reduce {
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
                        Some([up(&a_keys)?, up(&b_keys)?])
                    }
                    None => None,
                },
                scan: scan_scheme
                    .and_then(|s| s.scan.as_ref())
                    .map(state_only)
                    .transpose()?,
                copy: set(&p.copy, direction(&b_keys, &a_keys, &b_values, &a_values))?,
            });
            Ok(made)
        })?;
        let bind = Self::bind;

        // 1. The count, where the GPU holds it. Nothing is cleared first: the histogram's
        // accumulators are zero between sorts (new_scratch zeroes them, each sort leaves them
        // so: radix_plan.glsl), the look-back's first slot is zeroed by the histogram and each
        // step zeroes the next one's, and reduce-then-scan writes every status word before it
        // reads it. (A clear before the histogram cost 4-7 us at 2^16 on an H200.)
        self.load_count(builder, &job.count, scratch, capacity, stamps)?;

        // 2. Histogram of every digit, and the bits that vary among the keys. Reduce-then-scan
        // counts only pass 0's digit, with its tile offsets (each upsweep counts its own
        // pass). Its last workgroup plans (its pass slot holds the passes it may run).
        {
            let histogram = scan_scheme.map_or(&p.histogram, |s| &s.histogram);
            bind(
                builder,
                histogram,
                sets.histogram.clone(),
                params(pass_mask),
            )?;
            let groups = match reduce {
                // One workgroup per partition: the count's partitions are no more than the
                // capacity's tiles, nor than `partitions`.
                Some(r) => shape.tiles(capacity).clamp(1, u64::from(r.partitions)) as u32,
                None => plan::histogram_groups(
                    capacity,
                    self.limits.max_groups_x,
                    p.histogram_keys_per_invocation,
                ),
            };
            // SAFETY: the histogram shader reads keys[i] for i < min(count, capacity), and
            // a_keys holds capacity keys; it writes the histogram words of the state buffer,
            // which holds state_words >= STATUS words, and by reduce-then-scan the words of
            // tiles below ceil(count / tile) and of as many partitions in the two status
            // slots, which hold ceil(capacity / tile) tiles each, and of as many partitions'
            // first row of offsets (min(tiles, MAX_PARTITIONS) rows after the slots); by
            // look-back, the first slot's words of tiles below ceil(count / tile). Its last
            // workgroup writes state words below STATUS and the 75 words of the indirect
            // buffer, all of which exist.
            unsafe { builder.dispatch([groups, 1, 1]) }
                .map_err(gpu_err("dispatching the radix histogram"))?;
        }
        stamp(builder, stamps, "histogram")?;
        let indirect = scratch.indirect.clone();

        // 3. The steps (the passes that run, in order: radix_common.glsl), alternately A->B
        // and B->A. Steps past the passes in the mask would have no workgroups: not recorded.
        let scan = scan_scheme.and_then(|s| s.scan.as_ref());
        // Passes above the end bit never run: their steps are not recorded.
        let steps = variant.passes().min(pass_mask.count_ones());
        for step in 0..steps {
            let parity = (step % 2) as usize;
            if let (Some(r), Some(up)) = (reduce, &sets.upsweep) {
                bind(builder, &r.upsweep, up[parity].clone(), params(step))?;
                let at = u64::from(plan::indirect::UPSWEEP / 3 + step);
                // SAFETY: the plan sizes this dispatch to the partitions (or zero: for step
                // 0 when the histogram counted its tiles); each workgroup reads keys below
                // count in a buffer of capacity keys and writes the 256 status words of its
                // partition in the state's first slot (partitions <= tiles) and of each of its
                // tiles in the second, and zeroes its partition's row of offsets after them.
                unsafe { builder.dispatch_indirect(indirect.clone().slice(at..at + 1)) }
                    .map_err(gpu_err("dispatching a radix upsweep"))?;
                stamp(builder, stamps, "upsweep")?;
                if let (Some(scan), Some(scan_set)) = (scan, &sets.scan) {
                    bind(builder, scan, scan_set.clone(), params(step))?;
                    let at = u64::from(plan::indirect::SCAN / 3 + step);
                    // SAFETY: SCAN_GROUPS workgroups (or zero), each reading its digits'
                    // status words of every partition (inside the first slot) and writing
                    // their offsets in the region after the two slots, which holds two rows
                    // of min(tiles, MAX_PARTITIONS) >= partitions partitions.
                    unsafe { builder.dispatch_indirect(indirect.clone().slice(at..at + 1)) }
                        .map_err(gpu_err("dispatching a radix scan"))?;
                    stamp(builder, stamps, "scan")?;
                }
            }
            bind(
                builder,
                scatter,
                [&sets.ab, &sets.ba][parity].clone(),
                params(step),
            )?;
            if reduce.is_none() && self.config.direct_passes {
                // A workgroup per tile of the count, or of the capacity where the GPU holds
                // the count (those past it leave at once).
                let groups = shape.tiles(u64::from(bound)).max(1) as u32;
                // SAFETY: ceil(bound / tile) workgroups, bound = the known count or the
                // capacity, which the count read on the GPU is clamped to; each workgroup of
                // a step the plan runs whose tile holds keys sorts it as below, the others read
                // their step's flags (and the count) and return.
                unsafe { builder.dispatch([groups, 1, 1]) }
                    .map_err(gpu_err("dispatching a radix pass"))?;
                stamp(builder, stamps, "pass")?;
                continue;
            }
            let at = u64::from(plan::indirect::PASS / 3 + step);
            // SAFETY: the plan sizes this dispatch to ceil(count / tile) workgroups (or zero),
            // count <= capacity, by reduce-then-scan with the scan in the pass SCAN_GROUPS
            // more, which scan as the scan dispatch would (see there) and sort no tile; each
            // tile reads and writes keys and values below count in buffers of capacity
            // elements, and look-back words (by reduce-then-scan: offset words) of tiles below
            // ceil(capacity / tile) in a state buffer sized for exactly that
            // (radix::plan::state_words, for this scheme's tile). Tile ids are workgroup ids
            // (less SCAN_GROUPS).
            unsafe { builder.dispatch_indirect(indirect.clone().slice(at..at + 1)) }
                .map_err(gpu_err("dispatching a radix pass"))?;
            stamp(builder, stamps, "pass")?;
        }

        // 4. Back to A when an odd number of passes ran. The plan runs a skipped pass of the
        // mask rather than leave an odd number (radix_plan.glsl), so only a mask of an odd
        // number of passes may need the copy: the others record none.
        if pass_mask.count_ones() % 2 == 1 {
            bind(builder, &p.copy, sets.copy.clone(), params(0))?;
            let at = u64::from(plan::indirect::COPY / 3);
            // SAFETY: grid-stride copy of count <= capacity elements between buffers of
            // capacity elements; the plan sizes it (at most 65535 workgroups, or zero).
            unsafe { builder.dispatch_indirect(indirect.slice(at..at + 1)) }
                .map_err(gpu_err("dispatching the radix copy"))?;
            stamp(builder, stamps, "copy")?;
        }

        // 5. Reduce-then-scan's scans read the digit counts to the end: a clear after the
        // last leaves the histogram's accumulators zero for the next sort.
        if reduce.is_some() {
            bind(builder, &p.clear, sets.clear.clone(), params(0))?;
            // SAFETY: one workgroup writes the state's first STATUS words, all of which exist
            // (state_words > STATUS).
            unsafe { builder.dispatch([1, 1, 1]) }.map_err(gpu_err("clearing radix state"))?;
            stamp(builder, stamps, "clear")?;
        }
        Ok(())
    }

    pub(super) fn descriptor_set(
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

    pub(super) fn bind(
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
}

/// What a cached set of descriptor sets binds: the pipelines, the scheme, and the job's
/// buffers (by buffer, offset and size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SetsKey {
    pipelines: usize,
    reduce: bool,
    small: bool,
    separate_scan: bool,
    capacity: u64,
    keys: (usize, u64, u64),
    values: Option<(usize, u64, u64)>,
}

/// What the one-workgroup sort's descriptor set binds: its pipeline, keys and values.
pub(super) type OneSetKey = (usize, (usize, u64, u64), Option<(usize, u64, u64)>);

/// What the count load's descriptor set binds: its pipeline, the count and the state.
pub(super) type CountSetKey = (usize, (usize, u64, u64), (usize, u64, u64));

/// A buffer view's identity: its buffer, offset and size.
pub(super) fn view_id<T: ?Sized>(view: &Subbuffer<T>) -> (usize, u64, u64) {
    (
        Arc::as_ptr(view.buffer()) as usize,
        view.offset(),
        view.size(),
    )
}

/// The descriptor sets of one sort (see [`RadixSorter::record`]).
pub(super) struct Sets {
    clear: Arc<DescriptorSet>,
    histogram: Arc<DescriptorSet>,
    ab: Arc<DescriptorSet>,
    ba: Arc<DescriptorSet>,
    upsweep: Option<[Arc<DescriptorSet>; 2]>,
    scan: Option<Arc<DescriptorSet>>,
    copy: Arc<DescriptorSet>,
}

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
pub(super) fn scatter_writes(
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

/// What `slot` caches for `key` (descriptor sets for one set of buffers), made by `make` and
/// kept when the slot held another key or nothing.
pub(super) fn cached<K: PartialEq, S: Clone>(
    slot: &Mutex<Option<(K, S)>>,
    key: K,
    make: impl FnOnce() -> Result<S>,
) -> Result<S> {
    let mut cached = slot
        .lock()
        .map_err(|_| Error::Gpu("radix descriptor cache lock poisoned".into()))?;
    match cached.as_ref() {
        Some((k, made)) if *k == key => Ok(made.clone()),
        _ => {
            let made = make()?;
            *cached = Some((key, made.clone()));
            Ok(made)
        }
    }
}
