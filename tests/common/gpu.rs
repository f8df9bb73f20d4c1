//! What a caller of the GPU API builds with vulkano, as the tests (and benches/gpu.rs) need
//! it: an instance, device and compute queue of its own, and buffers (device-local storage,
//! host-visible staging, or storage the host maps) filled from slices.

use std::sync::Arc;

use sortnet::gpu::context::GpuContext;
use sortnet::gpu::vulkano::buffer::{
    Buffer, BufferContents, BufferCreateInfo, BufferUsage, Subbuffer,
};
use sortnet::gpu::vulkano::device::{
    Device, DeviceCreateInfo, DeviceFeatures, Queue, QueueCreateInfo, QueueFlags,
};
use sortnet::gpu::vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
use sortnet::gpu::vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter};
use sortnet::gpu::vulkano::{Version, VulkanLibrary};

/// Which memory a test buffer lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Memory {
    /// Device-local.
    Device,
    /// Host-visible staging.
    Staging,
    /// Device-local where the host can map it, else host memory: read and written by the
    /// host directly.
    Mapped,
}

/// The caller's own instance (at most `api`), device and compute queue, with `int64`
/// enabled where the device has it; `None` without a Vulkan device.
pub fn own_queue(api: Version) -> Option<Arc<Queue>> {
    let library = VulkanLibrary::new().ok()?;
    let instance = Instance::new(
        library,
        InstanceCreateInfo {
            flags: InstanceCreateFlags::ENUMERATE_PORTABILITY,
            max_api_version: Some(api),
            ..Default::default()
        },
    )
    .ok()?;
    let (physical, family) = instance.enumerate_physical_devices().ok()?.find_map(|p| {
        let f = p
            .queue_family_properties()
            .iter()
            .position(|q| q.queue_flags.intersects(QueueFlags::COMPUTE))?;
        Some((p, f as u32))
    })?;
    let shader_int64 = physical.supported_features().shader_int64;
    let (_device, mut queues) = Device::new(
        physical,
        DeviceCreateInfo {
            queue_create_infos: vec![QueueCreateInfo {
                queue_family_index: family,
                ..Default::default()
            }],
            enabled_features: DeviceFeatures {
                shader_int64,
                ..DeviceFeatures::empty()
            },
            ..Default::default()
        },
    )
    .ok()?;
    queues.next()
}

/// sortnet's context on a Vulkan 1.3 device and queue of the caller's own
/// ([`GpuContext::from_queue`]), or `None` (skipped, or a failure under
/// `SORTNET_REQUIRE_GPU=1`) without a device.
pub fn own_context() -> Option<Arc<GpuContext>> {
    let queue = super::gpu_or_skip(own_queue(Version::V1_3), "a Vulkan device")?;
    Some(GpuContext::from_queue(queue).expect("a Vulkan 1.1 device with subgroups"))
}

/// A storage buffer (also a transfer source and destination) of `len` elements, at least
/// one, in `memory`.
pub fn typed<T: BufferContents>(
    ctx: &GpuContext,
    memory: Memory,
    len: u64,
) -> Result<Subbuffer<[T]>, String> {
    let filter = match memory {
        Memory::Device => MemoryTypeFilter::PREFER_DEVICE,
        Memory::Staging => MemoryTypeFilter::PREFER_HOST | MemoryTypeFilter::HOST_RANDOM_ACCESS,
        Memory::Mapped => MemoryTypeFilter::PREFER_DEVICE | MemoryTypeFilter::HOST_RANDOM_ACCESS,
    };
    Buffer::new_slice::<T>(
        ctx.memory_allocator().clone(),
        BufferCreateInfo {
            usage: BufferUsage::STORAGE_BUFFER
                | BufferUsage::TRANSFER_SRC
                | BufferUsage::TRANSFER_DST,
            ..Default::default()
        },
        AllocationCreateInfo {
            memory_type_filter: filter,
            ..Default::default()
        },
        len.max(1),
    )
    .map_err(|e| format!("allocating a test buffer: {e}"))
}

/// A host-visible buffer (`Staging` or `Mapped`) holding a copy of `data`.
pub fn filled<T: BufferContents + Copy>(
    ctx: &GpuContext,
    memory: Memory,
    data: &[T],
) -> Result<Subbuffer<[T]>, String> {
    let buf = typed::<T>(ctx, memory, data.len() as u64)?;
    if !data.is_empty() {
        buf.clone()
            .slice(0..data.len() as u64)
            .write()
            .map_err(|e| format!("mapping a test buffer: {e}"))?
            .copy_from_slice(data);
    }
    Ok(buf)
}

/// A test buffer of at least `bytes` bytes, viewed as any element type.
pub struct Buf(Subbuffer<[u8]>);

impl Buf {
    /// The whole buffer.
    pub fn bytes(&self) -> Subbuffer<[u8]> {
        self.0.clone()
    }

    /// The whole buffer, to keep (the tests' buffers are their own already).
    pub fn detach(self) -> Subbuffer<[u8]> {
        self.0
    }

    /// The first `len` elements (at least one) viewed as `T`.
    pub fn slice<T: BufferContents>(&self, len: u64) -> Subbuffer<[T]> {
        let bytes = len.max(1) * std::mem::size_of::<T>() as u64;
        self.0.clone().slice(0..bytes).reinterpret::<[T]>()
    }
}

/// A buffer of at least `bytes` bytes in `memory` (64-bit granules, so any element type up to
/// 8 bytes is aligned).
pub fn buffer(ctx: &GpuContext, memory: Memory, bytes: u64) -> Result<Buf, String> {
    Ok(Buf(
        typed::<u64>(ctx, memory, bytes.div_ceil(8))?.into_bytes()
    ))
}

/// A staging buffer holding a copy of `data` (at least one element's room).
pub fn stage_in<T: BufferContents + Copy>(ctx: &GpuContext, data: &[T]) -> Result<Buf, String> {
    let bytes = (data.len().max(1) * std::mem::size_of::<T>()) as u64;
    let buf = buffer(ctx, Memory::Staging, bytes)?;
    if !data.is_empty() {
        buf.slice::<T>(data.len() as u64)
            .write()
            .map_err(|e| format!("mapping a test buffer: {e}"))?
            .copy_from_slice(data);
    }
    Ok(buf)
}
