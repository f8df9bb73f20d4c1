//! Buffers the crate allocates for its own work (device buffers of a round trip, staging
//! memory), by size class, and the few it keeps for the next call.
//!
//! A [`Pool`] keeps at most [`KEEP_PER_CLASS`] returned buffers of each size class, and no
//! more bytes than its budget: the context's shared pool [`SHARED_KEEP_BYTES`], a sorter's
//! own pool what its `TransferConfig::keep_bytes` says. Device memory and pinned staging
//! memory cost far more to allocate than to reuse (on the H200 machine, allocating a
//! round trip's buffers on every call made `vulkan-radix` 6-9x slower end to end at 2^24
//! and 2^26 u32 keys, slower than the CPU; BENCHMARKS.md, "GPU host path"), so by default
//! the GPU host path keeps its buffers for the next call; a sorter with a small
//! `keep_bytes` gives them back when each call returns.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use bytemuck::Pod;
use vulkano::buffer::{Buffer, BufferContents, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::memory::allocator::{
    AllocationCreateInfo, MemoryAllocatePreference, MemoryTypeFilter,
};
use vulkano::memory::MemoryPropertyFlags;
use vulkano::DeviceSize;

use super::context::{gpu_err, GpuContext};
use super::host_copy::par_copy;
use crate::error::{Error, Result};

/// Bytes of returned buffers the context's shared pool keeps for the next call: no byte
/// limit, only [`KEEP_PER_CLASS`] (see the module docs for why).
pub(crate) const SHARED_KEEP_BYTES: u64 = u64::MAX;

/// Returned buffers a pool keeps per memory kind and size class: a round trip needs up to
/// four of one class at once (keys, scratch, and the values' pair of them).
pub(crate) const KEEP_PER_CLASS: usize = 4;

/// Buffers of at least this many bytes get a device memory allocation of their own, so that
/// dropping them returns the memory (a few allocations per sort, each of megabytes: their
/// cost is small against the copies of as many bytes).
const DEDICATED_FROM_BYTES: u64 = 4 << 20;

/// Which memory a pooled buffer lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Memory {
    /// Device-local storage buffer, also a transfer source and destination.
    Device,
    /// Host-visible, host-cached staging buffer for uploads and downloads.
    Staging,
}

/// Free buffers by memory kind and size class (a power of two, in bytes), and their bytes.
#[derive(Default)]
struct Free {
    buffers: HashMap<(Memory, u64), Vec<Subbuffer<[u8]>>>,
    bytes: u64,
}

/// Returned buffers kept for reuse, up to a byte budget.
pub(crate) struct Pool {
    keep_bytes: u64,
    free: Mutex<Free>,
}

impl Pool {
    /// A pool that keeps at most `keep_bytes` bytes of returned buffers.
    pub(crate) fn new(keep_bytes: u64) -> Self {
        Pool {
            keep_bytes,
            free: Mutex::new(Free::default()),
        }
    }

    /// Frees every kept buffer.
    fn trim(&self, ctx: &GpuContext) {
        if let Ok(mut free) = self.free.lock() {
            free.buffers.clear();
            ctx.allocated.fetch_sub(free.bytes, Ordering::SeqCst);
            free.bytes = 0;
        }
    }
}

/// A buffer borrowed from a pool; returns there when dropped (or is freed, past the pool's
/// budget).
pub(crate) struct Pooled {
    context: Arc<GpuContext>,
    pool: Arc<Pool>,
    memory: Memory,
    class: u64,
    buffer: Option<Subbuffer<[u8]>>,
}

impl Pooled {
    /// The whole buffer (its size class, at least the bytes asked for).
    pub(crate) fn bytes(&self) -> Subbuffer<[u8]> {
        self.buffer.clone().expect("present until drop")
    }

    /// The first `len` elements (at least one) of the buffer viewed as `T`.
    ///
    /// `len` times the size of `T` must fit the buffer (the caller asked for at least that
    /// many bytes).
    pub(crate) fn slice<T: BufferContents>(&self, len: u64) -> Subbuffer<[T]> {
        let bytes = len.max(1) * std::mem::size_of::<T>() as u64;
        self.bytes().slice(0..bytes).reinterpret::<[T]>()
    }

    /// Takes the buffer out of the pool for good (it is freed when its last clone drops),
    /// for buffers that must outlive this call, such as those bound in a caller's command
    /// buffer.
    pub(crate) fn detach(mut self) -> Subbuffer<[u8]> {
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
        if let Ok(mut free) = self.pool.free.lock() {
            let kept = free
                .buffers
                .get(&(self.memory, self.class))
                .map_or(0, Vec::len);
            if kept < KEEP_PER_CLASS
                && free.bytes.saturating_add(self.class) <= self.pool.keep_bytes
            {
                free.bytes += self.class;
                free.buffers
                    .entry((self.memory, self.class))
                    .or_default()
                    .push(buffer);
                return;
            }
        }
        self.context
            .allocated
            .fetch_sub(self.class, Ordering::SeqCst);
    }
}

impl GpuContext {
    /// A buffer of at least `bytes` bytes in `memory` from the shared pool (see
    /// [`buffer_from`](Self::buffer_from)).
    pub(crate) fn buffer(self: &Arc<Self>, memory: Memory, bytes: u64) -> Result<Pooled> {
        self.buffer_from(&self.pool.clone(), memory, bytes)
    }

    /// A buffer of at least `bytes` bytes in `memory`, from `pool` when one of its size
    /// class (the next power of two) is free there, else newly allocated. Dropping the
    /// returned [`Pooled`] gives it back to `pool`. Fails with [`Error::Gpu`] over the
    /// memory cap.
    pub(crate) fn buffer_from(
        self: &Arc<Self>,
        pool: &Arc<Pool>,
        memory: Memory,
        bytes: u64,
    ) -> Result<Pooled> {
        let class = bytes.max(256).next_power_of_two();
        let reused = {
            let mut free = pool
                .free
                .lock()
                .map_err(|_| Error::Gpu("buffer pool lock poisoned".into()))?;
            let reused = free.buffers.get_mut(&(memory, class)).and_then(Vec::pop);
            if reused.is_some() {
                free.bytes -= class;
            }
            reused
        };
        let buffer = match reused {
            Some(b) => b,
            None => match self.allocate(memory, class) {
                Ok(b) => b,
                Err(e) => {
                    // Room may be held by kept buffers: free them and try once more.
                    pool.trim(self);
                    self.pool.trim(self);
                    self.allocate(memory, class).map_err(|_| e)?
                }
            },
        };
        Ok(Pooled {
            context: self.clone(),
            pool: pool.clone(),
            memory,
            class,
            buffer: Some(buffer),
        })
    }

    fn allocate(&self, memory: Memory, bytes: u64) -> Result<Subbuffer<[u8]>> {
        let total = self.allocated.fetch_add(bytes, Ordering::SeqCst) + bytes;
        if let Some(cap) = self.memory_cap() {
            if total > cap {
                self.allocated.fetch_sub(bytes, Ordering::SeqCst);
                return Err(Error::Gpu(format!(
                    "allocating {bytes} bytes would exceed the GPU memory cap of {cap} bytes \
                     (Options::gpu_memory_cap, SORTNET_GPU_MEMORY_CAP)"
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
                [self.queue().queue_family_index(), t.queue_family_index()]
                    .into_iter()
                    .collect(),
            ),
            None => vulkano::sync::Sharing::Exclusive,
        };
        Buffer::new_slice::<u8>(
            self.memory_allocator().clone(),
            BufferCreateInfo {
                usage,
                sharing,
                ..Default::default()
            },
            AllocationCreateInfo {
                memory_type_filter: filter,
                // Large buffers get memory of their own, which goes back to the driver when
                // they are dropped; suballocated from vulkano's blocks, their memory would stay
                // with the allocator (and staging memory resident) after the call.
                allocate_preference: if bytes >= DEDICATED_FROM_BYTES {
                    MemoryAllocatePreference::AlwaysAllocate
                } else {
                    MemoryAllocatePreference::Unknown
                },
                ..Default::default()
            },
            bytes as DeviceSize,
        )
        .map_err(|e| {
            self.allocated.fetch_sub(bytes, Ordering::SeqCst);
            Error::Gpu(format!("allocating a {bytes}-byte buffer: {e}"))
        })
    }

    /// A staging buffer from `pool` holding a copy of `data` (at least one element's room),
    /// ready to be copied to the device with `CopyBufferInfo::buffers(staging.slice(len), ..)`.
    pub(crate) fn stage_in<T: BufferContents + Pod>(
        self: &Arc<Self>,
        pool: &Arc<Pool>,
        data: &[T],
    ) -> Result<Pooled> {
        let size = std::mem::size_of::<T>() as u64;
        let staging = self.buffer_from(pool, Memory::Staging, (data.len() as u64).max(1) * size)?;
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
    pub(crate) fn stage_out<T: BufferContents + Pod>(
        staging: &Pooled,
        out: &mut [T],
    ) -> Result<()> {
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

    /// Whether staging memory is host-coherent (a mapping sees the GPU's copies without
    /// flushes or invalidations).
    pub(crate) fn staging_is_coherent(&self) -> bool {
        *self.staging_coherent.get_or_init(|| {
            let Ok(probe) = self.allocate(Memory::Staging, 256) else {
                return false;
            };
            let coherent = match probe.buffer().memory() {
                vulkano::buffer::BufferMemory::Normal(m) => {
                    let index = m.device_memory().memory_type_index() as usize;
                    self.device()
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::context::context;

    /// Small buffers come back from the pool; buffers past its budget go back to the driver.
    #[test]
    fn a_pool_reuses_within_its_budget_and_frees_beyond() {
        let Some(ctx) = context() else { return };
        let pool = Arc::new(Pool::new(1 << 20));
        let bytes = (300 << 10) + 12345;
        let first = ctx
            .buffer_from(&pool, Memory::Staging, bytes)
            .unwrap()
            .bytes();
        let again = ctx.buffer_from(&pool, Memory::Staging, bytes).unwrap();
        assert!(Arc::ptr_eq(again.bytes().buffer(), first.buffer()));
        assert!(again.bytes().size() >= bytes);
        drop(again);
        let big = ctx.buffer_from(&pool, Memory::Staging, 4 << 20).unwrap();
        drop(big);
        let free = pool.free.lock().unwrap();
        assert_eq!(free.bytes, 512 << 10, "only the small buffer is kept");
    }
}
