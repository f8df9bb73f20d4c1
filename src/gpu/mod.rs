//! The GPU wing: Vulkan compute through vulkano.
//!
//! - [`context`]: the one shared Vulkan context (device choice, queue, allocators, limits,
//!   buffer pool, pipelines from committed SPIR-V).
//! - [`plan`]: pure dispatch math (grids, the bitonic schedule), tested without a GPU.
//! - [`copy`]: a plain copy kernel, the bandwidth yardstick for benchmarks.

pub mod bitonic;
pub mod context;
pub mod copy;
pub mod nibble;
pub mod plan;
pub mod radix;
pub mod radix_plan;

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
