//! Shared by the `*_stats` examples: the driver's statistics of a compute pipeline
//! (registers, spills, shared memory), through VK_KHR_pipeline_executable_properties.
//! Included with `#[path]`; not an example of its own.

use std::ffi::CStr;
use std::sync::Arc;

use ash::vk;
use vulkano::device::physical::{PhysicalDevice, PhysicalDeviceType};
use vulkano::device::{
    Device, DeviceCreateInfo, DeviceExtensions, DeviceFeatures, QueueCreateInfo, QueueFlags,
};
use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
use vulkano::pipeline::layout::PipelineDescriptorSetLayoutCreateInfo;
use vulkano::pipeline::{PipelineLayout, PipelineShaderStageCreateInfo};
use vulkano::shader::{ShaderModule, ShaderModuleCreateInfo};
use vulkano::VulkanLibrary;
use vulkano::VulkanObject;

/// The preferred Vulkan device (discrete, then integrated, then any) with
/// VK_KHR_pipeline_executable_properties and the shader features the crate's shaders may use
/// enabled, and its physical device.
pub fn stats_device() -> (Arc<PhysicalDevice>, Arc<Device>) {
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
    (physical, device)
}

/// The driver's statistics, as (name, value), of a compute pipeline of `spirv` with these
/// specialisation constants; `device` must have the extension and its feature enabled.
pub fn statistics(
    device: &Arc<Device>,
    spirv: &[u8],
    constants: &[(u32, u32)],
) -> Vec<(String, String)> {
    let words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // SAFETY: SPIR-V compiled by glslc from the crate's shaders.
    let module =
        unsafe { ShaderModule::new(device.clone(), ShaderModuleCreateInfo::new(&words)) }.unwrap();
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
    let named = stats[..count as usize]
        .iter()
        .map(|s| {
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
            (name.into_owned(), value)
        })
        .collect();
    // SAFETY: the pipeline was created above and is used by nothing else.
    unsafe { (device.fns().v1_0.destroy_pipeline)(device.handle(), pipeline, std::ptr::null()) };
    named
}
