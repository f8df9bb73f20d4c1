//! Driver statistics of the nibble kernel's pipelines (registers, spills, shared memory, as
//! the driver reports them through VK_KHR_pipeline_executable_properties): how many warps of
//! each configuration fit on a multiprocessor, next to the timings of `gpu_bench --only
//! nibble-tune`.
//!
//! ```text
//! cargo run --release --example gpu_nibble_stats -- [variant,loads,workgroup,tiles ...]
//! ```
//! (default: the configurations the benchmark sweeps).

use vulkano::device::physical::PhysicalDeviceType;
use vulkano::device::{
    Device, DeviceCreateInfo, DeviceExtensions, DeviceFeatures, QueueCreateInfo, QueueFlags,
};
use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
use vulkano::VulkanLibrary;

/// The nibble shader variants in the order of `sortnet::gpu::nibble` (`SPIRV_VARIANTS`).
const SPIRV: [&[u8]; 10] = [
    include_bytes!("../shaders/spv/nibble.spv"),
    include_bytes!("../shaders/spv/nibble_bytetable.spv"),
    include_bytes!("../shaders/spv/nibble_mixed.spv"),
    include_bytes!("../shaders/spv/nibble_shifts.spv"),
    include_bytes!("../shaders/spv/nibble_f16.spv"),
    include_bytes!("../shaders/spv/nibble_u16.spv"),
    include_bytes!("../shaders/spv/nibble_f16b.spv"),
    include_bytes!("../shaders/spv/nibble_f16sum.spv"),
    include_bytes!("../shaders/spv/nibble_f16sat.spv"),
    include_bytes!("../shaders/spv/nibble_f16mix.spv"),
];

#[path = "common/pipeline_stats.rs"]
mod pipeline_stats;

fn main() {
    let mut configs: Vec<[u32; 4]> = std::env::args()
        .skip(1)
        .map(|a| {
            let v: Vec<u32> = a.split(',').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect();
    if configs.is_empty() {
        configs = vec![
            [0, 4, 256, 1],
            [4, 1, 256, 1],
            [4, 2, 256, 1],
            [4, 4, 256, 1],
            [4, 8, 256, 1],
            [4, 1, 256, 8],
            [4, 2, 256, 8],
            [4, 4, 256, 8],
            [4, 2, 128, 1],
            [4, 2, 1024, 1],
            [6, 2, 256, 8],
            [7, 2, 256, 8],
        ];
    }
    let library = VulkanLibrary::new().expect("Vulkan loader");
    let instance = Instance::new(
        library,
        InstanceCreateInfo {
            flags: InstanceCreateFlags::ENUMERATE_PORTABILITY,
            ..Default::default()
        },
    )
    .expect("instance");
    let physical = instance
        .enumerate_physical_devices()
        .unwrap()
        .min_by_key(|p| match p.properties().device_type {
            PhysicalDeviceType::DiscreteGpu => 0,
            PhysicalDeviceType::IntegratedGpu => 1,
            _ => 2,
        })
        .expect("a device");
    let family = physical
        .queue_family_properties()
        .iter()
        .position(|q| q.queue_flags.intersects(QueueFlags::COMPUTE))
        .unwrap() as u32;
    println!("{}", physical.properties().device_name);
    let supported = physical.supported_features();
    let (device, _queues) = Device::new(
        physical.clone(),
        DeviceCreateInfo {
            queue_create_infos: vec![QueueCreateInfo {
                queue_family_index: family,
                ..Default::default()
            }],
            enabled_extensions: DeviceExtensions {
                khr_pipeline_executable_properties: true,
                ..DeviceExtensions::empty()
            },
            enabled_features: DeviceFeatures {
                pipeline_executable_info: true,
                shader_int64: supported.shader_int64,
                shader_float16: supported.shader_float16
                    && physical.api_version() >= vulkano::Version::V1_2,
                shader_int16: supported.shader_int16,
                ..DeviceFeatures::empty()
            },
            ..Default::default()
        },
    )
    .expect("device with VK_KHR_pipeline_executable_properties");
    for [variant, loads, wg, tiles] in configs {
        let Some(spirv) = SPIRV.get(variant as usize) else {
            println!("variant {variant}: no such variant");
            continue;
        };
        print!("variant {variant}, {loads} loads, workgroup {wg}, {tiles} tiles:");
        stats(&device, spirv, &[(0, wg), (1, loads), (2, tiles)]);
    }
}

/// Prints the driver's statistics of a compute pipeline of `spirv` with these
/// specialisation constants, on one line.
fn stats(device: &std::sync::Arc<Device>, spirv: &[u8], constants: &[(u32, u32)]) {
    for (name, value) in pipeline_stats::statistics(device, spirv, constants) {
        print!(" {name}: {value};");
    }
    println!();
}
