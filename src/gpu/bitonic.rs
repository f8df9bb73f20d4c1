//! The `vulkan-bitonic` backend: a bitonic merge sort in Vulkan compute, after the write-up
//! "Implementing Bitonic Merge Sort in Vulkan Compute" (four kernels: `local_bms`,
//! `big_flip`, `local_disperse`, `big_disperse`), taken further:
//!
//! - several elements per thread (a tile of `workgroup * E` keys per workgroup in shared
//!   memory, sized from the device's `maxComputeSharedMemorySize`);
//! - consecutive global steps fused into one dispatch: each thread holds `2^M` keys in
//!   registers and runs `M` steps of a merge on them (the flip included), so a merge of
//!   height `h` costs `ceil((log2 h - log2 tile) / M)` passes over memory instead of one per
//!   step;
//! - any length: indices past the end are virtual maximal keys (the flip formulation puts
//!   every smaller key at the lower index, so they never move and are never stored);
//! - `u32` and `u64` keys with or without `u32` values; `i32`, `f32`, `i64`, `f64` through
//!   the [`KeyMap`], applied by the first kernel and undone by the last;
//! - all compute of one sort in one command buffer; host slices go through pooled staging
//!   and device buffers; slices larger than one storage buffer are sorted in chunks and
//!   merged on the CPU.
//!
//! The dispatch schedule is pure Rust (`plan::bitonic_schedule`), tested without a GPU.
//!
//! # Data already on the GPU
//!
//! [`BitonicSorter::record`] (and [`record_pairs`](BitonicSorter::record_pairs),
//! [`record_u64`](BitonicSorter::record_u64)) records the sort of a caller-owned
//! `Subbuffer` into the caller's `AutoCommandBufferBuilder`; vulkano inserts the barriers
//! against the caller's surrounding commands. The buffer needs `STORAGE_BUFFER` usage. The
//! bitonic sort works in place: [`BitonicSorter::scratch_bytes`] is 0 for every length.
//!
//! ```no_run
//! use sortnet::gpu::{bitonic::BitonicSorter, context::context};
//! # fn main() -> sortnet::Result<()> {
//! let ctx = context().expect("a Vulkan device");
//! let sorter = BitonicSorter::new(ctx.clone());
//! # let keys: vulkano::buffer::Subbuffer<[u32]> = todo!();
//! assert_eq!(BitonicSorter::scratch_bytes(keys.len()), 0);
//! let mut builder = ctx.command_builder()?;
//! // ... the caller's own commands that fill `keys` ...
//! sorter.record(&mut builder, keys.clone())?;
//! // ... the caller's own commands that read the sorted `keys` ...
//! ctx.submit_and_wait(builder)?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;

use bytemuck::Pod;
use std::sync::{Arc, Mutex};

use vulkano::buffer::{BufferContents, Subbuffer};
use vulkano::command_buffer::{AutoCommandBufferBuilder, CopyBufferInfo, PrimaryAutoCommandBuffer};
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::pipeline::{ComputePipeline, Pipeline, PipelineBindPoint};

pub(crate) mod config;

use super::context::{gpu_err, GpuContext};
use super::plan::{self, BitonicStep};
use super::pool::Memory;
use super::transfer::HostPath;
use crate::backend::{Device, SortBackend, Workload};
use crate::error::{Error, Result};
use crate::keys::key::KeyMap;
pub(crate) use config::BitonicConfig;

/// Threads per workgroup asked for (less where the device allows less).
const WORKGROUP: u32 = 256;
/// The most elements one GPU sort takes: indices are 32-bit in the shaders and the padded
/// length must fit them.
pub(super) const MAX_LEN: u64 = 1 << 31;

/// The four shader variants: key width and whether values travel along.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Variant {
    U32,
    U32Pairs,
    U64,
    U64Pairs,
}

impl Variant {
    fn new(key_bytes: u32, pairs: bool) -> Self {
        match (key_bytes, pairs) {
            (4, false) => Variant::U32,
            (4, true) => Variant::U32Pairs,
            (_, false) => Variant::U64,
            (_, true) => Variant::U64Pairs,
        }
    }

    /// Shared-memory bytes per element: the key and its value.
    fn element_bytes(self) -> u32 {
        match self {
            Variant::U32 => 4,
            Variant::U32Pairs | Variant::U64 => 8,
            Variant::U64Pairs => 12,
        }
    }

    fn local_spirv(self) -> &'static [u8] {
        match self {
            Variant::U32 => include_bytes!("../../shaders/spv/bitonic_local_u32.spv"),
            Variant::U32Pairs => include_bytes!("../../shaders/spv/bitonic_local_u32_pairs.spv"),
            Variant::U64 => include_bytes!("../../shaders/spv/bitonic_local_u64.spv"),
            Variant::U64Pairs => include_bytes!("../../shaders/spv/bitonic_local_u64_pairs.spv"),
        }
    }

    fn global_spirv(self) -> &'static [u8] {
        match self {
            Variant::U32 => include_bytes!("../../shaders/spv/bitonic_global_u32.spv"),
            Variant::U32Pairs => include_bytes!("../../shaders/spv/bitonic_global_u32_pairs.spv"),
            Variant::U64 => include_bytes!("../../shaders/spv/bitonic_global_u64.spv"),
            Variant::U64Pairs => {
                include_bytes!("../../shaders/spv/bitonic_global_u64_pairs.spv")
            }
        }
    }
}

// Push-constant flags, as in shaders/bitonic_common.glsl.
const FLAG_ENCODE: u32 = 1;
const FLAG_DECODE: u32 = 2;
const FLAG_FLIP: u32 = 4;
const FLAG_DISPERSE: u32 = 8;
const MAP_SHIFT: u32 = 4;

fn map_bits(map: KeyMap) -> u32 {
    (match map {
        KeyMap::Unsigned => 0,
        KeyMap::Signed => 1,
        KeyMap::Float => 2,
    }) << MAP_SHIFT
}

/// Which kernel of a variant: the local one, or the global one with `levels` fused steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kernel {
    Local,
    Global(u32),
}

/// Records bitonic sorts of GPU buffers, and sorts host slices through the GPU. The
/// bitonic sort is not stable: pairs come out with their keys sorted and every (key, value)
/// pair kept, but equal keys' values in no particular order.
pub struct BitonicSorter {
    ctx: Arc<GpuContext>,
    workgroup: u32,
    pipelines: Mutex<HashMap<(Variant, Kernel), Arc<ComputePipeline>>>,
    chunk_limit: u64,
    max_per_thread: u32,
    fuse: u32,
    host: HostPath,
}

impl std::fmt::Debug for BitonicSorter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitonicSorter")
            .field("workgroup", &self.workgroup)
            .field("chunk_limit", &self.chunk_limit)
            .field("max_per_thread", &self.max_per_thread)
            .field("fuse", &self.fuse)
            .finish_non_exhaustive()
    }
}

impl BitonicSorter {
    /// A sorter on `ctx` with the shipped tuning. Pipelines are built on first use of each
    /// variant.
    pub fn new(ctx: Arc<GpuContext>) -> Self {
        Self::with_config(ctx, BitonicConfig::default())
    }

    /// A sorter on `ctx` with the tuning of `config`.
    pub fn with_config(ctx: Arc<GpuContext>, config: BitonicConfig) -> Self {
        let l = ctx.limits();
        let workgroup = WORKGROUP
            .min(l.max_workgroup_invocations)
            .min(l.max_workgroup_size_x);
        let workgroup = 1 << (31 - workgroup.max(1).leading_zeros());
        BitonicSorter {
            host: HostPath::new(ctx.clone(), config.transfer),
            ctx,
            workgroup,
            pipelines: Mutex::new(HashMap::new()),
            chunk_limit: config.chunk_limit.clamp(2, MAX_LEN),
            max_per_thread: config.max_per_thread.clamp(2, 64).next_power_of_two(),
            fuse: config.fuse.clamp(1, 5),
        }
    }

    /// The context this sorter records for.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// Scratch memory [`record`](Self::record) needs for `len` keys: none, the bitonic sort
    /// works in place.
    pub fn scratch_bytes(len: u64) -> u64 {
        let _ = len;
        0
    }

    /// Elements one workgroup sorts in shared memory (the tile) for keys of `key_bytes`
    /// bytes (4 or 8), with or without values: lengths up to it take one dispatch.
    pub(crate) fn tile_len(&self, key_bytes: u32, pairs: bool) -> u32 {
        self.tile(Variant::new(key_bytes, pairs))
    }

    /// Elements per tile (one workgroup's shared memory) for a variant.
    fn tile(&self, variant: Variant) -> u32 {
        // The local kernels pad shared memory by one slot per 32 (bank spreading).
        plan::bitonic_tile(
            self.ctx.limits().max_shared_memory / 33 * 32,
            variant.element_bytes(),
            self.workgroup,
            self.max_per_thread,
        )
    }

    fn pipeline(&self, variant: Variant, kernel: Kernel) -> Result<Arc<ComputePipeline>> {
        let mut cache = self
            .pipelines
            .lock()
            .map_err(|_| Error::Gpu("pipeline cache lock poisoned".into()))?;
        if let Some(p) = cache.get(&(variant, kernel)) {
            return Ok(p.clone());
        }
        let p = match kernel {
            Kernel::Local => {
                let tile = self.tile(variant);
                self.ctx.compute_pipeline(
                    variant.local_spirv(),
                    &[(0, self.workgroup), (1, tile / self.workgroup), (2, tile)],
                )?
            }
            Kernel::Global(levels) => self
                .ctx
                .compute_pipeline(variant.global_spirv(), &[(0, self.workgroup), (1, levels)])?,
        };
        cache.insert((variant, kernel), p.clone());
        Ok(p)
    }

    /// Records the ascending sort of `keys` (a caller-owned storage buffer) into `builder`.
    pub fn record(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        keys: Subbuffer<[u32]>,
    ) -> Result<()> {
        let len = keys.len();
        self.record_mapped(
            builder,
            Variant::U32,
            keys.into_bytes(),
            None,
            len,
            KeyMap::Unsigned,
        )
    }

    /// Records the sort of `keys` with `values` moving along (same length) into `builder`.
    /// Not stable: equal keys' values end in no particular order.
    pub fn record_pairs(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        keys: Subbuffer<[u32]>,
        values: Subbuffer<[u32]>,
    ) -> Result<()> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len() as usize,
                values: values.len() as usize,
            });
        }
        let len = keys.len();
        self.record_mapped(
            builder,
            Variant::U32Pairs,
            keys.into_bytes(),
            Some(values),
            len,
            KeyMap::Unsigned,
        )
    }

    /// Records the ascending sort of 64-bit `keys` into `builder`.
    pub fn record_u64(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        keys: Subbuffer<[u64]>,
    ) -> Result<()> {
        let len = keys.len();
        self.record_mapped(
            builder,
            Variant::U64,
            keys.into_bytes(),
            None,
            len,
            KeyMap::Unsigned,
        )
    }

    /// Records the sort of `len` keys in `keys` (4 or 8 bytes each by `variant`), mapped
    /// through `map` on the way in and back on the way out.
    fn record_mapped(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        variant: Variant,
        keys: Subbuffer<[u8]>,
        values: Option<Subbuffer<[u32]>>,
        len: u64,
        map: KeyMap,
    ) -> Result<()> {
        self.record_steps(builder, variant, keys, values, len, map)
    }

    fn record_steps(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        variant: Variant,
        keys: Subbuffer<[u8]>,
        values: Option<Subbuffer<[u32]>>,
        len: u64,
        map: KeyMap,
    ) -> Result<()> {
        if len < 2 {
            return Ok(());
        }
        if len > MAX_LEN {
            return Err(Error::TooLarge {
                backend: "vulkan-bitonic",
                len: len as usize,
                max: MAX_LEN as usize,
            });
        }
        let tile = self.tile(variant);
        let schedule = plan::bitonic_schedule(len, tile, self.fuse);
        let local = self.pipeline(variant, Kernel::Local)?;
        let mut writes = vec![WriteDescriptorSet::buffer(0, keys)];
        if let Some(values) = values {
            writes.push(WriteDescriptorSet::buffer(1, values));
        }
        // One descriptor set per pipeline layout in use (each pipeline derives its own).
        let mut sets: HashMap<Kernel, Arc<DescriptorSet>> = HashMap::new();
        let max_count = self.ctx.limits().max_workgroup_count;
        let last = schedule.len() - 1;
        for (i, step) in schedule.iter().enumerate() {
            let mut flags = map_bits(map);
            if i == 0 {
                flags |= FLAG_ENCODE;
            }
            if i == last {
                flags |= FLAG_DECODE;
            }
            let (kernel, pipeline, h) = match *step {
                BitonicStep::LocalSort { h } => (Kernel::Local, local.clone(), h),
                BitonicStep::LocalMerge => {
                    flags |= FLAG_DISPERSE;
                    (Kernel::Local, local.clone(), tile)
                }
                BitonicStep::Global { top, levels, flip } => {
                    if flip {
                        flags |= FLAG_FLIP;
                    }
                    let kernel = Kernel::Global(levels);
                    (kernel, self.pipeline(variant, kernel)?, top)
                }
            };
            let layout = pipeline.layout().clone();
            let set = match sets.get(&kernel) {
                Some(set) => set.clone(),
                None => {
                    let set = DescriptorSet::new(
                        self.ctx.descriptor_set_allocator().clone(),
                        layout.set_layouts()[0].clone(),
                        writes.iter().cloned(),
                        [],
                    )
                    .map_err(gpu_err("creating the bitonic descriptor set"))?;
                    sets.insert(kernel, set.clone());
                    set
                }
            };
            let groups = plan::bitonic_groups(*step, len, tile, self.workgroup);
            let grid = plan::grid(groups, max_count);
            builder
                .bind_pipeline_compute(pipeline)
                .map_err(gpu_err("binding a bitonic pipeline"))?
                .bind_descriptor_sets(PipelineBindPoint::Compute, layout.clone(), 0, set)
                .map_err(gpu_err("binding the bitonic buffers"))?
                .push_constants(layout, 0, [len as u32, h, flags, grid[0], groups])
                .map_err(gpu_err("setting bitonic parameters"))?;
            // SAFETY: every index the kernels touch is below `len` (reads and writes are
            // guarded by `i < n`; larger indices are virtual keys held in registers), the
            // bound buffers hold `len` keys (and values), the grid is within the device's
            // limits and groups past `groups` return at once. vulkano inserts the barriers
            // between dispatches that touch the same buffer.
            unsafe { builder.dispatch(grid) }.map_err(gpu_err("dispatching a bitonic step"))?;
        }
        Ok(())
    }

    /// Sorts host `u32` keys with `values` along on the GPU (see [`sort_host`](Self::sort_host)).
    /// Not stable.
    pub fn sort_pairs(&self, keys: &mut [u32], values: &mut [u32]) -> Result<()> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        self.sort_host(keys, Some(values), KeyMap::Unsigned)
    }

    /// Sorts host `keys` (with `values` along) on the GPU: upload through staging memory,
    /// sort, download. On `Err` both slices are untouched.
    pub fn sort_host<T: BufferContents + Pod>(
        &self,
        keys: &mut [T],
        values: Option<&mut [u32]>,
        map: KeyMap,
    ) -> Result<()> {
        let n = keys.len() as u64;
        if n < 2 {
            return Ok(());
        }
        let key_bytes = std::mem::size_of::<T>() as u64;
        let max_len = (self.ctx.limits().max_storage_buffer_range / key_bytes)
            .min(self.chunk_limit)
            .min(MAX_LEN);
        if n > max_len {
            return self.sort_chunked(keys, values, map, max_len as usize);
        }
        let variant = Variant::new(key_bytes as u32, values.is_some());
        if values.is_none() && self.host.streams(n * key_bytes) {
            // Host copies overlap the PCIe copies, piece by piece.
            let device_keys = self.host.buffer(Memory::Device, n * key_bytes)?;
            let dk = device_keys.slice::<T>(n);
            return self.host.round_trip_streamed(keys, &dk, |builder| {
                self.record_mapped(builder, variant, dk.clone().into_bytes(), None, n, map)
            });
        }
        let staging_keys = self.host.stage_in(keys)?;
        let device_keys = self.host.buffer(Memory::Device, n * key_bytes)?;
        let staged_values = match values.as_deref() {
            Some(v) => Some((
                self.host.stage_in(v)?,
                self.host.buffer(Memory::Device, n * 4)?,
            )),
            None => None,
        };
        let mut builder = self.ctx.command_builder()?;
        let dk = device_keys.slice::<u8>(n * key_bytes);
        builder
            .copy_buffer(CopyBufferInfo::buffers(
                staging_keys.slice::<u8>(n * key_bytes),
                dk.clone(),
            ))
            .map_err(gpu_err("recording the upload"))?;
        let dv = match &staged_values {
            Some((staging, device)) => {
                let dv = device.slice::<u32>(n);
                builder
                    .copy_buffer(CopyBufferInfo::buffers(staging.slice::<u32>(n), dv.clone()))
                    .map_err(gpu_err("recording the upload"))?;
                Some(dv)
            }
            None => None,
        };
        self.record_mapped(&mut builder, variant, dk.clone(), dv.clone(), n, map)?;
        builder
            .copy_buffer(CopyBufferInfo::buffers(
                dk,
                staging_keys.slice::<u8>(n * key_bytes),
            ))
            .map_err(gpu_err("recording the download"))?;
        if let (Some((staging, _)), Some(dv)) = (&staged_values, dv) {
            builder
                .copy_buffer(CopyBufferInfo::buffers(dv, staging.slice::<u32>(n)))
                .map_err(gpu_err("recording the download"))?;
        }
        self.ctx.submit_and_wait(builder)?;
        // Map every result before writing any, so that a failed mapping leaves both slices
        // as they were.
        let key_view = staging_keys.slice::<T>(n);
        let key_guard = key_view
            .read()
            .map_err(gpu_err("mapping a staging buffer"))?;
        let value_view = staged_values
            .as_ref()
            .map(|(staging, _)| staging.slice::<u32>(n));
        let value_guard = match &value_view {
            Some(view) => Some(view.read().map_err(gpu_err("mapping a staging buffer"))?),
            None => None,
        };
        keys.copy_from_slice(&key_guard);
        if let (Some(guard), Some(v)) = (value_guard, values) {
            v.copy_from_slice(&guard);
        }
        Ok(())
    }

    /// Sorts a slice too large for one buffer: chunks of `chunk` elements sorted on the GPU
    /// (in copies, so an error leaves the input untouched), then merged on the CPU.
    fn sort_chunked<T: BufferContents + Pod>(
        &self,
        keys: &mut [T],
        values: Option<&mut [u32]>,
        map: KeyMap,
        chunk: usize,
    ) -> Result<()> {
        let mut k = keys.to_vec();
        let mut v = values.as_deref().map(<[u32]>::to_vec);
        for (i, kc) in k.chunks_mut(chunk).enumerate() {
            let vc = v.as_mut().map(|v| &mut v[i * chunk..i * chunk + kc.len()]);
            self.sort_host(kc, vc, map)?;
        }
        merge_runs(&mut k, v.as_mut(), chunk, |x: &T| encode_order(map, x));
        keys.copy_from_slice(&k);
        if let (Some(out), Some(v)) = (values, v) {
            out.copy_from_slice(&v);
        }
        Ok(())
    }
}

/// The unsigned image of a 32- or 64-bit key under `map`, widened to `u64`, for CPU merges.
fn encode_order<T: BufferContents + Copy>(map: KeyMap, key: &T) -> u64 {
    let bytes = std::mem::size_of::<T>();
    let mut raw = [0u8; 8];
    // SAFETY: T is a 4- or 8-byte plain integer (u32 or u64, the only types the backend
    // passes), so its `bytes` bytes are initialized and fit `raw`.
    unsafe {
        std::ptr::copy_nonoverlapping((key as *const T).cast::<u8>(), raw.as_mut_ptr(), bytes)
    };
    if bytes == 4 {
        map.encode32(u32::from_ne_bytes([raw[0], raw[1], raw[2], raw[3]])) as u64
    } else {
        map.encode64(u64::from_ne_bytes(raw))
    }
}

/// Merges sorted runs of `run` elements (the last may be shorter) into one sorted sequence,
/// stably, moving `values` along; `key` gives the order.
fn merge_runs<T: Copy>(
    keys: &mut Vec<T>,
    mut values: Option<&mut Vec<u32>>,
    run: usize,
    key: impl Fn(&T) -> u64,
) {
    let n = keys.len();
    let mut width = run.max(1);
    let mut kbuf = keys.clone();
    let mut vbuf = values.as_deref().cloned();
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            for out in start..end {
                let take_left = j >= end || (i < mid && key(&keys[i]) <= key(&keys[j]));
                let from = if take_left { i } else { j };
                kbuf[out] = keys[from];
                if let (Some(src), Some(dst)) = (values.as_deref(), vbuf.as_mut()) {
                    dst[out] = src[from];
                }
                if take_left {
                    i += 1;
                } else {
                    j += 1;
                }
            }
        }
        std::mem::swap(keys, &mut kbuf);
        if let (Some(src), Some(dst)) = (values.as_deref_mut(), vbuf.as_mut()) {
            std::mem::swap(src, dst);
        }
        width *= 2;
    }
}

/// The `vulkan-bitonic` backend: [`BitonicSorter`] for keys (not pairs: it is not stable),
/// the GPU nibble sort for words.
pub struct VulkanBitonic {
    sorter: BitonicSorter,
}

impl std::fmt::Debug for VulkanBitonic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VulkanBitonic")
            .field("sorter", &self.sorter)
            .finish()
    }
}

impl VulkanBitonic {
    /// The backend of `sorter` (e.g. one with a [`BitonicConfig`] of the caller's).
    pub fn new(sorter: BitonicSorter) -> Self {
        VulkanBitonic { sorter }
    }
}

impl SortBackend for VulkanBitonic {
    fn name(&self) -> &'static str {
        "vulkan-bitonic"
    }

    fn device(&self) -> Device {
        Device::Gpu {
            software: self.sorter.ctx.is_software(),
        }
    }

    fn status(&self) -> String {
        self.sorter.ctx.status()
    }

    /// No pairs: the bitonic sort is not stable, and `sort_pairs` promises stability on
    /// every backend that accepts pairs (`BitonicSorter::sort_pairs` still sorts them,
    /// unstably, for data the caller chooses to send there).
    fn supports(&self, workload: Workload) -> bool {
        match workload {
            Workload::Nibbles => super::nibble::supported(&self.sorter.ctx),
            Workload::Keys(_) => true,
            Workload::Pairs(_) => false,
        }
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        super::nibble::sort_host(&self.sorter.host, words)
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        self.sorter.sort_host(keys, None, map)
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        self.sorter.sort_host(keys, None, map)
    }
}
