//! Driver statistics of the radix scatter pipeline (registers, spills, shared memory, as the
//! driver reports them through VK_KHR_pipeline_executable_properties): what limits how many
//! workgroups share a multiprocessor.
//!
//! ```text
//! cargo run --release --example gpu_radix_stats -- [k32|k64|p32|p64] [workgroup] [keys per invocation] [id=value..]
//! ```
//!
//! `id=value` sets further specialization constants of `shaders/radix_scatter.comp` (e.g.
//! `10=1` for a look-ahead of one tile).
//!
//! ```text
//! ```

use std::ffi::CStr;

use ash::vk;
use vulkano::device::physical::PhysicalDeviceType;
use vulkano::device::{
    Device, DeviceCreateInfo, DeviceExtensions, DeviceFeatures, QueueCreateInfo, QueueFlags,
};
use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
use vulkano::pipeline::layout::PipelineDescriptorSetLayoutCreateInfo;
use vulkano::pipeline::{PipelineLayout, PipelineShaderStageCreateInfo};
use vulkano::shader::{ShaderModule, ShaderModuleCreateInfo};
use vulkano::{VulkanLibrary, VulkanObject};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let variant = args.first().map_or("k32", String::as_str).to_string();
    let wg: u32 = args.get(1).map_or(512, |s| s.parse().unwrap());
    let kpi: u32 = args.get(2).map_or(8, |s| s.parse().unwrap());
    let spirv: &[u8] = match variant.as_str() {
        "k32" => include_bytes!("../shaders/spv/radix_scatter_k32.spv"),
        "k64" => include_bytes!("../shaders/spv/radix_scatter_k64.spv"),
        "p32" => include_bytes!("../shaders/spv/radix_scatter_p32.spv"),
        _ => include_bytes!("../shaders/spv/radix_scatter_p64.spv"),
    };
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
    let min_sg = physical
        .properties()
        .min_subgroup_size
        .or(physical.properties().subgroup_size)
        .unwrap_or(32);
    println!(
        "{} ({variant}, {wg} x {kpi})",
        physical.properties().device_name
    );
    let (device, _queues) = Device::new(
        physical,
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
                ..DeviceFeatures::empty()
            },
            ..Default::default()
        },
    )
    .expect("device with VK_KHR_pipeline_executable_properties");
    let words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // SAFETY: SPIR-V compiled by glslc from the crate's shaders.
    let module =
        unsafe { ShaderModule::new(device.clone(), ShaderModuleCreateInfo::new(&words)) }.unwrap();
    let mut constants: Vec<(u32, u32)> = vec![
        (0, wg),
        (1, kpi),
        (2, wg / min_sg),
        (3, 4096),
        (4, if min_sg <= 32 { 1 } else { 2 }),
    ];
    for extra in args.iter().skip(3) {
        let (id, value) = extra.split_once('=').expect("id=value");
        constants.push((id.parse().unwrap(), value.parse().unwrap()));
    }
    // The layout through vulkano (it reflects the shader); the pipeline through a raw call,
    // because vulkano 0.35 does not expose the CAPTURE_STATISTICS flag.
    let entry = module.entry_point("main").unwrap();
    let stage = PipelineShaderStageCreateInfo::new(entry);
    let layout = PipelineLayout::new(
        device.clone(),
        PipelineDescriptorSetLayoutCreateInfo::from_stages([&stage])
            .into_pipeline_layout_create_info(device.clone())
            .unwrap(),
    )
    .unwrap();
    let entries: Vec<vk::SpecializationMapEntry> = constants
        .iter()
        .enumerate()
        .map(|(i, &(id, _))| vk::SpecializationMapEntry {
            constant_id: id,
            offset: 4 * i as u32,
            size: 4,
        })
        .collect();
    let data: Vec<u8> = constants
        .iter()
        .flat_map(|&(_, v)| v.to_le_bytes())
        .collect();
    let spec_info = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(&data);
    let stage_info = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module.handle())
        .name(c"main")
        .specialization_info(&spec_info);
    let create = vk::ComputePipelineCreateInfo::default()
        .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR)
        .stage(stage_info)
        .layout(layout.handle());
    let mut pipeline = vk::Pipeline::null();
    // SAFETY: valid device, module and layout handles kept alive above; one create info.
    let r = unsafe {
        (device.fns().v1_0.create_compute_pipelines)(
            device.handle(),
            vk::PipelineCache::null(),
            1,
            &create,
            std::ptr::null(),
            &mut pipeline,
        )
    };
    assert_eq!(r, vk::Result::SUCCESS, "creating the pipeline");
    let fns = &device.fns().khr_pipeline_executable_properties;
    let info = vk::PipelineExecutableInfoKHR::default()
        .pipeline(pipeline)
        .executable_index(0);
    let mut count = 0u32;
    // SAFETY: the extension and its feature are enabled on this device, the pipeline was
    // created with CAPTURE_STATISTICS, and the first call only asks for the count.
    let r = unsafe {
        (fns.get_pipeline_executable_statistics_khr)(
            device.handle(),
            &info,
            &mut count,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(r, vk::Result::SUCCESS);
    let mut stats = vec![vk::PipelineExecutableStatisticKHR::default(); count as usize];
    // SAFETY: `stats` holds `count` default-initialized structures of the right type.
    let r = unsafe {
        (fns.get_pipeline_executable_statistics_khr)(
            device.handle(),
            &info,
            &mut count,
            stats.as_mut_ptr(),
        )
    };
    assert!(r == vk::Result::SUCCESS || r == vk::Result::INCOMPLETE);
    for s in &stats[..count as usize] {
        // SAFETY: the driver wrote a NUL-terminated name into the fixed-size array.
        let name = unsafe { CStr::from_ptr(s.name.as_ptr()) }.to_string_lossy();
        // SAFETY: the union member read is the one `format` names.
        let value = unsafe {
            match s.format {
                vk::PipelineExecutableStatisticFormatKHR::BOOL32 => s.value.b32.to_string(),
                vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                _ => s.value.f64.to_string(),
            }
        };
        println!("  {name}: {value}");
    }
}
