//! A Vulkan application that owns its device sorts its own GPU data with sortnet: it makes its
//! own instance, device and queue (no sortnet context), its own compute pass writes
//! (16-bit depth, index) pairs and their count, as a splatting renderer's culling pass would,
//! and sortnet records the sort by those 16 bits into the application's command buffer, right
//! after that pass, with the count read on the GPU. The application submits on its own queue
//! and checks the result.
//!
//! ```text
//! cargo run --release --example gpu_app
//! ```
//!
//! Without a Vulkan device it says so and exits successfully, unless
//! `SORTNET_REQUIRE_GPU=1` is set (as in CI), where that is an error.

use std::sync::Arc;

use sortnet::gpu::context::GpuContext;
use sortnet::gpu::radix::{Count, RadixSorter, SortJob};
// The vulkano version sortnet is built with, so that the buffers' types match.
use sortnet::gpu::vulkano;
use sortnet::{KeyMap, KeyWidth};
use vulkano::buffer::{Buffer, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::allocator::StandardCommandBufferAllocator;
use vulkano::command_buffer::{AutoCommandBufferBuilder, CommandBufferUsage};
use vulkano::descriptor_set::allocator::StandardDescriptorSetAllocator;
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::device::{Device, DeviceCreateInfo, Queue, QueueCreateInfo, QueueFlags};
use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter, StandardMemoryAllocator};
use vulkano::pipeline::compute::ComputePipelineCreateInfo;
use vulkano::pipeline::layout::PipelineDescriptorSetLayoutCreateInfo;
use vulkano::pipeline::{
    ComputePipeline, Pipeline, PipelineBindPoint, PipelineLayout, PipelineShaderStageCreateInfo,
};
use vulkano::shader::{ShaderModule, ShaderModuleCreateInfo};
use vulkano::sync::GpuFuture;
use vulkano::VulkanLibrary;

type AnyError = Box<dyn std::error::Error>;

/// The application's own device and compute queue, as any vulkano application makes them.
fn my_queue() -> Option<Arc<Queue>> {
    let instance = Instance::new(
        VulkanLibrary::new().ok()?,
        InstanceCreateInfo {
            flags: InstanceCreateFlags::ENUMERATE_PORTABILITY,
            ..Default::default()
        },
    )
    .ok()?;
    let (physical, family) = instance.enumerate_physical_devices().ok()?.find_map(|p| {
        let family = p
            .queue_family_properties()
            .iter()
            .position(|q| q.queue_flags.intersects(QueueFlags::COMPUTE))?;
        Some((p, family as u32))
    })?;
    let (_device, mut queues) = Device::new(
        physical,
        DeviceCreateInfo {
            queue_create_infos: vec![QueueCreateInfo {
                queue_family_index: family,
                ..Default::default()
            }],
            ..Default::default()
        },
    )
    .ok()?;
    queues.next()
}

/// The application's pass that writes the pairs and their count
/// (shaders/app_depth_pairs.comp).
fn my_pipeline(device: &Arc<Device>) -> Result<Arc<ComputePipeline>, AnyError> {
    let bytes = include_bytes!("../shaders/spv/app_depth_pairs.spv");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // SAFETY: SPIR-V compiled by glslc from shaders/app_depth_pairs.comp; vulkano checks the
    // module's structure.
    let module = unsafe { ShaderModule::new(device.clone(), ShaderModuleCreateInfo::new(&words)) }?;
    let stage = PipelineShaderStageCreateInfo::new(module.entry_point("main").ok_or("no main")?);
    let layout = PipelineLayout::new(
        device.clone(),
        PipelineDescriptorSetLayoutCreateInfo::from_stages([&stage])
            .into_pipeline_layout_create_info(device.clone())?,
    )?;
    Ok(ComputePipeline::new(
        device.clone(),
        None,
        ComputePipelineCreateInfo::stage_layout(stage, layout),
    )?)
}

/// The host's copy of the shader's hash, to check the result.
fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

fn main() -> Result<(), AnyError> {
    let Some(queue) = my_queue() else {
        if std::env::var("SORTNET_REQUIRE_GPU").is_ok_and(|v| v == "1") {
            return Err("SORTNET_REQUIRE_GPU=1 but no Vulkan device is usable".into());
        }
        println!("no Vulkan device here: nothing to sort");
        return Ok(());
    };
    let device = queue.device().clone();
    let memory = Arc::new(StandardMemoryAllocator::new_default(device.clone()));
    let commands = Arc::new(StandardCommandBufferAllocator::new(
        device.clone(),
        Default::default(),
    ));
    let sets = Arc::new(StandardDescriptorSetAllocator::new(
        device.clone(),
        Default::default(),
    ));

    // Once, at start-up: sortnet on the application's queue, its pipelines and scratch.
    let splats: u32 = 200_000;
    let ctx = GpuContext::from_queue(queue.clone())?;
    println!("device: {}", ctx.status());
    let sorter = RadixSorter::new(ctx)?;
    let scratch = sorter.new_scratch(KeyWidth::W32, true, u64::from(splats))?;

    let buffer = |len: u32| -> Result<Subbuffer<[u32]>, AnyError> {
        Ok(Buffer::new_slice(
            memory.clone(),
            BufferCreateInfo {
                // The sort needs storage usage only; the transfer destination is for the
                // count's reset each frame (`fill_buffer`).
                usage: BufferUsage::STORAGE_BUFFER | BufferUsage::TRANSFER_DST,
                ..Default::default()
            },
            AllocationCreateInfo {
                memory_type_filter: MemoryTypeFilter::PREFER_DEVICE
                    | MemoryTypeFilter::HOST_RANDOM_ACCESS,
                ..Default::default()
            },
            u64::from(len),
        )?)
    };
    let (keys, values, count) = (buffer(splats)?, buffer(splats)?, buffer(1)?);
    let pipeline = my_pipeline(&device)?;
    let set = DescriptorSet::new(
        sets,
        pipeline.layout().set_layouts()[0].clone(),
        [
            WriteDescriptorSet::buffer(0, keys.clone()),
            WriteDescriptorSet::buffer(1, values.clone()),
            WriteDescriptorSet::buffer(2, count.clone()),
        ],
        [],
    )?;

    // Each frame: the application's pass, then the sort, in one command buffer. vulkano puts
    // the barrier between the pass's writes and the sort's reads.
    let seed = 2024u32;
    let mut frame = AutoCommandBufferBuilder::primary(
        commands,
        queue.queue_family_index(),
        CommandBufferUsage::OneTimeSubmit,
    )?;
    frame.fill_buffer(count.clone(), 0)?;
    frame
        .bind_pipeline_compute(pipeline.clone())?
        .bind_descriptor_sets(
            PipelineBindPoint::Compute,
            pipeline.layout().clone(),
            0,
            set,
        )?
        .push_constants(pipeline.layout().clone(), 0, [splats, seed])?;
    // SAFETY: the shader writes pairs below the count it appends to, at most `splats`, the
    // buffers' length.
    unsafe { frame.dispatch([splats.div_ceil(64), 1, 1]) }?;
    let job = SortJob {
        keys: keys.clone(),
        values: Some(values.clone()),
        width: KeyWidth::W32,
        map: KeyMap::Unsigned,
        count: Count::Buffer(count.clone().index(0)), // written by the pass above
        key_bits: Some(16),                           // the depth; the high bits ride along
    };
    sorter.record(&mut frame, &job, &scratch)?;
    vulkano::sync::now(device.clone())
        .then_execute(queue.clone(), frame.build()?)?
        .then_signal_fence_and_flush()?
        .wait(None)?;

    // Check: the kept splats, each once, in depth order.
    let n = count.read()?[0] as usize;
    let (keys, values) = (keys.read()?, values.read()?);
    let kept = (0..splats).filter(|&i| hash(i ^ seed) & 3 != 0).count();
    if n != kept {
        return Err(format!("the pass kept {n} splats, the host expects {kept}").into());
    }
    let mut seen = vec![false; splats as usize];
    for at in 0..n {
        let (key, i) = (keys[at], values[at]);
        let depth = (hash(i ^ seed) >> 8) & 0xFFFF;
        if key != (i << 16 | depth) || std::mem::replace(&mut seen[i as usize], true) {
            return Err(format!("pair {at} ({key:#x}, {i}) is not a kept splat's").into());
        }
        if at > 0 && keys[at - 1] & 0xFFFF > depth {
            return Err(format!("pairs {} and {at} are out of depth order", at - 1).into());
        }
    }
    println!("{n} of {splats} splats sorted by their 16-bit depth on the application's device");
    Ok(())
}
