//! A plain device-to-device copy kernel (16 bytes per load and store): the bandwidth
//! yardstick the GPU benchmarks set the sorts against (BENCHMARKS.md, "GPU nibble sort").

use std::sync::{Arc, OnceLock};

use vulkano::buffer::Subbuffer;
use vulkano::command_buffer::{AutoCommandBufferBuilder, PrimaryAutoCommandBuffer};
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
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
