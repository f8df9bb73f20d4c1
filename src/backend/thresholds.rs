//! Named crossover sizes for `auto`, each with the measurement behind it.
//!
//! `preference` turns them into an ordered list of backend names per workload and length;
//! `auto` takes the first one that is usable here.

use super::Workload;
use crate::keys::key::KeyWidth;

/// Keys from which `auto` sends a key sort (32- or 64-bit keys) to `vulkan-radix` on a
/// hardware GPU, end to end from a host slice (upload, sort, download).
///
/// Measured on an NVIDIA H200 host with 16 CPU cores (BENCHMARKS-gpu-radix.md, run 4):
/// `vulkan-radix` from a host slice against rayon's `par_sort_unstable` on the same host was
/// 0.67x at 2^16 u32 keys, 1.8x at 2^18, 3.1x at 2^20 and 2^22, 2.6x at 2^24; for u64 keys
/// 0.78x at 2^16, 1.2x at 2^18, 1.6x at 2^20 and 2^22, 1.4x at 2^24. 2^22 is where the GPU
/// won by 1.6x or more for both widths, a margin kept for the faster CPU `radix` backend
/// (not measured on that host). Software drivers are never picked (`auto` checks).
pub const GPU_RADIX_MIN_KEYS: usize = 1 << 22;

/// Backends `auto` tries for `workload` at `len` elements, best first.
pub(crate) fn preference(workload: Workload, len: usize) -> Vec<&'static str> {
    match workload {
        Workload::Nibbles => vec!["avx512", "avx2", "portable", "lut", "scalar"],
        Workload::Keys(KeyWidth::W32) | Workload::Keys(KeyWidth::W64) => {
            if len >= GPU_RADIX_MIN_KEYS {
                vec!["vulkan-radix", "radix", "avx512", "avx2", "portable"]
            } else {
                vec!["radix", "avx512", "avx2", "portable"]
            }
        }
        Workload::Pairs(_) => vec!["radix"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_key_sorts_prefer_the_gpu_radix_and_small_ones_do_not() {
        for w in [KeyWidth::W32, KeyWidth::W64] {
            assert_eq!(
                preference(Workload::Keys(w), GPU_RADIX_MIN_KEYS)[0],
                "vulkan-radix"
            );
            assert!(
                !preference(Workload::Keys(w), GPU_RADIX_MIN_KEYS - 1).contains(&"vulkan-radix")
            );
        }
        assert!(!preference(Workload::Pairs(KeyWidth::W32), 1 << 30).contains(&"vulkan-radix"));
    }
}
