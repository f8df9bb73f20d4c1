//! The one Vulkan context every GPU backend shares: device choice, queues, allocators,
//! limits, and the helpers that turn committed SPIR-V into compute pipelines and submit
//! command buffers. Buffers come from `pool`, host slices travel through
//! [`transfer`](super::transfer).
//!
//! [`context()`] creates it lazily, once per process, and hands out the same
//! `Arc<GpuContext>` to every thread (`GpuContext` is `Send + Sync`; vulkano's queue and
//! allocators lock internally). It returns `None`, never panics, when there is no Vulkan
//! loader (`libvulkan.so.1` missing), no device with a compute queue, or device creation
//! fails; a registry without GPU backends ([`Options::gpu`](crate::backend::Options::gpu))
//! never reaches it.
//!
//! Device choice: a discrete GPU, else an integrated one, else a virtual one, else a CPU
//! (software) driver such as lavapipe. Backends on a software driver report
//! `Device::Gpu { software: true }` and `auto` never picks them.
//!
//! Queues: the compute queue, and where the device has one, a queue of a transfer-only
//! family (the copy engines) for the streamed host path's uploads and downloads, so that a
//! download runs beside the next compute work (on one queue NVIDIA ran them one after the
//! other: BENCHMARKS.md, "GPU host path"). Pooled buffers are then shared by both families.
//!
//! Memory cap: a context made with a cap (the shared one takes
//! [`Options::from_env`](crate::backend::Options::from_env)'s
//! [`gpu_memory_cap`](crate::backend::Options::gpu_memory_cap), a registry with another cap
//! its own) fails an allocation of the crate's own buffers past it with [`Error::Gpu`]
//! before touching Vulkan, so failure paths can be tested on any device.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use vulkano::command_buffer::allocator::StandardCommandBufferAllocator;
use vulkano::command_buffer::{
    AutoCommandBufferBuilder, CommandBufferUsage, PrimaryAutoCommandBuffer,
};
use vulkano::descriptor_set::allocator::StandardDescriptorSetAllocator;
use vulkano::device::physical::{PhysicalDevice, PhysicalDeviceType, SubgroupFeatures};
use vulkano::device::{
    Device, DeviceCreateInfo, DeviceFeatures, Queue, QueueCreateInfo, QueueFlags,
};
use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
use vulkano::memory::allocator::StandardMemoryAllocator;
use vulkano::pipeline::compute::ComputePipelineCreateInfo;
use vulkano::pipeline::layout::PipelineDescriptorSetLayoutCreateInfo;
use vulkano::pipeline::{ComputePipeline, PipelineLayout, PipelineShaderStageCreateInfo};
use vulkano::shader::{ShaderModule, ShaderModuleCreateInfo, ShaderStages, SpecializationConstant};
use vulkano::sync::future::FenceSignalFuture;
use vulkano::sync::GpuFuture;
use vulkano::VulkanLibrary;

use super::limits::{read_limits, Limits};
use super::pool::Pool;
use crate::error::{Error, Result};

/// The shared context, created on first use with the memory cap of
/// [`Options::from_env`](crate::backend::Options::from_env); `None` when no Vulkan device is
/// usable here.
pub fn context() -> Option<Arc<GpuContext>> {
    static CAP: OnceLock<Option<u64>> = OnceLock::new();
    capped(*CAP.get_or_init(|| crate::backend::Options::from_env().gpu_memory_cap))
}

/// The process's context whose own buffers take at most `memory_cap` bytes, created on
/// first use; one per cap, kept for the process (registries hold `'static` backends on
/// them). [`context()`] is the one of the environment's cap, which a registry of the same
/// cap shares.
pub(crate) fn capped(memory_cap: Option<u64>) -> Option<Arc<GpuContext>> {
    type Made = (Option<u64>, Option<Arc<GpuContext>>);
    static CONTEXTS: Mutex<Vec<Made>> = Mutex::new(Vec::new());
    let mut contexts = CONTEXTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, ctx)) = contexts.iter().find(|(cap, _)| *cap == memory_cap) {
        return ctx.clone();
    }
    let ctx = GpuContext::new(memory_cap).map(Arc::new).ok();
    contexts.push((memory_cap, ctx.clone()));
    ctx
}

/// Maps any vulkano error to [`Error::Gpu`], saying what was being done.
pub(crate) fn gpu_err<E: std::fmt::Display>(what: &'static str) -> impl FnOnce(E) -> Error {
    move |e| Error::Gpu(format!("{what}: {e}"))
}

/// The shared Vulkan state. Get it from [`context()`].
pub struct GpuContext {
    device: Arc<Device>,
    queue: Arc<Queue>,
    /// A queue of a transfer-only family (the copy engines) with timestamps, which carries
    /// the uploads and downloads of streamed host transfers so that they run beside the
    /// compute queue's work; `None` where the device has no such family (then the compute
    /// queue carries them). On the H200 a download on the compute queue held back the next
    /// submission's compute work until it finished, and moved about 27 GB/s against 48 on
    /// the transfer queue (BENCHMARKS.md, "GPU host path").
    pub(crate) transfer: Option<Arc<Queue>>,
    memory: Arc<StandardMemoryAllocator>,
    command_buffers: Arc<StandardCommandBufferAllocator>,
    descriptor_sets: Arc<StandardDescriptorSetAllocator>,
    limits: Limits,
    software: bool,
    name: String,
    driver: String,
    memory_cap: Option<u64>,
    /// Bytes held in the crate's own buffers (pooled ones included), against the cap.
    pub(crate) allocated: AtomicU64,
    /// The small pool of buffers shared by every sorter of this context.
    pub(crate) pool: Arc<Pool>,
    /// Whether staging memory is host-coherent, probed on first use.
    pub(crate) staging_coherent: OnceLock<bool>,
    /// The nibble kernel's pipelines on this device.
    pub(crate) nibble_pipelines: super::nibble::PipelineCache,
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

/// What the device and queue lack for sortnet's GPU sorts, one phrase each (empty: nothing).
fn missing_requirements(queue: &Queue) -> Vec<String> {
    let device = queue.device();
    let physical = device.physical_device();
    let props = physical.properties();
    let mut missing = Vec::new();
    if device.api_version() < vulkano::Version::V1_1 {
        missing.push(format!(
            "Vulkan 1.1 (the device runs {}; the instance's max_api_version caps it)",
            device.api_version()
        ));
    }
    let family = &physical.queue_family_properties()[queue.queue_family_index() as usize];
    if !family.queue_flags.intersects(QueueFlags::COMPUTE) {
        missing.push(format!(
            "a compute queue (queue family {} has {:?})",
            queue.queue_family_index(),
            family.queue_flags
        ));
    }
    let needed = [
        (SubgroupFeatures::BASIC, "basic"),
        (SubgroupFeatures::BALLOT, "ballot"),
        (SubgroupFeatures::ARITHMETIC, "arithmetic"),
        (SubgroupFeatures::SHUFFLE, "shuffle"),
    ];
    match props.subgroup_supported_operations {
        Some(ops) => {
            let lacking: Vec<&str> = needed
                .iter()
                .filter(|(f, _)| !ops.contains(*f))
                .map(|(_, name)| *name)
                .collect();
            if !lacking.is_empty() {
                missing.push(format!(
                    "subgroup operations {} (subgroupSupportedOperations)",
                    lacking.join(", ")
                ));
            }
        }
        None => missing.push("subgroup properties (Vulkan 1.1)".into()),
    }
    if !props
        .subgroup_supported_stages
        .is_some_and(|s| s.contains(ShaderStages::COMPUTE))
    {
        missing.push("subgroup operations in compute shaders (subgroupSupportedStages)".into());
    }
    if props.subgroup_size.is_none() {
        missing.push("a reported subgroup size (subgroupSize)".into());
    }
    missing
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

impl GpuContext {
    /// A context on the first device of [`device_rank`]'s order, whose own buffers take at
    /// most `memory_cap` bytes.
    pub(crate) fn new(memory_cap: Option<u64>) -> Result<Self> {
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
        let transfer_family = transfer_only_family(&physical);
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
        let (_, mut queues) = Device::new(
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
        Ok(Self::on_queue(queue, transfer, memory_cap))
    }

    /// A context on the caller's own device and queue: the sorters built on it
    /// ([`RadixSorter::new`], [`BitonicSorter::new`], the [`nibble`] kernel) make their
    /// pipelines, allocators and buffers on that device and record for that queue's family;
    /// nothing process-wide is involved (the shared [`context()`] is for the host-slice
    /// backends). `Err` names every missing requirement: a device of Vulkan 1.1 or later, a
    /// queue family with compute, and the subgroup operations the radix sort uses (basic,
    /// ballot, arithmetic, shuffle) in compute shaders. Optional features are used where the
    /// caller enabled them on the device: `shaderInt64` (the nibble kernel needs it),
    /// `shaderFloat16`, `shaderInt16`. The context has no memory cap and no transfer queue
    /// of its own.
    ///
    /// Requirements on the caller:
    ///
    /// - Buffers of a [`SortJob`] need `STORAGE_BUFFER` usage only (a `Count::Buffer` too:
    ///   the sort reads it through a storage binding), and must be accessible from this
    ///   queue's family (created on it, or `Sharing::Concurrent`, or moved to it by a queue
    ///   family ownership transfer).
    /// - Submit the command buffers the sorters record to this queue, or another queue of
    ///   its family.
    /// - Barriers: vulkano's `AutoCommandBufferBuilder` inserts the pipeline barriers between
    ///   commands recorded into the same builder, so a compute pass of the caller's that
    ///   writes the keys, values or count before the recorded sort, and a pass that reads
    ///   them after it, need nothing more. Where the keys come from outside the builder
    ///   (another command buffer, another queue), the caller owes what Vulkan requires for
    ///   any compute-shader read and write of those buffers: a semaphore, or a barrier from
    ///   the producer's stage to `COMPUTE_SHADER` with `SHADER_READ | SHADER_WRITE` (and
    ///   `TRANSFER` / `TRANSFER_READ` for a count buffer, which is copied); and after it,
    ///   from `COMPUTE_SHADER` with `SHADER_WRITE` to the consumer's stage and access.
    /// - Keep alive, until the GPU has finished the command buffers: the queue (and so the
    ///   device, which this context holds), the sorter, the scratch, and the job's buffers.
    ///   vulkano's command buffers hold the buffers and pipelines they use, so dropping the
    ///   builder's result only after its fence has signalled suffices.
    ///
    /// # An application written with ash (raw Vulkan handles)
    ///
    /// vulkano wraps existing handles with `Instance::from_handle`,
    /// `PhysicalDevice::from_handle` and `Device::from_handle` (all `unsafe`: the handles
    /// must be valid, and each create info must be the one the object was created with, so
    /// that vulkano knows the API version, enabled features and extensions). In vulkano 0.35
    /// the queues come from `Device::from_handle`'s iterator, one per queue of
    /// `queue_create_infos` (`Queue::from_handle` is not public):
    ///
    /// ```ignore
    /// use std::mem::ManuallyDrop;
    /// use sortnet::gpu::vulkano::{self, Handle, device::*, instance::*};
    /// let instance = unsafe { Instance::from_handle(library, ash_instance.handle(), instance_info) };
    /// let physical = unsafe { PhysicalDevice::from_handle(instance.clone(), ash_physical)? };
    /// let (device, mut queues) = unsafe {
    ///     Device::from_handle(physical, ash_device.handle(), DeviceCreateInfo {
    ///         queue_create_infos: vec![QueueCreateInfo { queue_family_index: family,
    ///                                                    ..Default::default() }],
    ///         enabled_features, enabled_extensions, ..Default::default() })
    /// };
    /// let queue = queues.next().unwrap(); // the queue (family, 0)
    /// // vulkano destroys the handles it wraps when the last Arc goes; the application
    /// // destroys them itself, so it keeps one Arc of each that is never dropped.
    /// let keep = ManuallyDrop::new((instance, device.clone()));
    /// let ctx = sortnet::gpu::context::GpuContext::from_queue(queue)?;
    /// ```
    ///
    /// The application then records the sort into a vulkano builder, submits it on the
    /// vulkano `Queue` (or orders it against its own submissions on the same `VkQueue` with
    /// semaphores: vulkano locks the queue only for its own submissions, so the application
    /// must not submit to that `VkQueue` from another thread meanwhile), waits for it before
    /// it destroys its device, and drops every sortnet object (sorters, scratch, context)
    /// before destroying the device with ash.
    ///
    /// [`RadixSorter::new`]: super::radix::RadixSorter::new
    /// [`BitonicSorter::new`]: super::bitonic::BitonicSorter::new
    /// [`nibble`]: super::nibble
    /// [`SortJob`]: super::radix::SortJob
    pub fn from_queue(queue: Arc<Queue>) -> Result<Arc<Self>> {
        let missing = missing_requirements(&queue);
        if !missing.is_empty() {
            return Err(Error::Gpu(format!(
                "this device and queue cannot run sortnet's GPU sorts: {}",
                missing.join("; ")
            )));
        }
        Ok(Arc::new(Self::on_queue(queue, None, None)))
    }

    /// The context of a device and its compute queue (and transfer queue, if any).
    fn on_queue(queue: Arc<Queue>, transfer: Option<Arc<Queue>>, memory_cap: Option<u64>) -> Self {
        let device = queue.device().clone();
        let physical = device.physical_device().clone();
        let enabled = device.enabled_features();
        let mut limits = read_limits(&physical, queue.queue_family_index(), enabled.shader_int64);
        limits.shader_float16 =
            enabled.shader_float16 && device.api_version() >= vulkano::Version::V1_2;
        limits.shader_int16 = enabled.shader_int16;
        let props = physical.properties();
        GpuContext {
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
            transfer,
            limits,
            memory_cap,
            allocated: AtomicU64::new(0),
            pool: Arc::new(Pool::new(super::pool::SHARED_KEEP_BYTES)),
            staging_coherent: OnceLock::new(),
            nibble_pipelines: Default::default(),
        }
    }

    /// The logical device.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The compute queue all sorts are submitted to.
    pub fn queue(&self) -> &Arc<Queue> {
        &self.queue
    }

    /// The memory allocator (for buffers of the caller's own, such as a [`SortJob`]'s).
    ///
    /// [`SortJob`]: super::radix::SortJob
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
    pub(crate) fn limits(&self) -> &Limits {
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

    /// The most bytes the crate's own buffers take on this context, if capped
    /// ([`Options::gpu_memory_cap`](crate::backend::Options::gpu_memory_cap)).
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
    pub(crate) fn compute_pipeline(
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
    pub(crate) fn submit_while_recording(
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

    /// A one-time-submit primary command buffer builder for `queue`'s family.
    pub(crate) fn builder_on(
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

    /// Builds `builder` and submits it on the compute queue without waiting.
    pub(crate) fn submit(
        &self,
        builder: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    ) -> Result<Submitted> {
        self.submit_on(&self.queue, builder)
    }

    /// Builds `builder` (made for `queue`'s family) and submits it on `queue` without
    /// waiting.
    pub(crate) fn submit_on(
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
}

/// A submitted command buffer (or chain of them); waiting on it (or dropping it) waits for
/// the GPU.
pub(crate) type Submitted = FenceSignalFuture<Box<dyn GpuFuture + Send>>;

/// Waits for a round trip's submission by polling its fence: a blocking wait cost 3-4% of a
/// round trip of 2^24 u32 keys on an H200 (BENCHMARKS.md, "GPU host path"). The streamed
/// paths wait blocking: their host copies run on every core meanwhile, and a polling thread
/// would take time from them.
fn wait_polling<F: GpuFuture>(done: &FenceSignalFuture<F>) -> Result<()> {
    while !done.is_signaled().map_err(gpu_err("polling a fence"))? {
        std::thread::yield_now();
    }
    done.wait(None).map_err(gpu_err("waiting for the GPU"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discrete_gpus_rank_before_software_drivers() {
        assert!(
            device_rank(PhysicalDeviceType::DiscreteGpu)
                < device_rank(PhysicalDeviceType::IntegratedGpu)
        );
        assert!(device_rank(PhysicalDeviceType::VirtualGpu) < device_rank(PhysicalDeviceType::Cpu));
    }
}
