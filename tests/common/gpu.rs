//! Buffers a caller of the GPU API allocates with vulkano: device-local storage buffers and
//! host-visible staging buffers, as the tests need them.

use std::sync::Arc;

use sortnet::gpu::context::GpuContext;
use sortnet::gpu::vulkano::buffer::{
    Buffer, BufferContents, BufferCreateInfo, BufferUsage, Subbuffer,
};
use sortnet::gpu::vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter};

/// Which memory a test buffer lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Memory {
    /// Device-local storage buffer, also a transfer source and destination.
    Device,
    /// Host-visible staging buffer.
    Staging,
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

/// A buffer of at least `bytes` bytes in `memory` (64-byte granules, so any element type's
/// view is aligned).
pub fn buffer(ctx: &Arc<GpuContext>, memory: Memory, bytes: u64) -> Result<Buf, String> {
    let filter = match memory {
        Memory::Device => MemoryTypeFilter::PREFER_DEVICE,
        Memory::Staging => MemoryTypeFilter::PREFER_HOST | MemoryTypeFilter::HOST_RANDOM_ACCESS,
    };
    let usage = match memory {
        Memory::Device => {
            BufferUsage::STORAGE_BUFFER | BufferUsage::TRANSFER_SRC | BufferUsage::TRANSFER_DST
        }
        Memory::Staging => BufferUsage::TRANSFER_SRC | BufferUsage::TRANSFER_DST,
    };
    let buffer = Buffer::new_slice::<u64>(
        ctx.memory_allocator().clone(),
        BufferCreateInfo {
            usage,
            ..Default::default()
        },
        AllocationCreateInfo {
            memory_type_filter: filter,
            ..Default::default()
        },
        bytes.max(8).div_ceil(8),
    )
    .map_err(|e| format!("allocating a test buffer: {e}"))?;
    Ok(Buf(buffer.into_bytes()))
}

/// A staging buffer holding a copy of `data` (at least one element's room).
pub fn stage_in<T: BufferContents + Copy>(
    ctx: &Arc<GpuContext>,
    data: &[T],
) -> Result<Buf, String> {
    let bytes = (data.len().max(1) * std::mem::size_of::<T>()) as u64;
    let buf = buffer(ctx, Memory::Staging, bytes)?;
    if !data.is_empty() {
        buf.slice::<T>(data.len() as u64)
            .write()
            .expect("mapping a test buffer")
            .copy_from_slice(data);
    }
    Ok(buf)
}
