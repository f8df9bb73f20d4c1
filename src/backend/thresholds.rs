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

// `vulkan-bitonic` is in no list: end to end from host slices (transfers included) it was
// slower than `radix` at every size measured on an NVIDIA H200 host (u32 keys 2^20..2^26)
// and far slower than `avx512` on nibbles, see BENCHMARKS-gpu.md; it stays usable by name.

/// Backends `auto` tries for `workload` at `len` elements, best first.
pub(crate) fn preference(workload: Workload, len: usize) -> Vec<&'static str> {
    let _ = len;
    match workload {
        Workload::Nibbles => vec!["avx512", "avx2", "portable", "lut", "scalar"],
        Workload::Keys(KeyWidth::W32) | Workload::Keys(KeyWidth::W64) => {
            vec!["radix", "avx512", "avx2", "portable"]
        }
        Workload::Pairs(_) => vec!["radix"],
    }
}
