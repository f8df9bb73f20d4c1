//! The GPU wing: Vulkan compute through vulkano.

use crate::backend::SortBackend;

/// The GPU backends usable here (none without a Vulkan loader and device).
pub(crate) fn backends() -> Vec<&'static dyn SortBackend> {
    Vec::new()
}

pub mod radix_plan;
