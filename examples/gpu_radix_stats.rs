//! Driver statistics of the radix scatter pipeline, or of the upsweep (`up32`, `up64`) or
//! the histogram (`h32`, `h64`): registers, spills, shared memory, as the driver reports
//! them through VK_KHR_pipeline_executable_properties: what limits how many workgroups share
//! a multiprocessor.
//!
//! ```text
//! cargo run --release --example gpu_radix_stats -- [k32|k64|p32|p64|up32|up64|h32|h64] [workgroup] [keys per invocation] [id=value..]
//! ```
//!
//! `id=value` sets further specialization constants (or replaces one) of the shader, e.g.
//! `10=1` for a scatter's look-ahead of one tile, `2=1 3=1024` for reduce-then-scan's
//! histogram.
//!
//! ```text
//! ```

#[path = "common/pipeline_stats.rs"]
mod pipeline_stats;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let variant = args.first().map_or("k32", String::as_str).to_string();
    let wg: u32 = args.get(1).map_or(512, |s| s.parse().unwrap());
    let kpi: u32 = args.get(2).map_or(8, |s| s.parse().unwrap());
    let spirv: &[u8] = match variant.as_str() {
        "k32" => include_bytes!("../shaders/spv/radix_scatter_k32.spv"),
        "k64" => include_bytes!("../shaders/spv/radix_scatter_k64.spv"),
        "p32" => include_bytes!("../shaders/spv/radix_scatter_p32.spv"),
        // The upsweep: [workgroup] and [keys per invocation] are its size and batch.
        "up32" => include_bytes!("../shaders/spv/radix_upsweep_k32.spv"),
        "up64" => include_bytes!("../shaders/spv/radix_upsweep_k64.spv"),
        // The histogram: give `2=1 3=512` for reduce-then-scan's (TILE_OFFSETS, PARTITIONS).
        "h32" => include_bytes!("../shaders/spv/radix_histogram_k32.spv"),
        "h64" => include_bytes!("../shaders/spv/radix_histogram_k64.spv"),
        _ => include_bytes!("../shaders/spv/radix_scatter_p64.spv"),
    };
    let (physical, device) = pipeline_stats::stats_device();
    let min_sg = physical
        .properties()
        .min_subgroup_size
        .or(physical.properties().subgroup_size)
        .unwrap_or(32);
    println!(
        "{} ({variant}, {wg} x {kpi})",
        physical.properties().device_name
    );
    let mut constants: Vec<(u32, u32)> = vec![
        (0, wg),
        (1, kpi),
        (2, wg / min_sg),
        (3, 4096),
        (4, if min_sg <= 32 { 1 } else { 2 }),
    ];
    for extra in args.iter().skip(3) {
        let (id, value) = extra.split_once('=').expect("id=value");
        let id: u32 = id.parse().unwrap();
        constants.retain(|&(i, _)| i != id);
        constants.push((id, value.parse().unwrap()));
    }
    for (name, value) in pipeline_stats::statistics(&device, spirv, &constants) {
        println!("  {name}: {value}");
    }
}
