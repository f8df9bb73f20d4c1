//! How many workgroups of a given shared-memory size one multiprocessor runs at once under
//! Vulkan: the probe behind BENCHMARKS.md's "GPU radix sort" note on shared memory.
//!
//! ```text
//! cargo bench --bench gpu_smem_probe -- [--workgroups N] [--spin-us T] [KIB..]
//! ```
//!
//! Each workgroup of 64 invocations (`shaders/smem_probe.comp`) holds KIB KiB of shared memory
//! (0: one word; default sizes 0 8 16 24 32 40 48), records the multiprocessor it runs on
//! (`GL_NV_shader_sm_builtins`) and the device clock (`GL_EXT_shader_realtime_clock`) when it
//! starts and ends, and spins for T µs between (default 50); the host counts, per
//! multiprocessor, the most workgroups whose spans overlap. Sizes above the device's
//! `maxComputeSharedMemorySize` are skipped. It needs VK_NV_shader_sm_builtins and
//! VK_KHR_shader_clock with their features (NVIDIA's driver); elsewhere it says which is
//! missing and measures nothing.

use std::sync::Arc;

use sortnet::gpu::vulkano;
use vulkano::buffer::{Buffer, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::allocator::StandardCommandBufferAllocator;
use vulkano::command_buffer::{AutoCommandBufferBuilder, CommandBufferUsage};
use vulkano::descriptor_set::allocator::StandardDescriptorSetAllocator;
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::device::physical::PhysicalDevice;
use vulkano::device::{
    Device, DeviceCreateInfo, DeviceExtensions, DeviceFeatures, Queue, QueueCreateInfo, QueueFlags,
};
use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter, StandardMemoryAllocator};
use vulkano::pipeline::compute::ComputePipelineCreateInfo;
use vulkano::pipeline::layout::PipelineDescriptorSetLayoutCreateInfo;
use vulkano::pipeline::{
    ComputePipeline, Pipeline, PipelineBindPoint, PipelineLayout, PipelineShaderStageCreateInfo,
};
use vulkano::query::{QueryPool, QueryPoolCreateInfo, QueryResultFlags, QueryType};
use vulkano::shader::{ShaderModule, ShaderModuleCreateInfo, SpecializationConstant};
use vulkano::sync::{GpuFuture, PipelineStage};
use vulkano::VulkanLibrary;

type AnyError = Box<dyn std::error::Error>;

const SPIRV: &[u8] = include_bytes!("../shaders/spv/smem_probe.spv");

/// Invocations per workgroup (the shader's `local_size_x`).
const INVOCATIONS: u32 = 64;

/// CUDA's rule on Hopper, the figure the probe is compared with: 228 KiB of shared memory per
/// multiprocessor, 1 KiB of it reserved per block, at most 32 blocks and 2048 threads.
fn cuda_blocks_per_sm(kib: u32) -> u32 {
    let by_memory = if kib == 0 { u32::MAX } else { 228 / (kib + 1) };
    by_memory.min(32).min(2048 / INVOCATIONS)
}

struct Args {
    sizes_kib: Vec<u32>,
    workgroups: u32,
    spin_us: u32,
}

fn usage() -> ! {
    eprintln!(
        "usage: cargo bench --bench gpu_smem_probe -- [--workgroups N] [--spin-us T] [KIB..]"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let mut a = Args {
        sizes_kib: Vec::new(),
        workgroups: 16384,
        spin_us: 50,
    };
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| usage())
        };
        match arg.as_str() {
            "--workgroups" => a.workgroups = value(),
            "--spin-us" => a.spin_us = value(),
            s => a.sizes_kib.push(s.parse().unwrap_or_else(|_| usage())),
        }
    }
    if a.sizes_kib.is_empty() {
        a.sizes_kib = vec![0, 8, 16, 24, 32, 40, 48];
    }
    a
}

/// What the probe needs that `physical` lacks (empty: nothing).
fn missing(physical: &PhysicalDevice) -> Vec<&'static str> {
    let (ext, feat) = (
        physical.supported_extensions(),
        physical.supported_features(),
    );
    let mut out = Vec::new();
    if !ext.nv_shader_sm_builtins {
        out.push("the extension VK_NV_shader_sm_builtins");
    } else if !feat.shader_sm_builtins {
        out.push("the feature shaderSMBuiltins");
    }
    if !ext.khr_shader_clock {
        out.push("the extension VK_KHR_shader_clock");
    } else if !feat.shader_device_clock {
        out.push("the feature shaderDeviceClock");
    }
    out
}

/// A device with the probe's extensions and a compute queue; `Ok(None)` (having said why)
/// where no device has them.
fn probe_queue() -> Result<Option<Arc<Queue>>, AnyError> {
    let Ok(library) = VulkanLibrary::new() else {
        println!("no Vulkan loader: nothing to measure");
        return Ok(None);
    };
    let instance = Instance::new(
        library,
        InstanceCreateInfo {
            flags: InstanceCreateFlags::ENUMERATE_PORTABILITY,
            ..Default::default()
        },
    )?;
    let mut chosen = None;
    for physical in instance.enumerate_physical_devices()? {
        let name = physical.properties().device_name.clone();
        let Some(family) = physical
            .queue_family_properties()
            .iter()
            .position(|q| q.queue_flags.intersects(QueueFlags::COMPUTE))
        else {
            continue;
        };
        let lacks = missing(&physical);
        if lacks.is_empty() {
            chosen = Some((physical, family as u32));
            break;
        }
        println!(
            "{name}: no {}: the probe cannot run there",
            lacks.join(", no ")
        );
    }
    let Some((physical, family)) = chosen else {
        println!("no Vulkan device exposes the SM id and the device clock: nothing to measure");
        return Ok(None);
    };
    let (_device, mut queues) = Device::new(
        physical,
        DeviceCreateInfo {
            queue_create_infos: vec![QueueCreateInfo {
                queue_family_index: family,
                ..Default::default()
            }],
            enabled_extensions: DeviceExtensions {
                nv_shader_sm_builtins: true,
                khr_shader_clock: true,
                ..Default::default()
            },
            enabled_features: DeviceFeatures {
                shader_sm_builtins: true,
                shader_device_clock: true,
                ..Default::default()
            },
            ..Default::default()
        },
    )?;
    Ok(queues.next())
}

fn pipeline(device: &Arc<Device>, words: u32) -> Result<Arc<ComputePipeline>, AnyError> {
    let code: Vec<u32> = SPIRV
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // SAFETY: SPIR-V compiled by glslc from shaders/smem_probe.comp (checked against its source
    // by tests/gpu_shaders.rs); vulkano checks the module's structure and capabilities.
    let module = unsafe { ShaderModule::new(device.clone(), ShaderModuleCreateInfo::new(&code)) }?;
    let entry = module
        .specialize(
            [(0, SpecializationConstant::U32(words))]
                .into_iter()
                .collect(),
        )?
        .entry_point("main")
        .ok_or("the probe's shader has no main")?;
    let stage = PipelineShaderStageCreateInfo::new(entry);
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

/// One workgroup's record: where it ran and its span in device clock ticks.
#[derive(Clone, Copy)]
struct Span {
    sm: u32,
    start: u64,
    end: u64,
}

/// The most spans of one multiprocessor that overlap at one time (spans that only touch do
/// not overlap).
fn most_at_once(spans: &[Span]) -> u32 {
    let mut events: Vec<(u64, i32)> = spans
        .iter()
        .flat_map(|s| [(s.start, 1), (s.end, -1)])
        .collect();
    // Ends before starts at the same tick.
    events.sort_unstable();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in events {
        now += d;
        most = most.max(now);
    }
    most as u32
}

struct Run {
    spans: Vec<Span>,
    sm_count: u32,
    /// GPU nanoseconds of the dispatch, between two timestamps.
    gpu_ns: f64,
}

struct Probe {
    queue: Arc<Queue>,
    commands: Arc<StandardCommandBufferAllocator>,
    sets: Arc<StandardDescriptorSetAllocator>,
    records: Subbuffer<[[u32; 4]]>,
    timestamps: Arc<QueryPool>,
    period_ns: f64,
}

impl Probe {
    fn run(&self, words: u32, workgroups: u32, spin_ticks: u32) -> Result<Run, AnyError> {
        let device = self.queue.device();
        let pipeline = pipeline(device, words)?;
        let set = DescriptorSet::new(
            self.sets.clone(),
            pipeline.layout().set_layouts()[0].clone(),
            [WriteDescriptorSet::buffer(0, self.records.clone())],
            [],
        )?;
        let mut b = AutoCommandBufferBuilder::primary(
            self.commands.clone(),
            self.queue.queue_family_index(),
            CommandBufferUsage::OneTimeSubmit,
        )?;
        b.bind_pipeline_compute(pipeline.clone())?
            .bind_descriptor_sets(
                PipelineBindPoint::Compute,
                pipeline.layout().clone(),
                0,
                set,
            )?
            .push_constants(pipeline.layout().clone(), 0, [spin_ticks, 0x9E37_79B9u32])?;
        // SAFETY: the pool's two queries belong to this command buffer alone, which is waited
        // for before they are read or written again; they are reset before being written.
        unsafe {
            b.reset_query_pool(self.timestamps.clone(), 0..2)?;
            b.write_timestamp(self.timestamps.clone(), 0, PipelineStage::AllCommands)?;
        }
        // SAFETY: workgroup `g` writes records 2g and 2g + 1 only, and the buffer holds two
        // records for each of the `workgroups` workgroups.
        unsafe { b.dispatch([workgroups, 1, 1]) }?;
        // SAFETY: as for the first timestamp.
        unsafe {
            b.write_timestamp(self.timestamps.clone(), 1, PipelineStage::AllCommands)?;
        }
        vulkano::sync::now(device.clone())
            .then_execute(self.queue.clone(), b.build()?)?
            .then_signal_fence_and_flush()?
            .wait(None)?;
        let mut ticks = [0u64; 2];
        self.timestamps
            .get_results(0..2, &mut ticks, QueryResultFlags::WAIT)?;
        let records = self.records.read()?;
        let word = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
        let spans = records[..2 * workgroups as usize]
            .chunks_exact(2)
            .map(|r| Span {
                sm: r[0][0],
                start: word(r[0][2], r[0][3]),
                end: word(r[1][0], r[1][1]),
            })
            .collect();
        Ok(Run {
            spans,
            sm_count: records[0][1],
            gpu_ns: ticks[1].wrapping_sub(ticks[0]) as f64 * self.period_ns,
        })
    }
}

fn main() -> Result<(), AnyError> {
    let args = parse();
    let Some(queue) = probe_queue()? else {
        return Ok(());
    };
    let device = queue.device().clone();
    let props = device.physical_device().properties();
    let max_shared = props.max_compute_shared_memory_size;
    println!(
        "device: {}, {} {}; maxComputeSharedMemorySize {max_shared} B; {} SMs, {} warps per SM",
        props.device_name,
        props.driver_name.as_deref().unwrap_or("driver"),
        props.driver_info.as_deref().unwrap_or(""),
        props.shader_sm_count.unwrap_or(0),
        props.shader_warps_per_sm.unwrap_or(0),
    );
    let memory = Arc::new(StandardMemoryAllocator::new_default(device.clone()));
    let records = Buffer::new_slice::<[u32; 4]>(
        memory,
        BufferCreateInfo {
            usage: BufferUsage::STORAGE_BUFFER,
            ..Default::default()
        },
        AllocationCreateInfo {
            memory_type_filter: MemoryTypeFilter::PREFER_HOST
                | MemoryTypeFilter::HOST_RANDOM_ACCESS,
            ..Default::default()
        },
        2 * u64::from(args.workgroups),
    )?;
    let probe = Probe {
        commands: Arc::new(StandardCommandBufferAllocator::new(
            device.clone(),
            Default::default(),
        )),
        sets: Arc::new(StandardDescriptorSetAllocator::new(
            device.clone(),
            Default::default(),
        )),
        records,
        timestamps: QueryPool::new(
            device.clone(),
            QueryPoolCreateInfo {
                query_count: 2,
                ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
            },
        )?,
        period_ns: f64::from(props.timestamp_period),
        queue,
    };
    // The realtime clock counts nanoseconds on NVIDIA; the table gives the ratio to the
    // timestamps' nanoseconds so that another unit shows.
    let spin_ticks = args.spin_us * 1000;
    println!(
        "{} workgroups of {INVOCATIONS} invocations, each spinning {spin_ticks} clock ticks",
        args.workgroups
    );
    println!(
        "| shared KiB | workgroups per SM at once: most / fewest over SMs | SMs seen | CUDA's rule \
         (228 KiB) | KiB per SM at once | waves | clock ticks per ns |"
    );
    println!("|---|---|---|---|---|---|---|");
    for &kib in &args.sizes_kib {
        let bytes = (kib * 1024).max(4);
        if bytes > max_shared {
            println!("| {kib} | over maxComputeSharedMemorySize: skipped | | | | | |");
            continue;
        }
        // A first run brings the clocks up and compiles the pipeline's code.
        probe.run(bytes / 4, args.workgroups, spin_ticks)?;
        let run = probe.run(bytes / 4, args.workgroups, spin_ticks)?;
        let mut per_sm: Vec<Vec<Span>> = vec![Vec::new(); run.sm_count.max(1) as usize];
        for s in &run.spans {
            if let Some(v) = per_sm.get_mut(s.sm as usize) {
                v.push(*s);
            }
        }
        let counts: Vec<u32> = per_sm
            .iter()
            .filter(|v| !v.is_empty())
            .map(|v| most_at_once(v))
            .collect();
        let (most, fewest) = (
            counts.iter().copied().max().unwrap_or(0),
            counts.iter().copied().min().unwrap_or(0),
        );
        let first = run.spans.iter().map(|s| s.start).min().unwrap_or(0);
        let last = run.spans.iter().map(|s| s.end).max().unwrap_or(0);
        println!(
            "| {kib} | {most} / {fewest} | {} of {} | {} | {} | {:.1} | {:.3} |",
            counts.len(),
            run.sm_count,
            cuda_blocks_per_sm(kib),
            most * kib,
            (last - first) as f64 / f64::from(spin_ticks),
            (last - first) as f64 / run.gpu_ns,
        );
    }
    Ok(())
}
