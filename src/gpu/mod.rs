//! The GPU wing: Vulkan compute through vulkano (feature `gpu`, on by default).
//!
//! - [`context`]: the Vulkan context (allocators, limits, pipelines from committed SPIR-V):
//!   the process-wide one of the backends ([`context::context()`]: device choice, queues; no
//!   loader or no device: `None`, and no GPU backend is listed), or one on the caller's own
//!   device and queue ([`context::GpuContext::from_queue`]).
//! - [`radix`]: the `vulkan-radix` backend and [`radix::RadixSorter`], which also records
//!   sorts of the caller's own buffers into the caller's command buffer.
//! - [`bitonic`]: the `vulkan-bitonic` backend (keys and nibbles; not pairs, as it is not
//!   stable) and [`bitonic::BitonicSorter`].
//! - [`nibble`]: the GPU nibble sort, shared by both Vulkan backends.
//! - [`transfer`]: how host slices travel ([`transfer::TransferConfig`]); [`HostBuffer`]:
//!   host memory the GPU copies directly.
//! - Inside: `copy` (a plain copy kernel, the benchmarks' bandwidth yardstick), `limits`
//!   (the device limits the sorters size their work from), `pool` (the crate's own buffers, and the few it keeps between calls),
//!   `host_copy` (the host's copies into and out of staging memory), `plan` (pure dispatch
//!   math, tested without a GPU).
//!
//! Shaders are GLSL in `shaders/`, compiled by `scripts/compile-shaders.sh` (glslc,
//! `--target-env=vulkan1.1 -O`) into `shaders/spv/`, committed, and loaded with
//! `include_bytes!`; `tests/gpu_shaders.rs` fails when the committed SPIR-V is stale.
//! Workgroup sizes and per-thread counts reach the shaders as specialization constants,
//! chosen from the device's limits; no shader assumes a subgroup size.
//!
//! Configuration: a registry's [`Options`](crate::backend::Options) say whether it offers
//! GPU backends and cap the device memory they allocate for their own buffers (so that
//! allocation failures can be tested); everything else is a config value passed to a
//! sorter's constructor.
//!
//! Memory: data on the GPU is sorted with scratch the caller owns ([`radix::RadixScratch`]).
//! The host-slice path keeps the device and staging buffers of its last sorts (up to four
//! per size class) for the next call, since allocating them costs more than the sort; a
//! [`radix::VulkanRadix`] built from a sorter with a small
//! [`transfer::TransferConfig::keep_bytes`] gives them back when each call returns.
//!
//! vulkano is re-exported as [`vulkano`](mod@vulkano), so that callers name the same
//! version's types as the crate's signatures.
//!
//! # On the application's own device
//!
//! An application that owns its Vulkan device (a renderer) wraps its queue in a context
//! with [`GpuContext::from_queue`](context::GpuContext::from_queue) (whose docs list the
//! requirements, the barriers and what to keep alive, and how an ash application wraps its
//! handles), builds the sorter and scratch once, and records a sort into each frame's
//! command buffer, with a count its own pass wrote and, for a 16-bit depth, `key_bits:
//! Some(16)` (two passes instead of four); `examples/gpu_app.rs` is such an application.
//!
//! ```no_run
//! use std::sync::Arc;
//! use sortnet::gpu::context::GpuContext;
//! use sortnet::gpu::radix::{Count, RadixSorter, SortJob};
//! use sortnet::gpu::vulkano;
//! use sortnet::{KeyMap, KeyWidth};
//! # fn main() -> sortnet::Result<()> {
//! # let (queue, keys, values, count, mut builder): (
//! #     Arc<vulkano::device::Queue>,
//! #     vulkano::buffer::Subbuffer<[u32]>,
//! #     vulkano::buffer::Subbuffer<[u32]>,
//! #     vulkano::buffer::Subbuffer<u32>,
//! #     vulkano::command_buffer::AutoCommandBufferBuilder<
//! #         vulkano::command_buffer::PrimaryAutoCommandBuffer>,
//! # ) = todo!();
//! let ctx = GpuContext::from_queue(queue)?; // Err names what the device lacks
//! let sorter = RadixSorter::new(ctx)?;
//! let scratch = sorter.new_scratch(KeyWidth::W32, true, keys.len())?; // once
//! let job = SortJob {
//!     keys,
//!     values: Some(values),
//!     width: KeyWidth::W32,
//!     map: KeyMap::Unsigned,
//!     count: Count::Buffer(count), // written by an earlier pass of the application's
//!     key_bits: Some(16),          // the low 16 bits only
//! };
//! sorter.record(&mut builder, &job, &scratch)?; // every frame
//! # Ok(()) }
//! ```
//!
//! # Data already on the GPU
//!
//! ```no_run
//! use sortnet::gpu::{bitonic::BitonicSorter, context::context, nibble, vulkano};
//! # fn main() -> sortnet::Result<()> {
//! # let (keys, values, words): (
//! #     vulkano::buffer::Subbuffer<[u32]>,
//! #     vulkano::buffer::Subbuffer<[u32]>,
//! #     vulkano::buffer::Subbuffer<[u64]>,
//! # ) = todo!();
//! let ctx = context().expect("a Vulkan device");
//! let sorter = BitonicSorter::new(ctx.clone());
//! // The bitonic sort works in place: no scratch buffer to provide.
//! assert_eq!(BitonicSorter::scratch_bytes(keys.len()), 0);
//! let mut builder = ctx.command_builder()?; // or any primary AutoCommandBufferBuilder
//! sorter.record_pairs(&mut builder, keys, values)?; // u32 keys, u32 values along (unstable)
//! nibble::record(&ctx, &mut builder, words)?; // every word's 16 nibbles
//! ctx.submit_and_wait(builder)?;
//! # Ok(()) }
//! ```

pub use vulkano;

pub mod bitonic;
pub mod context;
pub(crate) mod copy;
mod host_buffer;
mod host_copy;
pub(crate) mod limits;
pub mod nibble;
pub(crate) mod plan;
mod pool;
pub mod radix;
pub mod transfer;

pub use host_buffer::HostBuffer;

use std::sync::{Mutex, PoisonError};

use crate::backend::SortBackend;
use bitonic::{BitonicSorter, VulkanBitonic};
use radix::{RadixSorter, VulkanRadix};

/// The GPU backends usable here (none without a Vulkan loader and device), in their
/// registry order, with the shipped tuning, on the context whose own buffers take at most
/// `memory_cap` bytes ([`context::capped`]); made once per cap and kept for the process, as
/// registries hold `'static` backends.
pub(crate) fn backends(memory_cap: Option<u64>) -> Vec<&'static dyn SortBackend> {
    type Made = (Option<u64>, Vec<&'static dyn SortBackend>);
    static MADE: Mutex<Vec<Made>> = Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, list)) = made.iter().find(|(cap, _)| *cap == memory_cap) {
        return list.clone();
    }
    let mut list: Vec<&'static dyn SortBackend> = Vec::new();
    if let Some(ctx) = context::capped(memory_cap) {
        let bitonic = VulkanBitonic::new(BitonicSorter::new(ctx.clone()));
        list.push(Box::leak(Box::new(bitonic)));
        if let Some(radix) = RadixSorter::new(ctx).ok().and_then(VulkanRadix::new) {
            list.push(Box::leak(Box::new(radix)));
        }
    }
    made.push((memory_cap, list.clone()));
    list
}
