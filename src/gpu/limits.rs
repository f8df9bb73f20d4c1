//! [`Limits`]: the device limits the GPU code sizes its work from (never assumed, always
//! read), and reading them.

use std::sync::Arc;

use vulkano::device::physical::PhysicalDevice;
use vulkano::memory::MemoryHeapFlags;

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

/// The limits of `physical` for a compute queue of `family`.
pub(crate) fn read_limits(
    physical: &Arc<PhysicalDevice>,
    family: u32,
    shader_int64: bool,
) -> Limits {
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
