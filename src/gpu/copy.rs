//! A plain device-to-device copy kernel (16 bytes per load and store): the bandwidth
//! yardstick the GPU benchmarks set the sorts against, and the context's smoke test.

use std::sync::{Arc, OnceLock};

use vulkano::buffer::{Buffer, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::{AutoCommandBufferBuilder, PrimaryAutoCommandBuffer};
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter};
use vulkano::pipeline::{ComputePipeline, Pipeline, PipelineBindPoint};

use super::context::{gpu_err, GpuContext};
use super::plan;
use crate::error::{Error, Result};

const SPIRV: &[u8] = include_bytes!("../../shaders/spv/copy.spv");

/// Threads per workgroup of the copy kernel.
const WORKGROUP: u32 = 256;

/// The copy pipeline and its workgroup size, built once.
fn pipeline(ctx: &GpuContext) -> Result<(Arc<ComputePipeline>, u32)> {
    static PIPELINE: OnceLock<(Arc<ComputePipeline>, u32)> = OnceLock::new();
    if let Some(p) = PIPELINE.get() {
        return Ok(p.clone());
    }
    let size = workgroup_size(ctx);
    let p = ctx.compute_pipeline(SPIRV, &[(0, size)])?;
    Ok(PIPELINE.get_or_init(|| (p, size)).clone())
}

/// [`WORKGROUP`], or less where the device allows less.
fn workgroup_size(ctx: &GpuContext) -> u32 {
    WORKGROUP
        .min(ctx.limits().max_workgroup_invocations)
        .min(ctx.limits().max_workgroup_size_x)
}

/// Binds `pipeline` with a descriptor set of `buffers` (binding i: buffer i) into `builder`.
fn bind_buffers(
    ctx: &GpuContext,
    builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    pipeline: &Arc<ComputePipeline>,
    buffers: Vec<Subbuffer<[u32]>>,
) -> Result<()> {
    let layout = pipeline.layout().clone();
    let writes = buffers
        .into_iter()
        .enumerate()
        .map(|(i, b)| WriteDescriptorSet::buffer(i as u32, b));
    let set = DescriptorSet::new(
        ctx.descriptor_set_allocator().clone(),
        layout.set_layouts()[0].clone(),
        writes,
        [],
    )
    .map_err(gpu_err("creating a copy descriptor set"))?;
    builder
        .bind_pipeline_compute(pipeline.clone())
        .map_err(gpu_err("binding a copy pipeline"))?
        .bind_descriptor_sets(PipelineBindPoint::Compute, layout, 0, set)
        .map_err(gpu_err("binding copy buffers"))?;
    Ok(())
}

/// Records a copy of `src` into `dst` (same length, a multiple of 4 words) into `builder`.
pub fn record_copy(
    ctx: &GpuContext,
    builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    src: Subbuffer<[u32]>,
    dst: Subbuffer<[u32]>,
) -> Result<()> {
    if src.len() != dst.len() || !src.len().is_multiple_of(4) {
        return Err(Error::Gpu(
            "copy needs equal lengths that are a multiple of 4 words".into(),
        ));
    }
    let (pipeline, size) = pipeline(ctx)?;
    let count = (src.len() / 4) as u32;
    let grid = plan::grid(count.div_ceil(size), ctx.limits().max_workgroup_count);
    bind_buffers(ctx, builder, &pipeline, vec![src, dst])?;
    builder
        .push_constants(pipeline.layout().clone(), 0, [count, grid[0]])
        .map_err(gpu_err("setting copy parameters"))?;
    // SAFETY: the shader reads src[i] and writes dst[i] only for i < count, and both buffers
    // hold count * 4 words (checked above); the grid covers count.div_ceil(size) workgroups
    // and the shader drops those past the end.
    unsafe { builder.dispatch(grid) }.map_err(gpu_err("dispatching the copy"))?;
    Ok(())
}

const GATHER_SPIRV: &[u8] = include_bytes!("../../shaders/spv/gather.spv");

/// Words each workgroup of the gather kernel copies.
const GATHER_CHUNK: u32 = 4096;

/// A run of words for [`record_gather`]: from `src_word` in the source buffer, `words` of
/// them, to `dst_word` in the destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub src_word: u32,
    pub dst_word: u32,
    pub words: u32,
}

/// Records copies of `runs` from `src` into `dst` into `builder`, on the SMs (a compute
/// kernel, `shaders/gather.comp`) rather than as a transfer command, which NVIDIA runs on a
/// copy engine at a small fraction of the memory bandwidth. Runs must lie inside both
/// buffers and must not overlap in `dst`.
pub fn record_gather(
    ctx: &GpuContext,
    builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    src: Subbuffer<[u32]>,
    dst: Subbuffer<[u32]>,
    runs: &[Run],
) -> Result<()> {
    let fits = |at: u32, words: u32, len: u64| u64::from(at) + u64::from(words) <= len;
    if runs
        .iter()
        .any(|r| !fits(r.src_word, r.words, src.len()) || !fits(r.dst_word, r.words, dst.len()))
    {
        return Err(Error::Gpu("a gather run reaches past its buffers".into()));
    }
    let chunks = runs
        .iter()
        .map(|r| r.words.div_ceil(GATHER_CHUNK))
        .max()
        .unwrap_or(0);
    if chunks == 0 {
        return Ok(());
    }
    let limits = ctx.limits();
    if runs.len() as u64 > u64::from(limits.max_workgroup_count[1])
        || chunks > limits.max_workgroup_count[0]
    {
        return Err(Error::Gpu(format!(
            "a gather of {} runs of up to {chunks} chunks exceeds the dispatch limits",
            runs.len()
        )));
    }
    static PIPELINE: OnceLock<Arc<ComputePipeline>> = OnceLock::new();
    let pipeline = match PIPELINE.get() {
        Some(p) => p.clone(),
        None => {
            let size = workgroup_size(ctx);
            let p = ctx.compute_pipeline(GATHER_SPIRV, &[(0, size), (1, GATHER_CHUNK)])?;
            PIPELINE.get_or_init(|| p).clone()
        }
    };
    let table = Buffer::from_iter(
        ctx.memory_allocator().clone(),
        BufferCreateInfo {
            usage: BufferUsage::STORAGE_BUFFER,
            ..Default::default()
        },
        AllocationCreateInfo {
            memory_type_filter: MemoryTypeFilter::PREFER_HOST
                | MemoryTypeFilter::HOST_SEQUENTIAL_WRITE,
            ..Default::default()
        },
        runs.iter().map(|r| [r.src_word, r.dst_word, r.words, 0]),
    )
    .map_err(gpu_err("allocating the gather runs"))?;
    bind_buffers(ctx, builder, &pipeline, vec![src, dst, table.reinterpret()])?;
    // SAFETY: workgroup (x, y) copies words [x * CHUNK, min((x + 1) * CHUNK, words)) of run y,
    // which lie inside both buffers (checked above); workgroups past a run's end do nothing.
    unsafe { builder.dispatch([chunks, runs.len() as u32, 1]) }
        .map_err(gpu_err("dispatching the gather"))?;
    Ok(())
}
