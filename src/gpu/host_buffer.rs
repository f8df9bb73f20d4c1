//! Host memory that the GPU copies to and from directly.
//!
//! A slice of an ordinary `Vec` reaches the GPU through staging memory: the host copies it
//! there (and back), beside the GPU's own copies over PCIe, which costs the end-to-end sort
//! 15-40% of the transfer bound; pinning the caller's pages in place instead costs more than
//! the transfers themselves (2.2 ms to pin and 1.4 ms to unpin 64 MiB on the H200's host,
//! against 2.5 ms to move them up and down; BENCHMARKS.md, "GPU host path"). A [`HostBuffer`] is allocated where the GPU can copy directly (the staging
//! memory type), once, and reused: `vulkan-radix` sorting a slice that lies inside one copies
//! it to the device and back with no host copy.
//!
//! ```no_run
//! use sortnet::backend;
//! use sortnet::gpu::HostBuffer;
//!
//! let mut keys = HostBuffer::<u32>::new(1 << 24).unwrap();
//! for (i, k) in keys.iter_mut().enumerate() {
//!     *k = (i as u32).wrapping_mul(2_654_435_761);
//! }
//! let gpu = backend::by_name("vulkan-radix").unwrap();
//! gpu.sort(&mut keys[..]).unwrap();
//! ```

use std::ops::{Deref, DerefMut, Range};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use bytemuck::Pod;
use vulkano::buffer::{BufferContents, Subbuffer};

use super::context::{context, gpu_err, GpuContext};
use super::pool::{Memory, Pooled};
use super::transfer::HostPath;
use crate::error::{Error, Result};

/// `len` values of `T` in host memory that the GPU copies directly (host-visible and
/// host-coherent, mapped for the buffer's whole life). It dereferences to a slice; sorting
/// that slice, or a part of it, with `vulkan-radix` skips the staging copies (other backends
/// see an ordinary slice).
///
/// The memory counts as the GPU's staging memory (on NVIDIA, pinned host pages).
///
/// # Errors and the data
///
/// A sort that returns `Err` before its last GPU command leaves the slice untouched, as
/// for any slice. The sorted result, however, is written into the buffer by the GPU's own
/// final copy (that is what saves the staging copies), so a device lost *during that copy*
/// can leave the slice partly written: sorted in its first part, original in the rest.
/// With an ordinary slice the host writes the result only after every GPU command
/// succeeded, so it is untouched or fully sorted on `Err`.
pub struct HostBuffer<T> {
    buffer: Subbuffer<[u8]>,
    ptr: NonNull<T>,
    len: usize,
}

// SAFETY: the buffer owns its memory exclusively (it was taken out of the pool for good and
// is registered only for lookups of slices the caller hands in), so moving or sharing the
// handle across threads is as safe as moving or sharing a Vec<T>.
unsafe impl<T: Send> Send for HostBuffer<T> {}
// SAFETY: as above; shared access only reads through `Deref`.
unsafe impl<T: Sync> Sync for HostBuffer<T> {}

impl<T: BufferContents + Pod> HostBuffer<T> {
    /// `len` zeroed values. Fails with [`Error::Gpu`] without a GPU context, or where the
    /// GPU's staging memory is not host-coherent.
    pub fn new(len: usize) -> Result<Self> {
        let ctx = context().ok_or_else(|| Error::Gpu("no Vulkan device".into()))?;
        Self::on(&ctx, len)
    }

    /// A copy of `data`.
    pub fn from_slice(data: &[T]) -> Result<Self> {
        let mut buffer = Self::new(data.len())?;
        buffer.copy_from_slice(data);
        Ok(buffer)
    }

    fn on(ctx: &Arc<GpuContext>, len: usize) -> Result<Self> {
        if !ctx.staging_is_coherent() {
            return Err(Error::Gpu(
                "the GPU's host-visible memory is not host-coherent".into(),
            ));
        }
        let bytes = (len.max(1) * std::mem::size_of::<T>()) as u64;
        let buffer = ctx.buffer(Memory::Staging, bytes)?.detach();
        let mapped = buffer
            .clone()
            .slice(0..bytes)
            .mapped_slice()
            .map_err(gpu_err("mapping a host buffer"))?;
        let ptr = mapped.cast::<T>();
        // SAFETY: the mapping holds `bytes` >= len * size_of::<T>() bytes, aligned for T (the
        // allocation is aligned far beyond any plain-data type), host-coherent and written by
        // nothing else (the buffer is ours alone); zero is a valid T (Pod).
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, len) };
        registry()
            .lock()
            .map_err(|_| Error::Gpu("host buffer registry lock poisoned".into()))?
            .push(Registered {
                range: range_of(ptr.as_ptr().cast::<u8>(), len * std::mem::size_of::<T>()),
                buffer: buffer.clone(),
            });
        Ok(HostBuffer { buffer, ptr, len })
    }
}

impl<T> Deref for HostBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points at `len` initialized values in the buffer's mapping, which
        // lives as long as `self`; the GPU touches them only inside a sort of a slice of
        // them, which borrows them mutably for its whole duration.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for HostBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `&mut self` makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for HostBuffer<T> {
    fn drop(&mut self) {
        if let Ok(mut list) = registry().lock() {
            let start = self.ptr.as_ptr() as usize;
            list.retain(|r| r.range.start != start);
        }
    }
}

impl<T> std::fmt::Debug for HostBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostBuffer")
            .field("len", &self.len)
            .field("bytes", &self.buffer.size())
            .finish()
    }
}

/// A live host buffer's mapped bytes (addresses) and its buffer.
struct Registered {
    range: Range<usize>,
    buffer: Subbuffer<[u8]>,
}

fn registry() -> &'static Mutex<Vec<Registered>> {
    static REGISTRY: Mutex<Vec<Registered>> = Mutex::new(Vec::new());
    &REGISTRY
}

fn range_of(ptr: *const u8, bytes: usize) -> Range<usize> {
    let start = ptr as usize;
    start..start + bytes
}

/// Where `outer` holds all of `inner` (non-empty), the byte offset of `inner` in it.
fn offset_within(outer: &Range<usize>, inner: &Range<usize>) -> Option<u64> {
    (!inner.is_empty() && outer.start <= inner.start && inner.end <= outer.end)
        .then(|| (inner.start - outer.start) as u64)
}

/// The host side of a GPU round trip of `data`: the range of a live [`HostBuffer`] that
/// holds it, which the GPU copies directly, or else a staging copy of it.
pub(crate) struct HostSide<T> {
    /// What the GPU copies from and, after the work, into.
    pub view: Subbuffer<[T]>,
    staging: Option<Pooled>,
}

impl<T: BufferContents + Pod> HostSide<T> {
    pub(crate) fn of(path: &HostPath, data: &[T]) -> Result<Self> {
        if let Some(view) = device_view(data) {
            return Ok(HostSide {
                view,
                staging: None,
            });
        }
        let staging = path.stage_in(data)?;
        Ok(HostSide {
            view: staging.slice::<T>(data.len() as u64),
            staging: Some(staging),
        })
    }

    /// After the GPU's copy into `view` was waited for: brings a staged result back into
    /// `data` (a host buffer's range already holds it).
    pub(crate) fn finish(self, data: &mut [T]) -> Result<()> {
        match self.staging {
            Some(staging) => GpuContext::stage_out(&staging, data),
            None => Ok(()),
        }
    }
}

impl<T: BufferContents> HostBuffer<T> {
    /// Whether `data` (non-empty) lies inside a live host buffer, so that `vulkan-radix`
    /// copies it without staging.
    pub fn holds(data: &[T]) -> bool {
        is_in_host_buffer(data)
    }
}

/// Whether `data` (non-empty) lies inside a live [`HostBuffer`], so that `vulkan-radix`
/// copies it without staging.
pub(crate) fn is_in_host_buffer<T: BufferContents>(data: &[T]) -> bool {
    device_view(data).is_some()
}

/// The GPU's view of `data` where it lies inside a live [`HostBuffer`]: the buffer range
/// that holds exactly its bytes, for copies to and from the device.
pub(crate) fn device_view<T: BufferContents>(data: &[T]) -> Option<Subbuffer<[T]>> {
    let bytes = std::mem::size_of_val(data);
    let wanted = range_of(data.as_ptr().cast::<u8>(), bytes);
    let list = registry().lock().ok()?;
    list.iter().find_map(|r| {
        let at = offset_within(&r.range, &wanted)?;
        Some(
            r.buffer
                .clone()
                .slice(at..at + bytes as u64)
                .reinterpret::<[T]>(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::offset_within;

    #[test]
    fn a_slice_is_found_only_wholly_inside_a_buffer() {
        let outer = 1000..2000;
        assert_eq!(offset_within(&outer, &(1000..2000)), Some(0));
        assert_eq!(offset_within(&outer, &(1200..1300)), Some(200));
        assert_eq!(offset_within(&outer, &(999..1300)), None);
        assert_eq!(offset_within(&outer, &(1900..2001)), None);
        assert_eq!(offset_within(&outer, &(1500..1500)), None);
    }
}
