//! Driver statistics of the nibble kernel's pipelines (registers, spills, shared memory, as
//! the driver reports them through VK_KHR_pipeline_executable_properties): how many warps of
//! each configuration fit on a multiprocessor, next to the timings of `gpu_bench --only
//! nibble-tune`.
//!
//! ```text
//! cargo run --release --example gpu_nibble_stats -- [variant,loads,workgroup,tiles ...]
//! ```
//! (default: the configurations the benchmark sweeps).

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
    let (physical, device) = pipeline_stats::stats_device();
    println!("{}", physical.properties().device_name);
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
fn stats(device: &std::sync::Arc<vulkano::device::Device>, spirv: &[u8], constants: &[(u32, u32)]) {
    for (name, value) in pipeline_stats::statistics(device, spirv, constants) {
        print!(" {name}: {value};");
    }
    println!();
}
