//! `sortnet backends`: what is usable here and what `auto` does with it.

use std::fmt::Write as _;

use sortnet::backend::{self, Device};
use sortnet::tuning::{self, profile};
use sortnet::{KeyMap, KeyWidth, Workload};

use super::Outcome;

/// Sizes at which the `auto` picks are shown.
const PICK_SIZES: [usize; 6] = [16, 1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 24];

/// The CPU features the backends care about, as `+name` / `-name`.
fn cpu_features() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! features {
            ($($f:tt),*) => {
                [$((($f), std::arch::is_x86_feature_detected!($f))),*]
            };
        }
        let list = features!(
            "sse2",
            "sse4.1",
            "avx",
            "avx2",
            "bmi2",
            "popcnt",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512vbmi",
            "avx512vbmi2"
        );
        list.iter()
            .map(|(name, on)| format!("{}{name}", if *on { '+' } else { '-' }))
            .collect::<Vec<_>>()
            .join(" ")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        format!("{} (no x86 backends)", std::env::consts::ARCH)
    }
}

pub fn run() -> Outcome {
    let mut out = String::new();
    let _ = writeln!(out, "{}", super::bench::machine_line());
    let _ = writeln!(out, "CPU features: {}", cpu_features());
    let _ = writeln!(out, "\nbackends usable here:");
    for b in backend::available() {
        let device = match b.device() {
            Device::Cpu => "CPU",
            Device::Gpu { software: false } => "GPU",
            Device::Gpu { software: true } => "GPU (software)",
        };
        let workloads: Vec<&str> = profile::WORKLOADS
            .iter()
            .filter(|(w, _)| b.supports(*w))
            .map(|(_, name)| *name)
            .collect();
        let _ = writeln!(
            out,
            "  {:<16}{:<16}{:<40}{}",
            b.name(),
            device,
            workloads.join(","),
            b.status()
        );
    }
    let _ = writeln!(out, "\ncalibration profile: {}", tuning::profile_state());
    // What the environment (read by the library, `Options::from_env`) changed.
    let options = tuning::options();
    if !options.avx512 {
        let _ = writeln!(out, "avx512 left out (SORTNET_NO_AVX512)");
    }
    if !options.gpu {
        let _ = writeln!(out, "GPU backends left out (SORTNET_NO_GPU)");
    }
    if let Some(cap) = options.gpu_memory_cap {
        let _ = writeln!(out, "GPU memory cap: {cap} bytes (SORTNET_GPU_MEMORY_CAP)");
    }
    let forced = backend::auto().name();
    if forced != "auto" {
        let _ = writeln!(
            out,
            "backend::auto() returns {forced} instead of the picks below (SORTNET_BACKEND)"
        );
    }
    let _ = write!(out, "\nauto picks, by elements:\n  {:<10}", "workload");
    for size in PICK_SIZES {
        let _ = write!(out, "{size:>14}");
    }
    out.push('\n');
    // Integer keys, then float keys, which `auto` routes by their own crossovers.
    let float_keys = [
        (Workload::Keys(KeyWidth::W32), "f32"),
        (Workload::Keys(KeyWidth::W64), "f64"),
    ];
    let rows = profile::WORKLOADS
        .into_iter()
        .map(|(w, name)| (w, name, KeyMap::Unsigned))
        .chain(float_keys.map(|(w, name)| (w, name, KeyMap::Float)));
    for (workload, name, map) in rows {
        let _ = write!(out, "  {name:<10}");
        for size in PICK_SIZES {
            let pick = tuning::auto_pick_for(workload, size, map).map_or("-", |b| b.name());
            let _ = write!(out, "{pick:>14}");
        }
        out.push('\n');
    }
    print!("{out}");
    Ok(())
}
