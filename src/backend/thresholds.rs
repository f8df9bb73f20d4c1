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
/// Measured with `cargo bench --bench keys -- keys-small-u32` (AMD EPYC Zen 4, 2 cores,
/// loaded; median per call, random `u32`): 1000 keys: avx512 4.24 µs, radix 5.41 µs; 1500
/// keys: avx512 7.85 µs, radix 6.38 µs; 2048 keys: 10.8 / 8.57 µs. A best-of-N loop over
/// cache-resident slices put the crossover at 1500 (ns per key at 1000: 4.03 / 4.44, at 1500:
/// 4.19 / 4.20); 1200 splits the two. Below 256 keys avx512 is one bitonic network (0.6 µs for
/// 256 keys against 1.7 µs for radix).
pub(crate) const KEYS32_RADIX_MIN_LEN: usize = 1200;

/// 64-bit keys from which `radix` beats the vectorised quicksort of `avx512` (radix needs up
/// to 8 passes, so the crossover is later than for 32-bit keys).
///
/// Measured with `cargo bench --bench keys -- keys-small-u64` (as
/// [`KEYS32_RADIX_MIN_LEN`], random `u64`): 3072 keys: avx512 20.4 µs, radix 27.0 µs; 4096
/// keys: 26.8 / 36.5 µs; `keys-u64-random` at 2^16: 1.49 / 0.64 ms. A best-of-N loop over
/// cache-resident slices gave ns per key at 4096: 9.31 / 8.44, at 16384: 11.75 / 8.25.
pub(crate) const KEYS64_RADIX_MIN_LEN: usize = 8192;

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
