//! The GPU nibble sort (shaders/nibble.comp), shared by both Vulkan backends
//! (`vulkan-bitonic` and `vulkan-radix` call `sort_host`; data already on the GPU goes
//! through [`record`]).
//!
//! Each invocation loads its words with 16-byte loads, coalesced across the workgroup, and
//! sorts the two words of each load at once with Green's 60-comparator network on
//! `f16vec2` lanes (no shared memory, no tables; half of the comparators as saturated adds
//! on the FMA pipe, half as min/max) where the device has `shaderFloat16`, else
//! by counting nibbles with small tables in shared memory (`default_kernel`); see the
//! shader's header for both. It needs `shaderInt64`, which the context enables where the
//! device has it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use vulkano::buffer::Subbuffer;
use vulkano::command_buffer::{AutoCommandBufferBuilder, CopyBufferInfo, PrimaryAutoCommandBuffer};
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::pipeline::{ComputePipeline, Pipeline, PipelineBindPoint};

use super::context::{gpu_err, GpuContext};
use super::host_buffer::{self, HostSide};
use super::plan;
use super::pool::Memory;
use super::transfer::HostPath;
use crate::error::{Error, Result};

/// Counting with tables in shared memory.
const COUNTING_SPIRV: &[u8] = include_bytes!("../../shaders/spv/nibble.spv");
/// Green's network on `f16vec2` lanes, half of its comparators as saturated adds.
const NETWORK_SPIRV: &[u8] = include_bytes!("../../shaders/spv/nibble_f16mix.spv");

/// Threads per workgroup asked for (less where the device allows less).
const WORKGROUP: u32 = 256;

/// One configuration of the nibble kernel: which shader, how many 16-byte loads each
/// invocation issues before it sorts, the workgroup size asked for (less where the device
/// allows less), and how many tiles of `loads` loads per invocation one workgroup sorts
/// (more than one: a grid-stride loop that loads the next tile while it sorts the current
/// one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Kernel {
    /// The network (else counting).
    network: bool,
    /// 16-byte loads (two words each) per invocation and tile, 1 to 16.
    loads: u32,
    /// Threads per workgroup asked for.
    workgroup: u32,
    /// Tiles per workgroup, 1 to 4096 (1: no loop).
    tiles: u32,
}

impl Kernel {
    /// The network or counting with `loads` loads per invocation, the default workgroup,
    /// one tile.
    fn new(network: bool, loads: u32) -> Self {
        Kernel {
            network,
            loads,
            workgroup: WORKGROUP,
            tiles: 1,
        }
    }
}

/// 16-byte loads per invocation (two words each) for the counting kernel, all in flight
/// before the first sort.
const LOADS_PER_THREAD: u32 = 4;
/// 16-byte loads per invocation for the network kernel: 2 loads with 16 tiles per workgroup
/// beat 1 load with 8 tiles and 2 loads with 1 tile at 2^28 words on an H200 (BENCHMARKS.md,
/// "GPU nibble sort").
const NETWORK_LOADS: u32 = 2;
/// The most tiles one workgroup of the network kernel loops over (next tile loaded while
/// the current one sorts): 16 tiles of 2 loads were the fastest of 1-64 tiles at 2^28 words
/// on an H200, 4% ahead of 1 tile (BENCHMARKS.md, "GPU nibble sort").
const NETWORK_MAX_TILES: u32 = 16;
/// The fewest workgroups the tile loop leaves a dispatch (fewer tiles per workgroup below
/// 16 x this many tiles), so that small sorts still spread over the whole GPU (an H200 holds
/// 132 x 8 workgroups of 256 at once). A rule, not measured below 2^28 words: 1 and 16
/// tiles per workgroup were within 4% of each other there.
const NETWORK_MIN_GROUPS: u32 = 4096;

/// The kernel the backends run: where the device has `shaderFloat16`, Green's network on
/// `f16vec2` lanes with half of its comparators as saturated adds (the FMA pipe) and half
/// as min/max (on an H200 at 2^28 words 74.6% of the copy kernel's bandwidth in the same
/// run, against 64.6% with min/max only, 71.8% with adds only and 20% for counting; the
/// network alone costs about as much as the memory traffic: BENCHMARKS.md, "GPU nibble
/// sort"), 2 loads per invocation and up to `NETWORK_MAX_TILES` tiles per workgroup; else
/// counting with tables. Software drivers count too: lavapipe emulates 16-bit floats and
/// ran the network 4-5x slower than counting (2^20 words). `pairs`: the 16-byte elements to
/// sort.
fn default_kernel(ctx: &GpuContext, pairs: u64) -> Kernel {
    if ctx.limits().shader_float16 && !ctx.is_software() {
        let k = clamped(ctx, Kernel::new(true, NETWORK_LOADS));
        let tiles = pairs.div_ceil(u64::from(k.workgroup * k.loads));
        let per_group = (tiles / u64::from(NETWORK_MIN_GROUPS)).clamp(1, NETWORK_MAX_TILES.into());
        // A power of two, so that few pipelines are built.
        Kernel {
            tiles: 1 << (63 - per_group.leading_zeros()),
            ..k
        }
    } else {
        Kernel::new(false, LOADS_PER_THREAD)
    }
}

/// Whether the device can run the nibble kernel (it needs 64-bit integers in shaders).
pub fn supported(ctx: &GpuContext) -> bool {
    ctx.limits().shader_int64
}

/// A pipeline per kernel configuration (after clamping) and its workgroup size, built once
/// per context (each context's device has its own pipelines).
pub(crate) type PipelineCache = Mutex<HashMap<Kernel, (Arc<ComputePipeline>, u32)>>;

/// The kernel with its loads, workgroup and tiles clamped to what the shader and the
/// device take.
fn clamped(ctx: &GpuContext, kernel: Kernel) -> Kernel {
    let l = ctx.limits();
    Kernel {
        loads: kernel.loads.clamp(1, 16),
        workgroup: kernel
            .workgroup
            .clamp(1, l.max_workgroup_invocations.min(l.max_workgroup_size_x)),
        tiles: kernel.tiles.clamp(1, 4096),
        ..kernel
    }
}

/// The pipeline and its workgroup size, built once per (clamped) configuration.
fn pipeline(ctx: &GpuContext, kernel: Kernel) -> Result<(Arc<ComputePipeline>, u32)> {
    if !supported(ctx) {
        return Err(Error::Unsupported {
            backend: "vulkan",
            workload: "nibbles on a device without shaderInt64".into(),
        });
    }
    let kernel = clamped(ctx, kernel);
    let mut cache = ctx
        .nibble_pipelines
        .lock()
        .map_err(|_| Error::Gpu("pipeline cache lock poisoned".into()))?;
    if let Some(p) = cache.get(&kernel) {
        return Ok(p.clone());
    }
    let size = kernel.workgroup;
    let code = if kernel.network {
        NETWORK_SPIRV
    } else {
        COUNTING_SPIRV
    };
    let p = ctx.compute_pipeline(code, &[(0, size), (1, kernel.loads), (2, kernel.tiles)])?;
    cache.insert(kernel, (p.clone(), size));
    Ok((p, size))
}

/// Records the nibble sort of every word of `words` (a caller-owned storage buffer) into
/// `builder`. No scratch memory is needed beyond a 16-byte buffer for odd lengths, which
/// this allocates from the context's pool.
pub fn record(
    ctx: &Arc<GpuContext>,
    builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    words: Subbuffer<[u64]>,
) -> Result<()> {
    let kernel = default_kernel(ctx, words.len().div_ceil(2));
    record_kernel(ctx, builder, words, kernel)
}

/// [`record`] with a kernel configuration.
fn record_kernel(
    ctx: &Arc<GpuContext>,
    builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    words: Subbuffer<[u64]>,
    kernel: Kernel,
) -> Result<()> {
    let n = words.len();
    if n == 0 {
        return Ok(());
    }
    let even = n & !1;
    // The odd last word goes through its own binding; with none, a small buffer of the
    // caller's command buffer's own (never touched by the shader) fills it.
    let tail = if n % 2 == 1 {
        words.clone().slice(even..n).reinterpret::<[u32]>()
    } else {
        ctx.buffer(Memory::Device, 16)?
            .detach()
            .reinterpret::<[u32]>()
    };
    let pairs = if even > 0 {
        words.slice(0..even).reinterpret::<[[u32; 4]]>()
    } else {
        // Nothing for the pair view (pair_count = 0): a dummy the shader never touches.
        ctx.buffer(Memory::Device, 16)?
            .detach()
            .reinterpret::<[[u32; 4]]>()
    };
    record_views(
        ctx,
        builder,
        pairs,
        (even / 2) as u32,
        tail,
        n % 2 == 1,
        kernel,
    )
}

fn record_views(
    ctx: &GpuContext,
    builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    pairs: Subbuffer<[[u32; 4]]>,
    pair_count: u32,
    tail: Subbuffer<[u32]>,
    has_tail: bool,
    kernel: Kernel,
) -> Result<()> {
    let (pipeline, size) = pipeline(ctx, kernel)?;
    let kernel = clamped(ctx, kernel);
    let layout = pipeline.layout().clone();
    let set = DescriptorSet::new(
        ctx.descriptor_set_allocator().clone(),
        layout.set_layouts()[0].clone(),
        [
            WriteDescriptorSet::buffer(0, pairs),
            WriteDescriptorSet::buffer(1, tail),
        ],
        [],
    )
    .map_err(gpu_err("creating the nibble descriptor set"))?;
    let tiles = pair_count.div_ceil(size * kernel.loads).max(1);
    let groups = tiles.div_ceil(kernel.tiles);
    let grid = plan::grid(groups, ctx.limits().max_workgroup_count);
    builder
        .bind_pipeline_compute(pipeline.clone())
        .map_err(gpu_err("binding the nibble pipeline"))?
        .bind_descriptor_sets(PipelineBindPoint::Compute, layout.clone(), 0, set)
        .map_err(gpu_err("binding the nibble buffers"))?
        .push_constants(layout, 0, [pair_count, has_tail as u32, grid[0]])
        .map_err(gpu_err("setting nibble parameters"))?;
    // SAFETY: the shader touches pairs[i] only for i < pair_count (the bound view holds
    // pair_count elements, or one dummy when it is 0) and tail[0] only when has_tail (the
    // tail view then holds the last word); the grid is within the device limits.
    unsafe { builder.dispatch(grid) }.map_err(gpu_err("dispatching the nibble sort"))?;
    Ok(())
}

/// Sorts the nibbles of every word of a host slice on the GPU: upload through staging
/// memory, sort, download. Slices larger than one storage buffer go in chunks, into a copy
/// first, so that on `Err` the slice is untouched.
pub(crate) fn sort_host(path: &HostPath, words: &mut [u64]) -> Result<()> {
    let ctx = path.ctx();
    if words.is_empty() {
        return Ok(());
    }
    pipeline(ctx, default_kernel(ctx, words.len().div_ceil(2) as u64))?;
    // Chunks of an even number of words that one storage buffer holds.
    let max_words = ((ctx.limits().max_storage_buffer_range / 8) & !1).max(2) as usize;
    if words.len() <= max_words {
        return sort_chunk(path, words);
    }
    let mut copy = words.to_vec();
    for chunk in copy.chunks_mut(max_words) {
        sort_chunk(path, chunk)?;
    }
    words.copy_from_slice(&copy);
    Ok(())
}

/// One upload, sort and download; the device buffer is padded to an even word count (the
/// pad word is sorted and never read back). Large slices stream: every piece is uploaded,
/// sorted and downloaded on its own while the host fills and empties the pieces around it
/// (`HostPath::stream_pieces`); words in a [`HostBuffer`](super::HostBuffer) need no host
/// copies, so they go up and down whole.
fn sort_chunk(path: &HostPath, words: &mut [u64]) -> Result<()> {
    let ctx = path.ctx();
    // Words inside a host buffer are copied by the GPU directly: no staging to stream.
    if !host_buffer::is_in_host_buffer(words) && path.streams(words.len() as u64 * 8) {
        return path.stream_pieces(words, |builder, piece| record(ctx, builder, piece));
    }
    let n = words.len() as u64;
    let padded = n.next_multiple_of(2);
    let host = HostSide::of(path, words)?;
    let device = path.buffer(Memory::Device, padded * 8)?;
    let mut builder = ctx.command_builder()?;
    builder
        .copy_buffer(CopyBufferInfo::buffers(
            host.view.clone(),
            device.slice::<u64>(n),
        ))
        .map_err(gpu_err("recording the upload"))?;
    let tail = path.buffer(Memory::Device, 16)?;
    record_views(
        ctx,
        &mut builder,
        device.slice::<[u32; 4]>(padded / 2),
        (padded / 2) as u32,
        tail.slice::<u32>(2),
        false,
        default_kernel(ctx, padded / 2),
    )?;
    builder
        .copy_buffer(CopyBufferInfo::buffers(
            device.slice::<u64>(n),
            host.view.clone(),
        ))
        .map_err(gpu_err("recording the download"))?;
    ctx.submit_and_wait(builder)?;
    host.finish(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::context::context;
    use crate::gpu::transfer::TransferConfig;
    use crate::nibble::tests::interesting_words;

    /// Runs `kernel` on the GPU over `words` (through a host path's staging buffer).
    fn run(ctx: &Arc<GpuContext>, words: &[u64], kernel: Kernel) -> Vec<u64> {
        let path = HostPath::new(ctx.clone(), TransferConfig::default());
        let n = words.len() as u64;
        let staging = path.stage_in(words).unwrap();
        let dev = path
            .buffer(Memory::Device, n * 8)
            .unwrap()
            .detach()
            .slice(0..n * 8)
            .reinterpret::<[u64]>();
        let mut b = ctx.command_builder().unwrap();
        b.copy_buffer(CopyBufferInfo::buffers(
            staging.slice::<u64>(n),
            dev.clone(),
        ))
        .unwrap();
        record_kernel(ctx, &mut b, dev.clone(), kernel).unwrap();
        b.copy_buffer(CopyBufferInfo::buffers(dev, staging.slice::<u64>(n)))
            .unwrap();
        ctx.submit_and_wait(b).unwrap();
        let got = staging.slice::<u64>(n).read().unwrap().to_vec();
        got
    }

    /// Both shipped kernels (counting, and the network where the device has 16-bit floats,
    /// which the backends never run on a software driver) at several loads per invocation,
    /// tiles per workgroup and workgroup sizes, at lengths that end inside a tile, inside a
    /// workgroup's share and past it.
    #[test]
    fn both_kernels_in_every_shape_match_the_reference() {
        // Without a device this skips; the integration tests fail on a missing device in CI.
        let Some(ctx) = context() else { return };
        if !supported(&ctx) {
            return;
        }
        let cases = interesting_words();
        let mut kernels = Vec::new();
        for network in [false, true] {
            if network && !ctx.limits().shader_float16 {
                eprintln!("no shaderFloat16: the network kernel is not tested here");
                continue;
            }
            for loads in [1, 2, 4] {
                kernels.push(Kernel::new(network, loads));
            }
            for (workgroup, tiles, loads) in [(64, 3, 2), (32, 5, 1), (96, 2, 2), (64, 4, 2)] {
                kernels.push(Kernel {
                    workgroup,
                    tiles,
                    ..Kernel::new(network, loads)
                });
            }
        }
        for kernel in kernels {
            for n in [1usize, 2, 7, 1025, 2 * 64 * 2 * 3 + 5, cases.len()] {
                let words = &cases[cases.len() - n..];
                let got = run(&ctx, words, kernel);
                for (i, (&g, &w)) in got.iter().zip(words).enumerate() {
                    assert_eq!(
                        g,
                        crate::nibble::reference(w),
                        "{kernel:?} n {n} word {i} input {w:#x}"
                    );
                }
            }
        }
    }
}
