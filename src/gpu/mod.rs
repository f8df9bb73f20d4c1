//! The GPU wing: Vulkan compute through vulkano (feature `gpu`, on by default).
//!
//! - [`context`]: the one shared Vulkan context (device choice, queue, allocators, limits,
//!   buffer pool, pipelines from committed SPIR-V). No loader or no device: `None`, and no
//!   GPU backend is listed.
//! - [`bitonic`]: the `vulkan-bitonic` backend and [`bitonic::BitonicSorter`], which also
//!   records sorts of the caller's own buffers into the caller's command buffer.
//! - [`nibble`]: the GPU nibble sort, shared by both Vulkan backends.
//! - [`plan`]: pure dispatch math (grids, the bitonic schedule), tested without a GPU.
//! - [`copy`]: a plain copy kernel, the bandwidth yardstick for benchmarks.
//!
//! Shaders are GLSL in `shaders/`, compiled by `scripts/compile-shaders.sh` (glslc,
//! `--target-env=vulkan1.1 -O`) into `shaders/spv/`, committed, and loaded with
//! `include_bytes!`; `tests/gpu_shaders.rs` fails when the committed SPIR-V is stale.
//! Workgroup sizes and per-thread counts reach the shaders as specialization constants,
//! chosen from the device's limits; no shader assumes a subgroup size.
//!
//! Environment: `SORTNET_NO_GPU=1` lists no GPU backend; `SORTNET_GPU_MEMORY_CAP=<bytes>`
//! (k/m/g suffixes) caps the device memory the crate allocates, so that allocation failures
//! can be tested; `SORTNET_REQUIRE_GPU=1` makes the GPU tests fail instead of skip when no
//! Vulkan device is usable.
//!
//! Host path knobs, for tests and measurements (all give the same results):
//! `SORTNET_GPU_STREAM_PIECE=<bytes>` (stream piece size), `SORTNET_GPU_TRANSFER_QUEUE=0`
//! (no transfer queue) or `=down` (downloads only), `SORTNET_GPU_KEYS_OVERLAP=0|1` (keys
//! never / always by groups), `SORTNET_GPU_KEY_GROUPS=<n>`, `SORTNET_GPU_NT_COPY=0` (plain
//! host copies), `SORTNET_GPU_COPY_THREADS=<n>`, `SORTNET_GPU_STREAM_TRACE=1` (a timeline of
//! every streamed transfer on stderr, GPU timestamps included), `SORTNET_GPU_HOST_TRACE=1`
//! (the same for each radix round trip that is not streamed), `SORTNET_GPU_BLOCKING_WAIT=1`
//! (round trips wait for their fence blocking instead of polling); and for the no-data-loss
//! tests `SORTNET_GPU_STREAM_FAIL_AFTER=<k>` (a streamed download fails after k pieces).
//!
//! # Data already on the GPU
//!
//! ```no_run
//! use sortnet::gpu::{bitonic::BitonicSorter, context::context, nibble};
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
//! sorter.record_pairs(&mut builder, keys, values)?; // u32 keys, u32 values along
//! nibble::record(&ctx, &mut builder, words)?; // every word's 16 nibbles
//! ctx.submit_and_wait(builder)?;
//! # Ok(()) }
//! ```

pub mod bitonic;
pub mod context;
pub mod copy;
pub mod host_buffer;
pub mod nibble;
pub mod plan;
pub mod radix;
pub mod radix_plan;

pub use host_buffer::HostBuffer;

use crate::backend::SortBackend;

/// The GPU backends usable here (none without a Vulkan loader and device).
pub(crate) fn backends() -> Vec<&'static dyn SortBackend> {
    #[allow(unused_mut)]
    let mut list: Vec<&'static dyn SortBackend> = Vec::new();
    if let Some(b) = bitonic::VulkanBitonic::get() {
        list.push(b);
    }
    // vulkan-radix goes here (branch `gpu-radix`): push it after vulkan-bitonic.
    if let Some(radix) = radix::VulkanRadix::get() {
        list.push(radix);
    }
    list
}
