//! Named crossover sizes for `auto`, each with the measurement behind it.
//!
//! `preference` turns them into an ordered list of backend names per workload and length;
//! `auto` takes the first one that is usable here.

use super::Workload;
use crate::keys::key::KeyWidth;

/// Words from which the SIMD nibble backends (portable, avx2, avx512) split a slice over
/// rayon's pool. Provisional until measured.
pub(crate) const NIBBLE_SIMD_PARALLEL_MIN_WORDS: usize = 1 << 16;

/// Words from which the `lut` nibble backend splits a slice over rayon's pool.
/// Provisional until measured.
pub(crate) const NIBBLE_LUT_PARALLEL_MIN_WORDS: usize = 1 << 14;

/// Words per parallel task of the nibble backends: a multiple of every SIMD block (64
/// words), 128 KiB of data.
pub(crate) const NIBBLE_PARALLEL_CHUNK_WORDS: usize = 1 << 14;

/// 32-bit keys from which `radix` beats the vectorised quicksort of `avx512`.
///
/// Measured on the test machine (AMD EPYC Zen 4, 2 cores, loaded), random `u32`, ns per key,
/// one call per slice on cache-resident slices: at 1000 keys avx512 4.03 / radix 4.44, at
/// 1500 keys 4.19 / 4.20, at 2048 keys 4.47 / 4.00. Below 256 keys avx512 is a single
/// bitonic network (2.2 to 2.5 ns per key) and radix pays 6 to 11 ns per key.
pub(crate) const KEYS32_RADIX_MIN_LEN: usize = 1500;

/// 64-bit keys from which `radix` beats the vectorised quicksort of `avx512` (radix needs up
/// to 8 passes, so the crossover is later than for 32-bit keys).
///
/// Measured as [`KEYS32_RADIX_MIN_LEN`], random `u64`, ns per key: at 2048 keys avx512 7.98
/// / radix 8.66, at 4096 keys 9.31 / 8.44.
pub(crate) const KEYS64_RADIX_MIN_LEN: usize = 3072;

/// Backends `auto` tries for `workload` at `len` elements, best first.
pub(crate) fn preference(workload: Workload, len: usize) -> Vec<&'static str> {
    match workload {
        Workload::Nibbles => vec!["avx512", "avx2", "portable", "lut", "scalar"],
        Workload::Keys(width) => {
            let radix_from = match width {
                KeyWidth::W32 => KEYS32_RADIX_MIN_LEN,
                KeyWidth::W64 => KEYS64_RADIX_MIN_LEN,
            };
            if len < radix_from {
                vec!["avx512", "avx2", "portable", "radix"]
            } else {
                vec!["radix", "avx512", "avx2", "portable"]
            }
        }
        // Only radix sorts pairs on the CPU (stable, values follow their keys).
        Workload::Pairs(_) => vec!["radix"],
    }
}
