//! The one Vulkan context every GPU backend shares: device choice, queue, allocators, limits,
//! a pool of reusable buffers, and the helpers that turn committed SPIR-V into compute
//! pipelines.
//!
//! [`context()`] creates it lazily, once per process, and hands out the same
//! `Arc<GpuContext>` to every thread (`GpuContext` is `Send + Sync`; vulkano's queue and
//! allocators lock internally). It returns `None`, never panics, when there is no Vulkan
//! loader (`libvulkan.so.1` missing), no device with a compute queue, or device creation
//! fails; `SORTNET_NO_GPU=1` is handled by the registry before this is reached.
//!
//! Device choice: a discrete GPU, else an integrated one, else a virtual one, else a CPU
//! (software) driver such as lavapipe. Backends on a software driver report
//! `Device::Gpu { software: true }` and `auto` never picks them.
//!
//! Queues: the compute queue, and where the device has one, a queue of a transfer-only
//! family (the copy engines) for the streamed host path's uploads and downloads
//! ([`HostStream`]), so that a download runs beside the next compute work (on one queue
//! NVIDIA ran them one after the other). Pooled buffers are then shared by both families.
//!
//! Memory cap: `SORTNET_GPU_MEMORY_CAP=<bytes>` (suffixes `k`, `m`, `g` accepted, powers of
//! 1024) limits the device memory the crate allocates through [`GpuContext::buffer`]; an
//! allocation over the cap fails with [`Error::Gpu`] before touching Vulkan, so failure paths
//! can be tested on any device. The variable is read once, when the context is created.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use bytemuck::Pod;
use rayon::prelude::*;

use vulkano::buffer::{Buffer, BufferContents, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::allocator::StandardCommandBufferAllocator;
use vulkano::command_buffer::{
    AutoCommandBufferBuilder, CommandBufferUsage, CopyBufferInfo, PrimaryAutoCommandBuffer,
};
use vulkano::descriptor_set::allocator::StandardDescriptorSetAllocator;
use vulkano::device::physical::{PhysicalDevice, PhysicalDeviceType};
use vulkano::device::{
    Device, DeviceCreateInfo, DeviceFeatures, Queue, QueueCreateInfo, QueueFlags,
};
use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter, StandardMemoryAllocator};
use vulkano::memory::{MemoryHeapFlags, MemoryPropertyFlags};
use vulkano::pipeline::compute::ComputePipelineCreateInfo;
use vulkano::pipeline::layout::PipelineDescriptorSetLayoutCreateInfo;
use vulkano::pipeline::{ComputePipeline, PipelineLayout, PipelineShaderStageCreateInfo};
use vulkano::query::{QueryPool, QueryPoolCreateInfo, QueryResultFlags, QueryType};
use vulkano::shader::{ShaderModule, ShaderModuleCreateInfo, SpecializationConstant};
use vulkano::sync::future::FenceSignalFuture;
use vulkano::sync::{GpuFuture, PipelineStage};
use vulkano::{DeviceSize, VulkanLibrary};

use crate::error::{Error, Result};

/// The shared context, created on first use; `None` when no Vulkan device is usable here.
pub fn context() -> Option<Arc<GpuContext>> {
    static CONTEXT: OnceLock<Option<Arc<GpuContext>>> = OnceLock::new();
    CONTEXT
        .get_or_init(|| GpuContext::new().map(Arc::new).ok())
        .clone()
}

/// Maps any vulkano error to [`Error::Gpu`], saying what was being done.
pub(crate) fn gpu_err<E: std::fmt::Display>(what: &'static str) -> impl FnOnce(E) -> Error {
    move |e| Error::Gpu(format!("{what}: {e}"))
}

/// The device limits the GPU code sizes its work from (never assumed, always read).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Lanes per subgroup (lavapipe 8, NVIDIA 32, AMD 64); `None` on Vulkan 1.0 drivers.
    pub subgroup_size: Option<u32>,
    /// `maxComputeSharedMemorySize` in bytes.
    pub max_shared_memory: u32,
    /// `maxComputeWorkGroupInvocations`.
    pub max_workgroup_invocations: u32,
    /// `maxComputeWorkGroupSize[0]`.
    pub max_workgroup_size_x: u32,
    /// `maxComputeWorkGroupCount[0]` and `[1]`.
    pub max_workgroup_count: [u32; 2],
    /// `maxStorageBufferRange`: the largest storage buffer a shader may bind, in bytes.
    pub max_storage_buffer_range: u64,
    /// The largest single allocation (`maxMemoryAllocationSize`, Vulkan 1.1), in bytes.
    pub max_allocation: u64,
    /// Nanoseconds per timestamp tick; `None` if the compute queue has no timestamps.
    pub timestamp_period_ns: Option<f64>,
    /// The device supports 64-bit integers in shaders (`shaderInt64`, enabled if present).
    pub shader_int64: bool,
    /// 16-bit floats in shader arithmetic (`shaderFloat16`, Vulkan 1.2; enabled if present).
    pub shader_float16: bool,
    /// 16-bit integers in shaders (`shaderInt16`, enabled if present).
    pub shader_int16: bool,
    /// Sizes of the device-local memory heaps, in bytes.
    pub device_local_heaps: Vec<u64>,
    /// Sizes of the other (host) memory heaps, in bytes.
    pub host_heaps: Vec<u64>,
}

impl Limits {
    /// The largest storage buffer the crate binds: `maxStorageBufferRange`, the allocation
    /// limit and the memory cap, whichever is least.
    pub fn max_buffer_bytes(&self, cap: Option<u64>) -> u64 {
        let mut max = self.max_storage_buffer_range.min(self.max_allocation);
        if let Some(cap) = cap {
            max = max.min(cap);
        }
        max
    }
}

/// Which memory a pooled buffer lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Memory {
    /// Device-local storage buffer, also a transfer source and destination.
    Device,
    /// Host-visible, host-cached staging buffer for uploads and downloads.
    Staging,
}

/// Free pooled buffers by memory kind and size class (a power of two, in bytes).
type FreeBuffers = HashMap<(Memory, u64), Vec<Subbuffer<[u8]>>>;

/// The shared Vulkan state. Get it from [`context()`].
pub struct GpuContext {
    device: Arc<Device>,
    queue: Arc<Queue>,
    /// A queue of a transfer-only family (the copy engines) with timestamps, which carries
    /// the uploads and downloads of streamed host transfers so that they run beside the
    /// compute queue's work; `None` where the device has no such family or
    /// `SORTNET_GPU_TRANSFER_QUEUE=0` (then the compute queue carries them).
    /// On the H200 a download on the compute queue held back the next submission's compute
    /// work until it finished (no overlap at all), and moved about 27 GB/s against 48 on the
    /// transfer queue beside host copies (SORTNET_GPU_STREAM_TRACE, BENCHMARKS.md (GPU keys overlapping the download)).
    transfer: Option<Arc<Queue>>,
    /// Whether uploads take the transfer queue too (`SORTNET_GPU_TRANSFER_QUEUE=down`: only
    /// downloads do).
    transfer_uploads: bool,
    memory: Arc<StandardMemoryAllocator>,
    command_buffers: Arc<StandardCommandBufferAllocator>,
    descriptor_sets: Arc<StandardDescriptorSetAllocator>,
    limits: Limits,
    software: bool,
    name: String,
    driver: String,
    memory_cap: Option<u64>,
    /// Bytes per piece of a streamed host transfer ([`STREAM_PIECE_BYTES`], or
    /// `SORTNET_GPU_STREAM_PIECE` for tests).
    stream_piece: u64,
    /// Bytes held in buffers made through [`buffer`](Self::buffer) (pooled ones included).
    allocated: AtomicU64,
    pool: Mutex<FreeBuffers>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("name", &self.name)
            .field("driver", &self.driver)
            .field("software", &self.software)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// A queue family that does transfers only (NVIDIA: the copy engines' family) and writes
/// timestamps (they mark the pieces of a streamed download as landed).
fn transfer_only_family(physical: &PhysicalDevice) -> Option<u32> {
    physical
        .queue_family_properties()
        .iter()
        .position(|q| {
            q.queue_flags.intersects(QueueFlags::TRANSFER)
                && !q
                    .queue_flags
                    .intersects(QueueFlags::COMPUTE | QueueFlags::GRAPHICS)
                && q.queue_count > 0
                && q.timestamp_valid_bits.is_some_and(|b| b > 0)
        })
        .map(|f| f as u32)
}

/// Rank for device choice: discrete first, CPU (software) drivers last.
fn device_rank(kind: PhysicalDeviceType) -> u32 {
    match kind {
        PhysicalDeviceType::DiscreteGpu => 0,
        PhysicalDeviceType::IntegratedGpu => 1,
        PhysicalDeviceType::VirtualGpu => 2,
        PhysicalDeviceType::Cpu => 3,
        _ => 4,
    }
}

/// Parses `SORTNET_GPU_MEMORY_CAP`: bytes, optionally with a `k`, `m` or `g` suffix.
fn parse_cap(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_lowercase();
    let (digits, scale) = match text.chars().last()? {
        'k' => (&text[..text.len() - 1], 1u64 << 10),
        'm' => (&text[..text.len() - 1], 1 << 20),
        'g' => (&text[..text.len() - 1], 1 << 30),
        _ => (&text[..], 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(scale)
}

impl GpuContext {
    fn new() -> Result<Self> {
        // A missing loader is an Err here, not a panic.
        let library = VulkanLibrary::new().map_err(gpu_err("no Vulkan loader"))?;
        let instance = Instance::new(
            library,
            InstanceCreateInfo {
                flags: InstanceCreateFlags::ENUMERATE_PORTABILITY,
                ..Default::default()
            },
        )
        .map_err(gpu_err("creating the Vulkan instance"))?;
        let (physical, family) = instance
            .enumerate_physical_devices()
            .map_err(gpu_err("listing Vulkan devices"))?
            .filter(|p| p.api_version() >= vulkano::Version::V1_1)
            .filter_map(|p| {
                let family = p
                    .queue_family_properties()
                    .iter()
                    .position(|q| q.queue_flags.intersects(QueueFlags::COMPUTE))?;
                Some((p, family as u32))
            })
            .min_by_key(|(p, _)| device_rank(p.properties().device_type))
            .ok_or_else(|| Error::Gpu("no Vulkan 1.1 device with a compute queue".into()))?;
        let supported = physical.supported_features();
        let shader_int64 = supported.shader_int64;
        // shaderFloat16 is a Vulkan 1.2 core feature (an extension's before that).
        let shader_float16 =
            supported.shader_float16 && physical.api_version() >= vulkano::Version::V1_2;
        let shader_int16 = supported.shader_int16;
        let transfer_mode = std::env::var("SORTNET_GPU_TRANSFER_QUEUE").unwrap_or_default();
        let transfer_family = (transfer_mode != "0")
            .then(|| transfer_only_family(&physical))
            .flatten();
        let mut queue_create_infos = vec![QueueCreateInfo {
            queue_family_index: family,
            ..Default::default()
        }];
        if let Some(f) = transfer_family {
            queue_create_infos.push(QueueCreateInfo {
                queue_family_index: f,
                ..Default::default()
            });
        }
        let (device, mut queues) = Device::new(
            physical.clone(),
            DeviceCreateInfo {
                queue_create_infos,
                enabled_features: DeviceFeatures {
                    shader_int64,
                    shader_float16,
                    shader_int16,
                    ..DeviceFeatures::empty()
                },
                ..Default::default()
            },
        )
        .map_err(gpu_err("creating the Vulkan device"))?;
        let queue = queues
            .next()
            .ok_or_else(|| Error::Gpu("the device gave no queue".into()))?;
        let transfer = queues.next();
        let mut limits = read_limits(&physical, family, shader_int64);
        limits.shader_float16 = shader_float16;
        limits.shader_int16 = shader_int16;
        let props = physical.properties();
        let memory_cap = std::env::var("SORTNET_GPU_MEMORY_CAP")
            .ok()
            .and_then(|v| parse_cap(&v));
        // Pieces are multiples of 256 bytes, so that every piece of a buffer starts at an
        // offset a storage-buffer binding may take.
        let stream_piece = std::env::var("SORTNET_GPU_STREAM_PIECE")
            .ok()
            .and_then(|v| parse_cap(&v))
            .unwrap_or(STREAM_PIECE_BYTES)
            .max(256)
            & !255;
        Ok(GpuContext {
            memory: Arc::new(StandardMemoryAllocator::new_default(device.clone())),
            command_buffers: Arc::new(StandardCommandBufferAllocator::new(
                device.clone(),
                Default::default(),
            )),
            descriptor_sets: Arc::new(StandardDescriptorSetAllocator::new(
                device.clone(),
                Default::default(),
            )),
            software: props.device_type == PhysicalDeviceType::Cpu,
            name: props.device_name.clone(),
            driver: match (&props.driver_name, &props.driver_info) {
                (Some(n), Some(i)) => format!("{n} {i}"),
                (Some(n), None) => n.clone(),
                _ => format!("driver {:#x}", props.driver_version),
            },
            device,
            queue,
            transfer_uploads: transfer.is_some() && transfer_mode != "down",
            transfer,
            limits,
            memory_cap,
            stream_piece,
            allocated: AtomicU64::new(0),
            pool: Mutex::new(HashMap::new()),
        })
    }

    /// The logical device.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The compute queue all sorts are submitted to.
    pub fn queue(&self) -> &Arc<Queue> {
        &self.queue
    }

    /// The memory allocator.
    pub fn memory_allocator(&self) -> &Arc<StandardMemoryAllocator> {
        &self.memory
    }

    /// The command buffer allocator.
    pub fn command_buffer_allocator(&self) -> &Arc<StandardCommandBufferAllocator> {
        &self.command_buffers
    }

    /// The descriptor set allocator.
    pub fn descriptor_set_allocator(&self) -> &Arc<StandardDescriptorSetAllocator> {
        &self.descriptor_sets
    }

    /// The device limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether the driver runs on the CPU (lavapipe, SwiftShader): `auto` never picks it.
    pub fn is_software(&self) -> bool {
        self.software
    }

    /// The device's name, e.g. `NVIDIA H100 80GB HBM3` or `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The memory cap from `SORTNET_GPU_MEMORY_CAP`, if set.
    pub fn memory_cap(&self) -> Option<u64> {
        self.memory_cap
    }

    /// The largest buffer, in bytes, the crate will bind for one sort.
    pub fn max_buffer_bytes(&self) -> u64 {
        self.limits.max_buffer_bytes(self.memory_cap)
    }

    /// One line for `sortnet backends`: name, driver, subgroup size, memory.
    pub fn status(&self) -> String {
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        format!(
            "{} ({}{}), subgroup {}, {:.1} GiB device memory, max buffer {:.2} GiB",
            self.name,
            self.driver,
            if self.software { ", software" } else { "" },
            self.limits
                .subgroup_size
                .map_or_else(|| "unknown".to_string(), |s| s.to_string()),
            gib(self.limits.device_local_heaps.iter().sum()),
            gib(self.max_buffer_bytes()),
        )
    }

    /// Builds a compute pipeline from committed SPIR-V (`include_bytes!` of a file in
    /// `shaders/spv/`) with `(constant_id, value)` specialization constants.
    pub fn compute_pipeline(
        &self,
        spirv: &[u8],
        specialization: &[(u32, u32)],
    ) -> Result<Arc<ComputePipeline>> {
        if !spirv.len().is_multiple_of(4) {
            return Err(Error::Gpu("SPIR-V length is not a multiple of 4".into()));
        }
        let words: Vec<u32> = spirv
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        // SAFETY: the words are SPIR-V produced by glslc from the crate's own shaders
        // (shaders/spv, checked against their sources by tests/gpu_shaders.rs); vulkano
        // parses and validates the module's structure before creating it.
        let module =
            unsafe { ShaderModule::new(self.device.clone(), ShaderModuleCreateInfo::new(&words)) }
                .map_err(gpu_err("loading a shader module"))?;
        let entry = module
            .specialize(
                specialization
                    .iter()
                    .map(|&(id, value)| (id, SpecializationConstant::U32(value)))
                    .collect(),
            )
            .map_err(gpu_err("specializing a shader"))?
            .entry_point("main")
            .ok_or_else(|| Error::Gpu("shader has no `main` entry point".into()))?;
        let stage = PipelineShaderStageCreateInfo::new(entry);
        let layout = PipelineLayout::new(
            self.device.clone(),
            PipelineDescriptorSetLayoutCreateInfo::from_stages([&stage])
                .into_pipeline_layout_create_info(self.device.clone())
                .map_err(gpu_err("deriving a pipeline layout"))?,
        )
        .map_err(gpu_err("creating a pipeline layout"))?;
        ComputePipeline::new(
            self.device.clone(),
            None,
            ComputePipelineCreateInfo::stage_layout(stage, layout),
        )
        .map_err(gpu_err("creating a compute pipeline"))
    }

    /// A buffer of at least `bytes` bytes in `memory`, from the pool when one of its size
    /// class (the next power of two) is free, else newly allocated. Dropping the returned
    /// [`Pooled`] gives it back to the pool. Fails with [`Error::Gpu`] over the memory cap.
    pub fn buffer(self: &Arc<Self>, memory: Memory, bytes: u64) -> Result<Pooled> {
        let class = bytes.max(256).next_power_of_two();
        let reused = self
            .pool
            .lock()
            .map_err(|_| Error::Gpu("buffer pool lock poisoned".into()))?
            .get_mut(&(memory, class))
            .and_then(Vec::pop);
        let buffer = match reused {
            Some(b) => b,
            None => self.allocate(memory, class)?,
        };
        Ok(Pooled {
            context: self.clone(),
            memory,
            class,
            buffer: Some(buffer),
        })
    }

    fn allocate(&self, memory: Memory, bytes: u64) -> Result<Subbuffer<[u8]>> {
        let total = self.allocated.fetch_add(bytes, Ordering::SeqCst) + bytes;
        if let Some(cap) = self.memory_cap {
            if total > cap {
                self.allocated.fetch_sub(bytes, Ordering::SeqCst);
                return Err(Error::Gpu(format!(
                    "allocating {bytes} bytes would exceed SORTNET_GPU_MEMORY_CAP={cap}"
                )));
            }
        }
        let (usage, filter) = match memory {
            Memory::Device => (
                BufferUsage::STORAGE_BUFFER | BufferUsage::TRANSFER_SRC | BufferUsage::TRANSFER_DST,
                MemoryTypeFilter::PREFER_DEVICE,
            ),
            Memory::Staging => (
                BufferUsage::TRANSFER_SRC | BufferUsage::TRANSFER_DST,
                MemoryTypeFilter::PREFER_HOST | MemoryTypeFilter::HOST_RANDOM_ACCESS,
            ),
        };
        // The transfer queue downloads from device buffers into staging ones: both families
        // use pooled buffers, so they are shared without ownership transfers.
        let sharing = match &self.transfer {
            Some(t) => vulkano::sync::Sharing::Concurrent(
                [self.queue.queue_family_index(), t.queue_family_index()]
                    .into_iter()
                    .collect(),
            ),
            None => vulkano::sync::Sharing::Exclusive,
        };
        Buffer::new_slice::<u8>(
            self.memory.clone(),
            BufferCreateInfo {
                usage,
                sharing,
                ..Default::default()
            },
            AllocationCreateInfo {
                memory_type_filter: filter,
                ..Default::default()
            },
            bytes as DeviceSize,
        )
        .map_err(|e| {
            self.allocated.fetch_sub(bytes, Ordering::SeqCst);
            Error::Gpu(format!("allocating a {bytes}-byte buffer: {e}"))
        })
    }

    /// A pooled staging buffer holding a copy of `data` (at least one element's room), ready
    /// to be copied to the device with `CopyBufferInfo::buffers(staging.slice(len), ..)`.
    pub fn stage_in<T: BufferContents + Pod>(self: &Arc<Self>, data: &[T]) -> Result<Pooled> {
        let size = std::mem::size_of::<T>() as u64;
        let staging = self.buffer(Memory::Staging, (data.len() as u64).max(1) * size)?;
        if !data.is_empty() {
            par_copy(
                &mut staging
                    .slice::<T>(data.len() as u64)
                    .write()
                    .map_err(gpu_err("mapping a staging buffer"))?,
                data,
            );
        }
        Ok(staging)
    }

    /// Copies the first `out.len()` elements of a staging buffer (after the GPU wrote it and
    /// the work was waited for) into `out`.
    pub fn stage_out<T: BufferContents + Pod>(staging: &Pooled, out: &mut [T]) -> Result<()> {
        if !out.is_empty() {
            par_copy(
                out,
                &staging
                    .slice::<T>(out.len() as u64)
                    .read()
                    .map_err(gpu_err("mapping a staging buffer"))?,
            );
        }
        Ok(())
    }

    /// Drops every pooled buffer that is not in use (frees their memory).
    pub fn trim_pool(&self) {
        if let Ok(mut pool) = self.pool.lock() {
            for ((_, class), buffers) in pool.drain() {
                self.allocated
                    .fetch_sub(class * buffers.len() as u64, Ordering::SeqCst);
            }
        }
    }

    /// A one-time-submit primary command buffer builder on the compute queue's family.
    pub fn command_builder(&self) -> Result<AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>> {
        self.builder_on(&self.queue)
    }

    /// Builds `builder`, submits it on the shared queue and waits for it to finish.
    pub fn submit_and_wait(
        &self,
        builder: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    ) -> Result<()> {
        let commands = builder.build().map_err(gpu_err("building commands"))?;
        let done = vulkano::sync::now(self.device.clone())
            .then_execute(self.queue.clone(), commands)
            .map_err(gpu_err("submitting commands"))?
            .then_signal_fence_and_flush()
            .map_err(gpu_err("flushing commands"))?;
        wait_polling(&done)
    }

    /// Submits `first`, then records the rest with `then` while the GPU runs `first`,
    /// submits it behind `first` on the same queue and waits for both: the recording hides
    /// behind the GPU's work (an upload, say) instead of preceding it. If `then` fails, waits
    /// for `first` and returns that error.
    pub fn submit_while_recording(
        &self,
        first: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        then: impl FnOnce() -> Result<AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>>,
    ) -> Result<()> {
        // Submitted with no fence of its own: the rest's fence covers both.
        let first = first.build().map_err(gpu_err("building commands"))?;
        let running = vulkano::sync::now(self.device.clone())
            .then_execute(self.queue.clone(), first)
            .map_err(gpu_err("submitting commands"))?;
        running.flush().map_err(gpu_err("flushing commands"))?;
        let rest = match then().and_then(|b| b.build().map_err(gpu_err("building commands"))) {
            Ok(rest) => rest,
            Err(e) => {
                running
                    .then_signal_fence_and_flush()
                    .map_err(gpu_err("flushing commands"))?
                    .wait(None)
                    .map_err(gpu_err("waiting for the GPU"))?;
                return Err(e);
            }
        };
        let done = running
            .then_execute(self.queue.clone(), rest)
            .map_err(gpu_err("submitting commands"))?
            .then_signal_fence_and_flush()
            .map_err(gpu_err("flushing commands"))?;
        wait_polling(&done)
    }
}

impl GpuContext {
    /// A one-time-submit primary command buffer builder for `queue`'s family.
    fn builder_on(
        &self,
        queue: &Arc<Queue>,
    ) -> Result<AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>> {
        AutoCommandBufferBuilder::primary(
            self.command_buffers.clone(),
            queue.queue_family_index(),
            CommandBufferUsage::OneTimeSubmit,
        )
        .map_err(gpu_err("creating a command buffer"))
    }

    /// Whether streamed downloads run on a transfer-only queue beside the compute queue.
    pub fn has_transfer_queue(&self) -> bool {
        self.transfer.is_some()
    }

    /// Builds `builder` and submits it on the shared queue without waiting.
    fn submit(
        &self,
        builder: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    ) -> Result<Submitted> {
        self.submit_on(&self.queue, builder)
    }

    /// Builds `builder` (made for `queue`'s family) and submits it on `queue` without
    /// waiting.
    fn submit_on(
        &self,
        queue: &Arc<Queue>,
        builder: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    ) -> Result<Submitted> {
        let commands = builder.build().map_err(gpu_err("building commands"))?;
        vulkano::sync::now(self.device.clone())
            .then_execute(queue.clone(), commands)
            .map_err(gpu_err("submitting commands"))?
            .boxed_send()
            .then_signal_fence_and_flush()
            .map_err(gpu_err("flushing commands"))
    }

    /// Whether host slices of `bytes` bytes take the streamed path: at least two pieces, a
    /// queue with timestamps (they mark finished pieces) and host-coherent staging memory
    /// (finished pieces are read while the GPU still writes others).
    pub fn streams(&self, bytes: u64) -> bool {
        bytes >= 2 * self.stream_piece
            && self.limits.timestamp_period_ns.is_some()
            && self.staging_is_coherent()
    }

    /// Whether staging memory is host-coherent (a mapping sees the GPU's copies without
    /// flushes or invalidations).
    pub(crate) fn staging_is_coherent(&self) -> bool {
        static COHERENT: OnceLock<bool> = OnceLock::new();
        *COHERENT.get_or_init(|| {
            let Ok(probe) = self.allocate(Memory::Staging, 256) else {
                return false;
            };
            let coherent = match probe.buffer().memory() {
                vulkano::buffer::BufferMemory::Normal(m) => {
                    let index = m.device_memory().memory_type_index() as usize;
                    self.device
                        .physical_device()
                        .memory_properties()
                        .memory_types[index]
                        .property_flags
                        .contains(MemoryPropertyFlags::HOST_COHERENT)
                }
                _ => false,
            };
            self.allocated.fetch_sub(256, Ordering::SeqCst);
            coherent
        })
    }

    /// The pieces a streamed transfer of `len` elements of `size` bytes moves, in order:
    /// a 32nd of the bytes, at least the stream piece and at most four of them (16-64 MiB
    /// by default). Measured on the H200 host (BENCHMARKS.md (GPU host), run 3): 16 MiB
    /// pieces were best for 256-512 MiB (u32 keys 16.8 against 18.3 ms with 64 MiB,
    /// nibbles 25.4 against 26.3 ms), 64 MiB pieces for 1-2 GiB (u32 keys 68.0 against 70.1
    /// ms, nibbles 104.0 against 128.7 ms); 4 MiB pieces were slower at 16-128 MiB.
    fn pieces(&self, len: u64, size: u64) -> Vec<Range<u64>> {
        let bytes = (len * size / 32).clamp(self.stream_piece, 4 * self.stream_piece) & !255;
        let piece = (bytes / size).max(1);
        (0..len)
            .step_by(piece as usize)
            .map(|start| start..(start + piece).min(len))
            .collect()
    }

    /// Moves `data` into the first `data.len()` elements of `device`, runs the work that
    /// `record` records, moves the result back into `data`, overlapping the host's copies
    /// with the GPU's: a [`HostStream`] with one [`DownloadGroup`] (see there). On `Err`
    /// `data` holds its original contents. Callers check [`streams`](Self::streams) first.
    pub fn round_trip_streamed<T: BufferContents + Pod>(
        self: &Arc<Self>,
        data: &mut [T],
        device: &Subbuffer<[T]>,
        record: impl FnOnce(&mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>) -> Result<()>,
    ) -> Result<()> {
        let n = data.len() as u64;
        if n == 0 {
            return Ok(());
        }
        let device = device.clone().slice(0..n);
        let mut stream = self.host_stream(data)?;
        let result = stream.upload(&device).and_then(|()| {
            stream.download(vec![DownloadGroup {
                work: Box::new(record),
                source: device,
            }])
        });
        stream.finish(result)
    }

    /// Starts streaming `data` to the device and back: staging copies for both ways (the
    /// input's is kept until the end, so that on `Err` what was written back is restored).
    pub fn host_stream<'d, T: BufferContents + Pod>(
        self: &Arc<Self>,
        data: &'d mut [T],
    ) -> Result<HostStream<'d, T>> {
        let size = std::mem::size_of::<T>() as u64;
        let n = data.len() as u64;
        let input = self.buffer(Memory::Staging, n.max(1) * size)?;
        let output = self.buffer(Memory::Staging, n.max(1) * size)?;
        Ok(HostStream {
            ctx: self.clone(),
            input_view: input.slice::<T>(n),
            output_view: output.slice::<T>(n),
            _staging: [input, output],
            data,
            written: 0,
            pending: Vec::new(),
            trace: std::env::var_os("SORTNET_GPU_STREAM_TRACE").map(|_| Instant::now()),
        })
    }

    /// Runs `record`'s work on every piece of `data` independently (each piece is uploaded,
    /// processed and downloaded by its own submission), keeping two pieces in flight while
    /// the host fills the next one and empties the one before, all on all cores. For work
    /// that is independent per element, like the nibble sort. On `Err` `data` holds its
    /// original contents (restored from the input's staging buffer). Callers check
    /// [`streams`](Self::streams) first.
    ///
    /// Uploads, work and downloads on three queues (the copy engines' transfer family and
    /// the compute queue, chained by semaphores) measured no faster on the H200 (commit
    /// 6e30d23, BENCHMARKS.md (GPU host)): the host's own copies bound this path, so one
    /// queue it is.
    pub fn stream_pieces<T: BufferContents + Pod>(
        self: &Arc<Self>,
        data: &mut [T],
        record: impl Fn(
            &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
            Subbuffer<[T]>,
        ) -> Result<()>,
    ) -> Result<()> {
        /// Pieces submitted ahead of the one the host empties.
        const IN_FLIGHT: usize = 2;
        let size = std::mem::size_of::<T>() as u64;
        let n = data.len() as u64;
        if n == 0 {
            return Ok(());
        }
        let pieces = self.pieces(n, size);
        let input = self.buffer(Memory::Staging, n * size)?;
        let output = self.buffer(Memory::Staging, n * size)?;
        let device = self.buffer(Memory::Device, n * size)?;
        let (input, output, device) = (
            input.slice::<T>(n),
            output.slice::<T>(n),
            device.slice::<T>(n),
        );
        let mut in_flight = std::collections::VecDeque::with_capacity(IN_FLIGHT + 1);
        let mut written = 0usize;
        let result = (|| {
            for (i, r) in pieces.iter().enumerate() {
                let staged = input.clone().slice(r.clone());
                par_copy(
                    &mut staged
                        .write()
                        .map_err(gpu_err("mapping a staging buffer"))?,
                    &data[r.start as usize..r.end as usize],
                );
                let on_device = device.clone().slice(r.clone());
                let landing = output.clone().slice(r.clone());
                let mut builder = self.command_builder()?;
                builder
                    .copy_buffer(CopyBufferInfo::buffers(staged, on_device.clone()))
                    .map_err(gpu_err("recording an upload"))?;
                record(&mut builder, on_device.clone())?;
                builder
                    .copy_buffer(CopyBufferInfo::buffers(on_device, landing))
                    .map_err(gpu_err("recording a download"))?;
                in_flight.push_back((i, self.submit(builder)?));
                let last = i + 1 == pieces.len();
                while in_flight.len() > IN_FLIGHT || (last && !in_flight.is_empty()) {
                    let (j, done) = in_flight.pop_front().expect("not empty");
                    done.wait(None).map_err(gpu_err("waiting for the GPU"))?;
                    drop(done);
                    let landed = output.clone().slice(pieces[j].clone());
                    let range = pieces[j].start as usize..pieces[j].end as usize;
                    par_copy(
                        &mut data[range.clone()],
                        &landed.read().map_err(gpu_err("mapping a staging buffer"))?,
                    );
                    written = range.end;
                }
            }
            Ok(())
        })();
        if result.is_err() {
            // Let the GPU finish (or fail) whatever is in flight before reading the input.
            drop(in_flight);
            restore_prefix(data, &input, written)?;
        }
        result
    }

    /// A timestamp query pool of `count` queries, marking finished pieces (or, for
    /// [`RoundTripTrace`], a round trip's steps).
    pub(crate) fn piece_marks(&self, count: u32) -> Result<Arc<QueryPool>> {
        QueryPool::new(
            self.device.clone(),
            QueryPoolCreateInfo {
                query_count: count.max(1),
                ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
            },
        )
        .map_err(gpu_err("creating a query pool"))
    }
}

/// Records work into a command buffer of the compute queue.
pub type Recorder<'r> =
    Box<dyn FnOnce(&mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>) -> Result<()> + 'r>;

/// One group of a streamed download ([`HostStream::download`]): the work after which
/// `source` holds the group's result, then the copy of `source` back to the host. A
/// group's place in the host slice follows the previous group's.
pub struct DownloadGroup<'r, T> {
    /// The work that finishes the group (on the compute queue; `Box::new(|_| Ok(()))` when
    /// the group is ready).
    pub work: Recorder<'r>,
    /// The group's elements on the device, in host order.
    pub source: Subbuffer<[T]>,
}

/// A host slice on its way to the device and back, piece by piece, with the host's copies
/// (on all cores) overlapping the GPU's:
///
/// - [`upload`](Self::upload): each piece is copied into staging memory and its DMA
///   submitted at once, so the GPU moves piece `i` while the host fills piece `i + 1`;
/// - [`download`](Self::download): per group, the work (on the compute queue) and the copy
///   of its pieces back (on the transfer queue where the device has one, else on the compute
///   queue, after a semaphore) with a timestamp after each piece; the host copies a piece
///   out as soon as its timestamp is written, while the GPU moves the next one and works on
///   the next group. So the work on group `g + 1` runs while group `g` travels.
///
/// [`finish`](Self::finish) restores what was written back when the result is an `Err`:
/// then `data` holds its original contents.
pub struct HostStream<'d, T: BufferContents> {
    /// Submissions not yet waited for that the downloads' work needs: the uploads, and
    /// work of the caller's ([`submit_before_download`](Self::submit_before_download)).
    /// First, so that dropping the stream waits for them before the staging buffers go
    /// back to the pool.
    pending: Vec<Submitted>,
    ctx: Arc<GpuContext>,
    data: &'d mut [T],
    input_view: Subbuffer<[T]>,
    output_view: Subbuffer<[T]>,
    /// The pooled staging buffers behind the views, returned to the pool at the end.
    _staging: [Pooled; 2],
    /// Elements at the front of `data` already overwritten by results.
    written: usize,
    /// When the stream started, if `SORTNET_GPU_STREAM_TRACE` is set: then every step is
    /// printed to stderr with its time, and the GPU's timestamps of every downloaded piece.
    trace: Option<Instant>,
}

/// Work on the compute queue that follows uploads as they land
/// ([`HostStream::upload_counted`]): each submission waits for the uploads pushed before it
/// (semaphores) and comes after the work before it.
struct AfterUploads {
    ctx: Arc<GpuContext>,
    chain: Box<dyn GpuFuture + Send>,
    /// Whether the chain ends in waits for uploads that no submission has taken yet.
    waits_left: bool,
}

impl AfterUploads {
    fn new(ctx: &Arc<GpuContext>) -> Self {
        AfterUploads {
            ctx: ctx.clone(),
            chain: vulkano::sync::now(ctx.device.clone()).boxed_send(),
            waits_left: false,
        }
    }

    /// Adds an upload's signal, and submits `work` (if any) after it; whether it submitted.
    fn push(
        &mut self,
        landed: Box<dyn GpuFuture + Send>,
        work: Option<AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>>,
    ) -> Result<bool> {
        let chain = std::mem::replace(
            &mut self.chain,
            vulkano::sync::now(self.ctx.device.clone()).boxed_send(),
        );
        let joined = chain.join(landed);
        let Some(work) = work else {
            self.chain = joined.boxed_send();
            self.waits_left = true;
            return Ok(false);
        };
        let commands = work.build().map_err(gpu_err("building commands"))?;
        let submitted = joined
            .then_execute(self.ctx.queue.clone(), commands)
            .map_err(gpu_err("submitting work"))?;
        submitted.flush().map_err(gpu_err("flushing work"))?;
        self.chain = submitted.boxed_send();
        self.waits_left = false;
        Ok(true)
    }

    /// The fence of everything pushed.
    fn finish(mut self) -> Result<Submitted> {
        if self.waits_left {
            // An empty command buffer takes the last waits: a fence after waits alone never
            // signalled on lavapipe.
            let commands = self
                .ctx
                .command_builder()?
                .build()
                .map_err(gpu_err("building commands"))?;
            self.chain = self
                .chain
                .then_execute(self.ctx.queue.clone(), commands)
                .map_err(gpu_err("submitting work"))?
                .boxed_send();
        }
        self.chain
            .then_signal_fence_and_flush()
            .map_err(gpu_err("flushing work"))
    }
}

/// 256 counters, e.g. of the values of a key's top digit.
pub type Counts = [u32; 256];

/// Adds what it counts in a run of elements to the counters.
pub type CountFn<T> = dyn Fn(&[T], &mut Counts) + Sync;

/// Timestamps of each group before its pieces': its work's start and end, its download's
/// start.
const GROUP_MARKS: usize = 3;

/// A group's download, submitted after its work; waiting on it (or dropping it) waits for
/// the GPU.
type Landing = FenceSignalFuture<Box<dyn GpuFuture>>;

impl<T: BufferContents + Pod> HostStream<'_, T> {
    /// Prints `what` with the time since the stream started when tracing.
    pub fn note(&self, what: std::fmt::Arguments) {
        if let Some(start) = self.trace {
            eprintln!(
                "[stream] {:8.3} ms {what}",
                start.elapsed().as_secs_f64() * 1e3
            );
        }
    }

    /// The pieces the stream moves, in order (element ranges of the slice).
    pub fn piece_ranges(&self) -> Vec<Range<u64>> {
        self.ctx
            .pieces(self.data.len() as u64, std::mem::size_of::<T>() as u64)
    }

    /// Uploads the slice into the first `data.len()` elements of `device`, piece by piece,
    /// without waiting for the last pieces' copies.
    pub fn upload(&mut self, device: &Subbuffer<[T]>) -> Result<()> {
        for r in self.piece_ranges() {
            let (queue, builder) = self.stage(device, r, None)?;
            self.pending.push(self.ctx.submit_on(&queue, builder)?);
        }
        Ok(())
    }

    /// [`upload`](Self::upload) that also counts, in the same pass over the host's memory,
    /// what `count` counts in each piece (e.g. the keys' top digits), and submits right
    /// after each piece's upload the work that `record` records for the piece (given its
    /// elements and counts; `None`: nothing) on the compute queue, after the piece's upload
    /// (a semaphore) and after the work for the pieces before it. So the work on the first
    /// pieces runs while the last ones still travel; [`download`](Self::download) waits for
    /// all of it. Returns each piece's elements and counts.
    pub fn upload_counted(
        &mut self,
        device: &Subbuffer<[T]>,
        count: &CountFn<T>,
        mut record: impl FnMut(
            Range<u64>,
            &Counts,
        )
            -> Result<Option<AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>>>,
    ) -> Result<Vec<(Range<u64>, Counts)>> {
        // The submissions are made here, between the pieces' staging copies: on a thread of
        // their own they slowed the copies more (H200 host, BENCHMARKS.md (GPU keys:
        // the scatter follows the upload)); `record` should record work every few pieces only.
        let mut chain = AfterUploads::new(&self.ctx);
        let mut pieces = Vec::new();
        let result = (|| {
            for r in self.piece_ranges() {
                let mut counts = [0u32; 256];
                let (queue, builder) = self.stage(device, r.clone(), Some((count, &mut counts)))?;
                let commands = builder.build().map_err(gpu_err("building commands"))?;
                let landed = vulkano::sync::now(self.ctx.device.clone())
                    .then_execute(queue, commands)
                    .map_err(gpu_err("submitting an upload"))?
                    .then_signal_semaphore_and_flush()
                    .map_err(gpu_err("flushing an upload"))?;
                let end = r.end;
                let work = record(r.clone(), &counts)?;
                if chain.push(landed.boxed_send(), work)? {
                    self.note(format_args!("work up to element {end} submitted"));
                }
                pieces.push((r, counts));
            }
            Ok(())
        })();
        // Waited for (or dropped) with the stream, before its staging memory is reused.
        let submitted = chain.finish().map(|s| self.pending.push(s));
        result.and(submitted).map(|()| pieces)
    }

    /// Copies piece `r` of the slice into staging memory (counting with `count` on the way)
    /// and records its copy to `device` on the queue uploads take.
    fn stage(
        &mut self,
        device: &Subbuffer<[T]>,
        r: Range<u64>,
        count: Option<(&CountFn<T>, &mut Counts)>,
    ) -> Result<(
        Arc<Queue>,
        AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    )> {
        let size = std::mem::size_of::<T>() as u64;
        let staged = self.input_view.clone().slice(r.clone());
        let host = &self.data[r.start as usize..r.end as usize];
        let mut staged_host = staged
            .write()
            .map_err(gpu_err("mapping a staging buffer"))?;
        match count {
            Some((count, counts)) => *counts = par_copy_counting(&mut staged_host, host, count),
            None => par_copy(&mut staged_host, host),
        }
        drop(staged_host);
        let mib = ((r.end - r.start) * size) >> 20;
        let queue = match &self.ctx.transfer {
            Some(t) if self.ctx.transfer_uploads => t.clone(),
            _ => self.ctx.queue.clone(),
        };
        let mut builder = self.ctx.builder_on(&queue)?;
        builder
            .copy_buffer(CopyBufferInfo::buffers(staged, device.clone().slice(r)))
            .map_err(gpu_err("recording an upload"))?;
        self.note(format_args!(
            "upload piece of {mib} MiB staged and submitted"
        ));
        Ok((queue, builder))
    }

    /// Waits until every upload has landed on the device.
    pub fn wait_uploads(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        for submitted in self.pending.drain(..) {
            submitted
                .wait(None)
                .map_err(gpu_err("waiting for the GPU"))?;
        }
        self.note(format_args!("uploads and earlier work done"));
        Ok(())
    }

    /// Submits `builder` (of the compute queue) without waiting; [`download`](Self::download)
    /// waits for it before it submits the first group's work, and records the groups'
    /// commands meanwhile.
    pub fn submit_before_download(
        &mut self,
        builder: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    ) -> Result<()> {
        self.pending.push(self.ctx.submit(builder)?);
        Ok(())
    }

    /// Whether every pending submission has finished (so the next group may be submitted).
    fn pending_done(&self) -> Result<bool> {
        for submitted in &self.pending {
            if !submitted
                .is_signaled()
                .map_err(gpu_err("polling a fence"))?
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Runs each group's work and brings its result back into the slice (groups in slice
    /// order, covering it), all submitted at once after the uploads landed; see the type's
    /// description. On `Err` the GPU has finished (or failed) everything submitted.
    pub fn download(&mut self, groups: Vec<DownloadGroup<'_, T>>) -> Result<()> {
        let ctx = self.ctx.clone();
        let size = std::mem::size_of::<T>() as u64;
        let n = self.data.len() as u64;
        let piece = ctx.pieces(n, size).first().map_or(1, |r| r.end - r.start);
        // The pieces of every group: (device range in the group's source, host range).
        let mut at = 0u64;
        let plans: Vec<Vec<(Range<u64>, Range<u64>)>> = groups
            .iter()
            .map(|g| {
                let len = g.source.len();
                let cuts = (0..len)
                    .step_by(piece as usize)
                    .map(|s| (s..(s + piece).min(len), at + s..at + (s + piece).min(len)))
                    .collect();
                at += len;
                cuts
            })
            .collect();
        if at != n {
            return Err(Error::Gpu(format!(
                "streamed groups hold {at} elements, the slice {n}"
            )));
        }
        // Per group: timestamps when its work starts and ends and when its download starts
        // (for the trace), then one after each piece.
        let total = (plans.iter().map(Vec::len).sum::<usize>() + GROUP_MARKS * plans.len()) as u32;
        let marks = ctx.piece_marks(total)?;
        let down_queue = ctx.transfer.clone().unwrap_or_else(|| ctx.queue.clone());
        // Groups are recorded while the pending work runs, and submitted in order as soon as
        // it is done, so that the GPU starts on group 0 early and the host records the
        // others while the GPU sorts it (recording takes about 80 us per radix group).
        let count = groups.len();
        let mut landings: Vec<Landing> = Vec::with_capacity(count);
        let mut recorded = Vec::with_capacity(count);
        let mut mark = 0u32;
        for (g, (group, cuts)) in groups.into_iter().zip(&plans).enumerate() {
            let mut work = ctx.command_builder()?;
            if g == 0 {
                // SAFETY: the pool is new; its queries are reset here, before any download
                // (each waits for this submission through its semaphore) writes them once.
                unsafe { work.reset_query_pool(marks.clone(), 0..total) }
                    .map_err(gpu_err("resetting queries"))?;
            }
            // The start marks are written when their command reaches the top of the pipe
            // (no wait for earlier work), the others after everything before them.
            // SAFETY: as below, for the group's work and download marks.
            unsafe { work.write_timestamp(marks.clone(), mark, PipelineStage::TopOfPipe) }
                .map_err(gpu_err("recording a timestamp"))?;
            (group.work)(&mut work)?;
            // SAFETY: as below.
            unsafe { work.write_timestamp(marks.clone(), mark + 1, PipelineStage::AllCommands) }
                .map_err(gpu_err("recording a timestamp"))?;
            let mut down = ctx.builder_on(&down_queue)?;
            // SAFETY: as below.
            unsafe { down.write_timestamp(marks.clone(), mark + 2, PipelineStage::TopOfPipe) }
                .map_err(gpu_err("recording a timestamp"))?;
            mark += GROUP_MARKS as u32;
            for (on_device, on_host) in cuts {
                down.copy_buffer(CopyBufferInfo::buffers(
                    group.source.clone().slice(on_device.clone()),
                    self.output_view.clone().slice(on_host.clone()),
                ))
                .map_err(gpu_err("recording a download"))?;
                // SAFETY: query `mark` was reset by the first group's work, which comes
                // before every group's work on the compute queue and which every download
                // waits for (semaphores cover all earlier submissions of their queue); it is
                // written once, after this piece's copy.
                unsafe { down.write_timestamp(marks.clone(), mark, PipelineStage::AllCommands) }
                    .map_err(gpu_err("recording a timestamp"))?;
                mark += 1;
            }
            recorded.push((
                work.build().map_err(gpu_err("building commands"))?,
                down.build().map_err(gpu_err("building commands"))?,
            ));
            if g + 1 < count && !self.pending_done()? {
                continue;
            }
            self.wait_uploads()?;
            for (work, down) in recorded.drain(..) {
                landings.push(
                    vulkano::sync::now(ctx.device.clone())
                        .then_execute(ctx.queue.clone(), work)
                        .map_err(gpu_err("submitting work"))?
                        .then_signal_semaphore_and_flush()
                        .map_err(gpu_err("flushing work"))?
                        .then_execute(down_queue.clone(), down)
                        .map_err(gpu_err("submitting a download"))?
                        .boxed()
                        .then_signal_fence_and_flush()
                        .map_err(gpu_err("flushing a download"))?,
                );
            }
        }
        self.note(format_args!("{} groups submitted", landings.len()));
        // `SORTNET_GPU_STREAM_FAIL_AFTER=<k>`: fail after k pieces were copied back, so that
        // tests see the slice restored after a failure half way.
        let fail_after = std::env::var("SORTNET_GPU_STREAM_FAIL_AFTER")
            .ok()
            .and_then(|v| v.parse::<usize>().ok());
        let mut copied = 0usize;
        let mut mark = 0u32;
        for (cuts, landing) in plans.iter().zip(&landings) {
            mark += GROUP_MARKS as u32;
            for (_, on_host) in cuts {
                wait_for_mark(&marks, mark, landing)?;
                mark += 1;
                self.note(format_args!("piece {} landed", mark - 1));
                let range = on_host.start as usize..on_host.end as usize;
                let view = self.output_view.clone().slice(on_host.clone());
                // SAFETY: this piece's copy has finished (its timestamp, written after it,
                // is available), nothing writes that range again, and the memory is
                // host-coherent (`streams`), so the mapped bytes are the copy's result and
                // are read while no one writes them. (Like every download in the crate, it
                // relies on coherent memory rather than a barrier to the host stage, which
                // vulkano's command buffers do not record.)
                let landed = unsafe { mapped::<T>(&view)? };
                par_copy(&mut self.data[range.clone()], landed);
                self.written = range.end;
                self.note(format_args!("piece {} copied out", mark - 1));
                copied += 1;
                if fail_after == Some(copied) {
                    return Err(Error::Gpu(format!(
                        "failing after {copied} pieces (SORTNET_GPU_STREAM_FAIL_AFTER)"
                    )));
                }
            }
        }
        for landing in landings {
            landing.wait(None).map_err(gpu_err("waiting for the GPU"))?;
        }
        if self.trace.is_some() {
            let mut ticks = vec![0u64; total as usize];
            marks
                .get_results(0..total, &mut ticks, QueryResultFlags::WAIT)
                .map_err(gpu_err("reading timestamps"))?;
            let ns = ctx.limits.timestamp_period_ns.unwrap_or(1.0);
            let at = |t: u64| t.wrapping_sub(ticks[0]) as f64 * ns * 1e-6;
            let mut q = 0;
            for (g, cuts) in plans.iter().enumerate() {
                let mut line = format!(
                    "group {g} (GPU ms): work {:.3}-{:.3}, download from {:.3}, pieces end at",
                    at(ticks[q]),
                    at(ticks[q + 1]),
                    at(ticks[q + 2])
                );
                for k in 0..cuts.len() {
                    line += &format!(" {:.3}", at(ticks[q + GROUP_MARKS + k]));
                }
                q += GROUP_MARKS + cuts.len();
                self.note(format_args!("{line}"));
            }
        }
        Ok(())
    }

    /// Ends the stream with `result`; on `Err` restores the part of the slice already
    /// overwritten (after the GPU finished whatever was in flight).
    pub fn finish(mut self, result: Result<()>) -> Result<()> {
        if result.is_err() {
            self.pending.clear();
            restore_prefix(self.data, &self.input_view, self.written)?;
        }
        result
    }
}

/// Puts back the first `written` elements of `data` from `input`, the staging copy of its
/// original contents (after an `Err` on the streamed paths).
fn restore_prefix<T: BufferContents + Pod>(
    data: &mut [T],
    input: &Subbuffer<[T]>,
    written: usize,
) -> Result<()> {
    if written > 0 {
        par_copy(
            &mut data[..written],
            &input
                .clone()
                .slice(0..written as u64)
                .read()
                .map_err(gpu_err("mapping a staging buffer"))?,
        );
    }
    Ok(())
}

/// A submitted command buffer (or chain of them); waiting on it (or dropping it) waits for
/// the GPU.
type Submitted = FenceSignalFuture<Box<dyn GpuFuture + Send>>;

/// Waits for a round trip's submission by polling its fence: a blocking wait cost 3-4% of a
/// round trip of 2^24 u32 keys on an H200 (BENCHMARKS.md, run 102). The streamed paths wait
/// blocking: their host copies run on every core meanwhile, and a polling thread would take
/// time from them. `SORTNET_GPU_BLOCKING_WAIT=1` waits blocking here too.
fn wait_polling<F: GpuFuture>(done: &FenceSignalFuture<F>) -> Result<()> {
    static BLOCKING: OnceLock<bool> = OnceLock::new();
    if !*BLOCKING.get_or_init(|| std::env::var_os("SORTNET_GPU_BLOCKING_WAIT").is_some()) {
        while !done.is_signaled().map_err(gpu_err("polling a fence"))? {
            std::thread::yield_now();
        }
    }
    done.wait(None).map_err(gpu_err("waiting for the GPU"))
}

/// Waits until timestamp `query` of `marks` is written, or the whole submission `done` has
/// finished (then the query must be there too).
fn wait_for_mark<F: GpuFuture>(
    marks: &QueryPool,
    query: u32,
    done: &FenceSignalFuture<F>,
) -> Result<()> {
    let mut ticks = [0u64];
    loop {
        if marks
            .get_results(query..query + 1, &mut ticks, QueryResultFlags::empty())
            .map_err(gpu_err("reading a timestamp"))?
        {
            return Ok(());
        }
        if done.is_signaled().map_err(gpu_err("polling a fence"))? {
            marks
                .get_results(query..query + 1, &mut ticks, QueryResultFlags::WAIT)
                .map_err(gpu_err("reading a timestamp"))?;
            return Ok(());
        }
        std::thread::yield_now();
    }
}

/// The host-visible contents of a staging subbuffer, without taking vulkano's lock (the
/// submission that wrote it is still running, on other ranges).
///
/// # Safety
///
/// The GPU must have finished writing `view`, nothing may write it while the returned slice
/// lives, and its memory must be host-coherent.
unsafe fn mapped<T: BufferContents + Pod>(view: &Subbuffer<[T]>) -> Result<&[T]> {
    let bytes = view
        .mapped_slice()
        .map_err(gpu_err("mapping a staging buffer"))?;
    let len = view.len() as usize;
    // SAFETY: `mapped_slice` points at the view's bytes in the persistent mapping, which
    // lives as long as the buffer (`view` borrows it); the bytes hold `len` values of the
    // plain-data type T (the buffer was created for T's alignment by `slice::<T>`), and the
    // caller guarantees they are finished and not written meanwhile.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u8>().cast::<T>(), len) })
}

/// Copies `src` into `dst` (same length) on all cores, in pieces of 256 KiB, with
/// non-temporal stores where the CPU has them (x86-64; `SORTNET_GPU_NT_COPY=0` turns them
/// off, to compare): ordinary stores first read every destination line into the cache
/// (read for ownership), a third more memory traffic on a host whose memory the PCIe copies
/// use at the same time. One thread moves 13-14 GB/s, the 16 of the H200 host 61-71 GB/s
/// into and out of staging memory alone (gpu_bench, run of 08:53 UTC), but only 42-46 GB/s
/// beside the PCIe copies of a streamed transfer (SORTNET_GPU_STREAM_TRACE, 2^28 u32 keys:
/// 0.73 ms per 32 MiB piece staged, 0.79 ms per piece copied out).
pub fn par_copy<T: Pod + Send + Sync>(dst: &mut [T], src: &[T]) {
    let piece = (COPY_PIECE_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    if dst.len() <= piece {
        copy_piece(dst, src);
        return;
    }
    on_copy_threads(move || {
        dst.par_chunks_mut(piece)
            .zip(src.par_chunks(piece))
            .for_each(|(d, s)| copy_piece(d, s))
    });
}

/// [`par_copy`] that also counts what `count` counts in `src`, each 256 KiB right after
/// copying it (while it is in cache, so the count costs no second trip to memory), and
/// returns the sums.
pub fn par_copy_counting<T: Pod + Send + Sync>(
    dst: &mut [T],
    src: &[T],
    count: &CountFn<T>,
) -> Counts {
    let piece = (COPY_PIECE_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    let one = |d: &mut [T], s: &[T]| {
        copy_piece(d, s);
        let mut counts = [0u32; 256];
        count(s, &mut counts);
        counts
    };
    on_copy_threads(move || {
        dst.par_chunks_mut(piece)
            .zip(src.par_chunks(piece))
            .map(|(d, s)| one(d, s))
            .reduce(
                || [0u32; 256],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    a
                },
            )
    })
}

/// Host copies split into pieces of this many bytes across the cores.
const COPY_PIECE_BYTES: usize = 256 << 10;

/// Copies one piece of a host copy, with non-temporal stores unless
/// `SORTNET_GPU_NT_COPY=0`.
fn copy_piece<T: Pod>(dst: &mut [T], src: &[T]) {
    static STREAMING: OnceLock<bool> = OnceLock::new();
    let streaming =
        *STREAMING.get_or_init(|| std::env::var("SORTNET_GPU_NT_COPY").as_deref() != Ok("0"));
    if streaming {
        stream_copy(bytemuck::cast_slice_mut(dst), bytemuck::cast_slice(src));
    } else {
        dst.copy_from_slice(src);
    }
}

/// Runs `work` (a host copy) on rayon's pool, or with `SORTNET_GPU_COPY_THREADS=<n>` on a
/// pool of n threads (measuring whether fewer copying cores leave the PCIe copies more
/// host memory bandwidth).
fn on_copy_threads<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        let threads = std::env::var("SORTNET_GPU_COPY_THREADS")
            .ok()?
            .parse()
            .ok()?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .ok()
    });
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Copies `src` into `dst` (same length) with non-temporal stores on x86-64 (SSE2, part of
/// the architecture), ordinary ones elsewhere; the stores are fenced before it returns.
fn stream_copy(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "stream_copy needs equal lengths");
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        const LINE: usize = 64;
        let head = dst.as_ptr().align_offset(16).min(dst.len());
        let body = (dst.len() - head) / LINE * LINE;
        dst[..head].copy_from_slice(&src[..head]);
        // SAFETY: SSE2 is part of x86-64. `d` is 16-byte aligned (`head` is its
        // alignment offset) and both `d` and `s` are valid for `body` bytes past `head`
        // (equal lengths, checked above); the loads are unaligned ones. The fence orders
        // the weakly ordered non-temporal stores before whatever follows.
        unsafe {
            let d = dst.as_mut_ptr().add(head);
            let s = src.as_ptr().add(head);
            for i in (0..body).step_by(LINE) {
                let (from, to) = (s.add(i).cast::<__m128i>(), d.add(i).cast::<__m128i>());
                let a = _mm_loadu_si128(from);
                let b = _mm_loadu_si128(from.add(1));
                let c = _mm_loadu_si128(from.add(2));
                let e = _mm_loadu_si128(from.add(3));
                _mm_stream_si128(to, a);
                _mm_stream_si128(to.add(1), b);
                _mm_stream_si128(to.add(2), c);
                _mm_stream_si128(to.add(3), e);
            }
            _mm_sfence();
        }
        dst[head + body..].copy_from_slice(&src[head + body..]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// The smallest piece of a streamed host transfer ([`GpuContext::round_trip_streamed`],
/// [`GpuContext::stream_pieces`]; large transfers take up to four times this, see
/// `GpuContext::pieces`), and half the size from which host slices stream: 16 MiB is about
/// 0.3 ms of PCIe copy (51-53 GB/s) and of host copying on 16 cores on the H200 device
/// machine (run of 08:53 UTC), long against a submission's overhead (tens of microseconds),
/// short enough that the first and last piece, which nothing overlaps, cost little.
pub const STREAM_PIECE_BYTES: u64 = 16 << 20;

/// How many pooled buffers of one size class are kept for reuse; more are freed on return.
const POOL_KEEP_PER_CLASS: usize = 4;

/// A buffer borrowed from the context's pool; returns there when dropped.
pub struct Pooled {
    context: Arc<GpuContext>,
    memory: Memory,
    class: u64,
    buffer: Option<Subbuffer<[u8]>>,
}

impl Pooled {
    /// The whole buffer (its size class, at least the bytes asked for).
    pub fn bytes(&self) -> Subbuffer<[u8]> {
        self.buffer.clone().expect("present until drop")
    }

    /// The first `len` elements (at least one) of the buffer viewed as `T`.
    ///
    /// `len` times the size of `T` must fit the buffer (the caller asked for at least that
    /// many bytes).
    pub fn slice<T: BufferContents>(&self, len: u64) -> Subbuffer<[T]> {
        let bytes = len.max(1) * std::mem::size_of::<T>() as u64;
        self.bytes().slice(0..bytes).reinterpret::<[T]>()
    }
}

impl Pooled {
    /// Takes the buffer out of the pool for good (it is freed when its last clone drops),
    /// for buffers that must outlive this call, such as those bound in a caller's command
    /// buffer.
    pub fn detach(mut self) -> Subbuffer<[u8]> {
        self.context
            .allocated
            .fetch_sub(self.class, Ordering::SeqCst);
        self.buffer.take().expect("present until drop")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(buffer) = self.buffer.take() else {
            return;
        };
        if let Ok(mut pool) = self.context.pool.lock() {
            let list = pool.entry((self.memory, self.class)).or_default();
            if list.len() < POOL_KEEP_PER_CLASS {
                list.push(buffer);
                return;
            }
        }
        self.context
            .allocated
            .fetch_sub(self.class, Ordering::SeqCst);
    }
}

fn read_limits(physical: &Arc<PhysicalDevice>, family: u32, shader_int64: bool) -> Limits {
    let p = physical.properties();
    let timestamps = physical.queue_family_properties()[family as usize].timestamp_valid_bits;
    let mut device_local_heaps = Vec::new();
    let mut host_heaps = Vec::new();
    for heap in &physical.memory_properties().memory_heaps {
        if heap.flags.intersects(MemoryHeapFlags::DEVICE_LOCAL) {
            device_local_heaps.push(heap.size);
        } else {
            host_heaps.push(heap.size);
        }
    }
    Limits {
        subgroup_size: p.subgroup_size,
        max_shared_memory: p.max_compute_shared_memory_size,
        max_workgroup_invocations: p.max_compute_work_group_invocations,
        max_workgroup_size_x: p.max_compute_work_group_size[0],
        max_workgroup_count: [
            p.max_compute_work_group_count[0],
            p.max_compute_work_group_count[1],
        ],
        max_storage_buffer_range: p.max_storage_buffer_range as u64,
        max_allocation: p.max_memory_allocation_size.unwrap_or(u64::MAX),
        timestamp_period_ns: timestamps
            .filter(|&bits| bits > 0)
            .map(|_| p.timestamp_period as f64),
        shader_int64,
        shader_float16: false,
        shader_int16: false,
        device_local_heaps,
        host_heaps,
    }
}

/// Diagnostics of one round trip that is not streamed (`SORTNET_GPU_HOST_TRACE` set): host
/// times of its steps and GPU timestamps of its upload, work and download, printed to
/// stderr when it ends, to find what separates a round trip from the transfers' bound.
/// Without the variable (or timestamps) every method does nothing.
pub(crate) struct RoundTripTrace(Option<TraceState>);

struct TraceState {
    start: Instant,
    host: Vec<(&'static str, f64)>,
    marks: Arc<QueryPool>,
}

impl RoundTripTrace {
    /// GPU marks: upload start and end, work start, work end, download end.
    const MARKS: u32 = 5;

    /// A trace where `SORTNET_GPU_HOST_TRACE` is set (read once per process) and the queue
    /// has timestamps.
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        static WANTED: OnceLock<bool> = OnceLock::new();
        let wanted = *WANTED.get_or_init(|| std::env::var_os("SORTNET_GPU_HOST_TRACE").is_some());
        if !wanted || ctx.limits.timestamp_period_ns.is_none() {
            return Ok(RoundTripTrace(None));
        }
        Ok(RoundTripTrace(Some(TraceState {
            start: Instant::now(),
            host: Vec::new(),
            marks: ctx.piece_marks(Self::MARKS)?,
        })))
    }

    /// Notes the host time of `step`.
    pub fn host(&mut self, step: &'static str) {
        if let Some(t) = &mut self.0 {
            t.host.push((step, t.start.elapsed().as_secs_f64() * 1e3));
        }
    }

    /// Records GPU mark `mark` (0: upload start, ..., 4: download end); mark 0 also resets
    /// the marks, so it must be the first recorded.
    pub fn mark(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        mark: u32,
    ) -> Result<()> {
        let Some(t) = &self.0 else { return Ok(()) };
        let stage = if mark == 0 || mark == 2 {
            PipelineStage::TopOfPipe
        } else {
            PipelineStage::AllCommands
        };
        // SAFETY: the pool is this trace's own; mark 0's command resets every query before
        // any is written, and each is written once, by commands that run in order.
        unsafe {
            if mark == 0 {
                builder
                    .reset_query_pool(t.marks.clone(), 0..Self::MARKS)
                    .map_err(gpu_err("resetting queries"))?;
            }
            builder
                .write_timestamp(t.marks.clone(), mark, stage)
                .map_err(gpu_err("recording a timestamp"))?;
        }
        Ok(())
    }

    /// Prints the trace (after the round trip's last submission has finished).
    pub fn print(mut self, ctx: &GpuContext, what: &str) -> Result<()> {
        self.host("done");
        let Some(t) = self.0 else { return Ok(()) };
        let mut ticks = [0u64; Self::MARKS as usize];
        t.marks
            .get_results(0..Self::MARKS, &mut ticks, QueryResultFlags::WAIT)
            .map_err(gpu_err("reading timestamps"))?;
        let ns = ctx.limits.timestamp_period_ns.unwrap_or(1.0);
        let at = |tick: u64| tick.wrapping_sub(ticks[0]) as f64 * ns * 1e-6;
        let host: Vec<String> = t
            .host
            .iter()
            .map(|(step, ms)| format!("{step} {ms:.3}"))
            .collect();
        eprintln!(
            "{what} round trip, host (ms): {}; GPU (ms): upload 0-{:.3}, work {:.3}-{:.3}, \
             download to {:.3}",
            host.join(", "),
            at(ticks[1]),
            at(ticks[2]),
            at(ticks[3]),
            at(ticks[4])
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_copies_match_plain_ones_at_every_alignment() {
        let src: Vec<u8> = (0..4096u32).map(|i| (i * 7 + i / 256) as u8).collect();
        for start in [0usize, 1, 3, 8, 15, 16, 17] {
            for len in [0usize, 1, 15, 16, 63, 64, 65, 200, 1000, 4000 - start] {
                let mut dst = vec![0u8; 4096];
                stream_copy(&mut dst[start..start + len], &src[7..7 + len]);
                assert_eq!(&dst[start..start + len], &src[7..7 + len], "{start} {len}");
                assert!(dst[..start]
                    .iter()
                    .chain(&dst[start + len..])
                    .all(|&b| b == 0));
            }
        }
        let words: Vec<u64> = (0..300_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9))
            .collect();
        let mut out = vec![0u64; words.len()];
        par_copy(&mut out, &words);
        assert_eq!(out, words);
    }

    #[test]
    fn memory_cap_parses_suffixes() {
        assert_eq!(parse_cap("4096"), Some(4096));
        assert_eq!(parse_cap("64k"), Some(64 << 10));
        assert_eq!(parse_cap("3M"), Some(3 << 20));
        assert_eq!(parse_cap(" 2g "), Some(2 << 30));
        assert_eq!(parse_cap("lots"), None);
        assert_eq!(parse_cap(""), None);
    }

    #[test]
    fn discrete_gpus_rank_before_software_drivers() {
        assert!(
            device_rank(PhysicalDeviceType::DiscreteGpu)
                < device_rank(PhysicalDeviceType::IntegratedGpu)
        );
        assert!(device_rank(PhysicalDeviceType::VirtualGpu) < device_rank(PhysicalDeviceType::Cpu));
    }
}
