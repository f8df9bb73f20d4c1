//! Named crossover sizes for `auto`, each with the measurement behind it.
//!
//! `preference` turns them into an ordered list of backend names per workload and length;
//! `auto` takes the first one that is usable here.

use super::Workload;
use crate::keys::key::{KeyMap, KeyWidth};

/// Words from which the SIMD nibble backends (portable, avx2, avx512) split a slice over
/// rayon's pool.
///
/// Splitting costs a fork-join, measured at 1.8-5 µs (best of 2000, 2 threads,
/// `NIBBLES_CONTEST=1 RAYON_NUM_THREADS=2 cargo bench --bench nibbles`); 2^17 words take
/// 66 µs single-threaded with avx512 and 79 µs with avx2 (0.51 and 0.60 ns/word, AMD EPYC
/// Zen 4), over ten times that. The crossover itself could not be measured on the shared
/// 2-core build machine (load average 10: two threads never beat one there); re-measure on
/// an idle multi-core machine.
pub(crate) const NIBBLE_SIMD_PARALLEL_MIN_WORDS: usize = 1 << 17;

/// Words from which the `lut` nibble backend splits a slice over rayon's pool: 2^14 words
/// take 82 µs single-threaded (5.0 ns/word), over ten times the fork-join cost measured
/// as for [`NIBBLE_SIMD_PARALLEL_MIN_WORDS`].
pub(crate) const NIBBLE_LUT_PARALLEL_MIN_WORDS: usize = 1 << 14;

/// Fewest words per parallel task of the nibble backends (chunks grow with the slice, see
/// `nibble::sort_in_parallel`): 4096 words are 2 µs of avx512 work, 20 µs of `lut` work,
/// both above rayon's per-task cost, and fit a 32 KiB L1 data cache.
pub(crate) const NIBBLE_PARALLEL_CHUNK_WORDS: usize = 1 << 12;

/// Longest tail (words after the last whole SIMD block) that the avx2 and portable kernels
/// sort with the lookup-table sort instead of one more, overlapping, block. Measured
/// (contest timing, AMD EPYC Zen 4, 1 thread, BENCHMARKS.md (nibble sort on the CPU)): `lut` takes 9.7,
/// 13.3, 16.6 and 21.0 ns for 1 to 4 words, one more 32-word avx2 block about 20 ns and
/// more when it must wait for the stores of the block before it. `auto` also sends slices
/// this short straight to `lut`.
pub(crate) const NIBBLE_TAIL_LUT_MAX_WORDS: usize = 4;

/// Longest whole slice, shorter than one SIMD block, that the kernels without masked
/// stores (portable, avx2) sort with the lookup-table sort instead of one block in a stack
/// buffer. The buffer costs more than an overlapping block (the block's vector loads wait
/// for the word-sized copies to reach the cache): avx2 through the buffer 41-43 ns for 5
/// to 9 words, `lut` 25.7 ns for 5 words and 40.2 for 8 (45.4 for 9).
pub(crate) const NIBBLE_SHORT_LUT_MAX_WORDS: usize = 8;

/// As [`NIBBLE_SHORT_LUT_MAX_WORDS`] for kernels with masked loads and stores (avx512),
/// used for whole short slices and for tails: a masked block costs a flat 25 ns for 5 to
/// 12 words, `lut` 21.0 ns for 4 words and 25.7 for 5.
pub(crate) const NIBBLE_MASKED_LUT_MAX_WORDS: usize = 4;

/// 32-bit keys from which `radix` beats the vectorised quicksort of `avx512`.
///
/// Measured (session 3, after `radix`'s finishing walk became a branch-free block test)
/// with the best-of loop of `examples/keys_best_of.rs` (AMD EPYC Zen 4, one thread, random
/// `u32`, a copy of the input in every call), avx512 / radix: 512 keys 1.89 / 2.55 µs, 768
/// keys 2.97 / 3.15 µs, 832 keys 3.52 / 3.26 µs, 1000 keys 4.13 / 3.70 µs, 2048 keys 9.01 /
/// 6.75 µs: the crossover lies near 800. (Session 2, criterion `keys-small-u32` against the
/// radix of then: between 2048 and 3072; session 1: 1200.)
pub(crate) const KEYS32_RADIX_MIN_LEN: usize = 800;

/// 64-bit keys from which `radix` beats the vectorised quicksort of `avx512`.
///
/// Measured as [`KEYS32_RADIX_MIN_LEN`] (random `u64`): avx512 / radix 64 keys 0.16 / 0.42
/// µs, 256 keys 1.15 / 1.59 µs, 1000 keys 6.38 / 5.54 µs, 2048 keys 13.9 / 10.4 µs, 4096
/// keys 29.7 / 21.2 µs: the crossover lies between 256 and 1000 keys. (Against the radix
/// that ran every pass of all 8 digits it was 8192: radix now skips the digits below those
/// that tell the keys apart.)
pub(crate) const KEYS64_RADIX_MIN_LEN: usize = 512;
/// `f32` keys from which `radix` beats the vectorised quicksort of `avx512` (floats cost
/// radix more than integers: their top digits, sign and exponent, take few values, so it
/// sorts on one digit more than for integer keys of the same length).
///
/// Measured with the best-of loop of `examples/radix_timing.rs` (3 000 calls, random `f32`
/// uniform in ±1e6 like the `keys` bench, one thread, quiet 2-core machine): avx512 / radix
/// 2^12 keys 19.3 / 21.8 µs, 2^13 keys 41.9 / 39.6 µs (`u32` at 2^12: 18.8 / 12.6 µs).
pub(crate) const KEYS32_FLOAT_RADIX_MIN_LEN: usize = 6144;
/// `f64` keys from which `radix` beats the vectorised quicksort of `avx512`.
///
/// Measured as [`KEYS32_FLOAT_RADIX_MIN_LEN`] (random `f64` in ±1e6): avx512 / radix 2^10
/// keys 7.2 / 8.7 µs, 2^11 keys 14.3 / 15.0 µs, 2^12 keys 30.8 / 28.5 µs.
pub(crate) const KEYS64_FLOAT_RADIX_MIN_LEN: usize = 3072;

/// 32-bit keys from which `radix` beats the vectorised quicksort of `avx2`; `auto` uses it on
/// CPUs without AVX-512 (or with `SORTNET_NO_AVX512=1`).
///
/// Measured as [`KEYS32_RADIX_MIN_LEN`] (session 3), avx2 / radix: 384 keys 1.63 / 2.26 µs,
/// 512 keys 2.17 / 2.57 µs, 640 keys 2.95-3.08 / 2.86-2.89 µs, 768 keys 3.48-3.61 / 3.15 µs,
/// 1000 keys 4.48 / 3.73 µs: the crossover lies near 600. (Session 2, against the radix of
/// main at `faaab26`: near 1500, BENCHMARKS.md (AVX2 keys).)
pub(crate) const KEYS32_AVX2_RADIX_MIN_LEN: usize = 600;

/// 64-bit keys from which `radix` beats the vectorised quicksort of `avx2`.
///
/// Measured as [`KEYS32_AVX2_RADIX_MIN_LEN`] with `keys-small-u64` (random `u64`): avx2 /
/// radix 48 keys 248 / 278 ns (1.12x), 64 keys 260 / 420 ns (1.61x), 256 keys 2.16 / 1.63
/// µs (0.75x), 1000 keys 0.67x. The best-of loop: 128 keys 884 / 1126 ns, 192 keys 1356-1399
/// / 1385-1396 ns (a tie), 256 keys 1831 / 1598-1980 ns. Below 32 keys radix's insertion
/// sort is faster (16 keys: 68 / 46 ns), which `auto` routes to radix ([`KEYS64_SIMD_MIN_LEN`]). (Against the
/// radix before `faaab26` the crossover was near 2048 keys.)
pub(crate) const KEYS64_AVX2_RADIX_MIN_LEN: usize = 192;

/// 32-bit keys from which `avx512`'s quicksort beats `avx2`'s; below, `auto` takes `avx2`
/// even on CPUs with AVX-512: up to 64 keys its whole-slice register network is cheaper
/// than AVX-512's (which sorts in 16-key rows and merges them).
///
/// Measured with the best-of loop of `examples/keys_best_of.rs` (AMD EPYC Zen 4, one
/// thread, random `u32`), avx2 / avx512: 8 keys 18 / 53 ns, 16 keys 49 / 52 ns, 32 keys 72 /
/// 97 ns, 64 keys 109 / 169 ns, 72 keys 290 / 284 ns, 96 keys 336 / 296 ns.
pub(crate) const KEYS32_AVX512_MIN_LEN: usize = 65;
/// 64-bit keys from which the SIMD quicksorts beat `radix`, which sorts slices this short
/// by insertion sort; below, `auto` takes `radix`.
///
/// Measured as [`KEYS32_AVX512_MIN_LEN`] (random `u64`), avx2 / avx512 / radix: 16 keys
/// 72 / 65 / 49 ns, 20 keys 102 / 113 / 77 ns, 24 keys 105 / 113 / 101 ns, 32 keys 107 / 110
/// / 152 ns.
pub(crate) const KEYS64_SIMD_MIN_LEN: usize = 24;

// A narrower ISA never beats radix where a wider one does not: `preference` relies on it.
const _: () = assert!(KEYS32_AVX2_RADIX_MIN_LEN <= KEYS32_RADIX_MIN_LEN);
const _: () = assert!(KEYS64_AVX2_RADIX_MIN_LEN <= KEYS64_RADIX_MIN_LEN);
const _: () = assert!(KEYS32_RADIX_MIN_LEN <= KEYS32_FLOAT_RADIX_MIN_LEN);
const _: () = assert!(KEYS64_RADIX_MIN_LEN <= KEYS64_FLOAT_RADIX_MIN_LEN);

// `portable` sorts keys (any target, `wide` vectors) but comes after `radix` in every key
// list: on x86-64 (SSE2 build) it was 2 to 12 times slower than `radix` at every length
// from 16 to 4096 keys (`keys-small-u32`: 0.30x at 16, 0.38x at 256, 0.08x at 4096;
// `keys-small-u64`: 0.16x to 0.43x; BENCHMARKS.md (AVX2 keys)): built for baseline x86-64,
// `wide`'s u32 min/max and u64 compares are per-lane scalar code (they need SSE4.1/4.2).
// It stays usable by name. Not measured on aarch64 (NEON), where `wide` has real 128-bit
// lanes.

// `vulkan-bitonic` is in no list: end to end from host slices (transfers included) it was
// slower than `radix` at every size measured on an NVIDIA H200 host (u32 keys 2^20..2^26)
// and far slower than `avx512` on nibbles, see BENCHMARKS.md (vulkan-bitonic and GPU nibbles); it stays usable by name.

/// The window of lengths in which `auto` sends a key sort or a pair sort (either key width)
/// to `vulkan-radix` on a hardware GPU, end to end from a host slice (upload, sort,
/// download): from this many elements ...
///
/// Measured on the NVIDIA H200 device machine (16-core Xeon host) with the streamed host
/// path, `sortnet bench --backends radix,vulkan-radix,auto --stat best --seconds 0.3`
/// (BENCHMARKS.md, "auto's GPU window again", runs 16-18), `vulkan-radix` / `radix` throughput
/// (runs 16-17):
///
/// | elements | u32 keys | u64 keys | u32 pairs | u64 pairs | f64 keys |
/// |---|---|---|---|---|---|
/// | 2^16 | 1.40x | 0.80x | 1.38x | 0.67x | 0.44x |
/// | 2^17 | 1.81x | 1.96x | 2.59x | 2.07x | 1.10x |
/// | 2^18 | 3.27x | 2.09x | 3.09x | 1.31x | 1.21x |
/// | 2^20 | 2.18x-3.49x | 2.02x-2.52x | 2.54x-2.82x | 1.33x | 1.44x |
/// | 2^22 | 1.18x | 1.64x | 1.73x | 1.64x | 0.94x |
/// | 2^24 | 1.61x | 1.53x | 1.85x | 2.15x | 1.17x |
/// | 2^26 | 1.88x | 2.46x | 2.74x | 2.33x | 2.44x |
/// | 2^28 | 4.39x | 5.99x | 3.50x | 3.92x | 6.02x |
///
/// The window starts at 2^18, not at the host's crossover (2^16-2^17): the CPU `radix` on
/// that host's 16 threads was slower at small sizes than on the 2-core build machine, where
/// 2^17 u32 keys take 0.40 ms (best of 200, `examples/radix_timing.rs`) against the GPU's
/// 0.48 ms end to end, and 2^18 take 0.97 ms against 0.48. The rows against the GPU inside
/// the window are 64-bit sorts at 2^21-2^22, where instances disagree: run 17's f64 keys
/// (0.76x, 0.94x; 1.30x and 1.84x in run 18) and run 18's u64 keys and pairs (0.68x-1.07x,
/// against 1.23x-1.64x in runs 16-17). Software drivers are never picked (`auto` checks).
pub const GPU_RADIX_MIN_KEYS: usize = 1 << 18;

/// ... up to (not including) this many elements: beyond 2^28 64-bit keys no longer fit one
/// storage buffer on NVIDIA (4 GiB), and no size past 2^28 was measured. (A sort the GPU
/// refuses, or fails, falls back to the CPU in `auto`.)
pub const GPU_RADIX_END: usize = 1 << 29;

const GPU_WINDOW: std::ops::Range<usize> = GPU_RADIX_MIN_KEYS..GPU_RADIX_END;

/// The preference lists, one static each so that `auto` can resolve every list once
/// ([`LISTS`]) instead of looking names up on every call.
static NIBBLES: [&str; 5] = ["avx512", "avx2", "portable", "lut", "scalar"];
static KEYS_TINY32: [&str; 4] = ["avx2", "avx512", "radix", "portable"];
static KEYS_TINY64: [&str; 4] = ["radix", "avx512", "avx2", "portable"];
static KEYS_SIMD: [&str; 4] = ["avx512", "avx2", "radix", "portable"];
static KEYS_AVX512_THEN_RADIX: [&str; 4] = ["avx512", "radix", "avx2", "portable"];
static KEYS_GPU: [&str; 5] = ["vulkan-radix", "radix", "avx512", "avx2", "portable"];
static KEYS_RADIX: [&str; 4] = ["radix", "avx512", "avx2", "portable"];
static PAIRS: [&str; 1] = ["radix"];
static PAIRS_GPU: [&str; 2] = ["vulkan-radix", "radix"];

/// Every list [`preference`] returns.
pub(crate) static LISTS: [&[&str]; 9] = [
    &NIBBLES,
    &KEYS_TINY32,
    &KEYS_TINY64,
    &KEYS_SIMD,
    &KEYS_AVX512_THEN_RADIX,
    &KEYS_GPU,
    &KEYS_RADIX,
    &PAIRS,
    &PAIRS_GPU,
];

/// Backends `auto` tries for `workload` at `len` elements whose keys map to unsigned order
/// by `map`, best first: one of [`LISTS`].
pub(crate) fn preference(workload: Workload, len: usize, map: KeyMap) -> &'static [&'static str] {
    match workload {
        // The same order at every length (auto resolves it once, see `Auto::nibbles_cpu`): each
        // SIMD kernel sorts its own short inputs and tails (a few words by `lut`, short ones
        // by narrower blocks), so a wider kernel is within a few percent of a narrower one
        // at every length; the figures are in BENCHMARKS.md (nibble sort on the CPU).
        Workload::Nibbles => &NIBBLES,
        Workload::Keys(width) => {
            let float = map == KeyMap::Float;
            let (avx512_to, avx2_to) = match width {
                KeyWidth::W32 => (
                    if float {
                        KEYS32_FLOAT_RADIX_MIN_LEN
                    } else {
                        KEYS32_RADIX_MIN_LEN
                    },
                    KEYS32_AVX2_RADIX_MIN_LEN,
                ),
                KeyWidth::W64 => (
                    if float {
                        KEYS64_FLOAT_RADIX_MIN_LEN
                    } else {
                        KEYS64_RADIX_MIN_LEN
                    },
                    KEYS64_AVX2_RADIX_MIN_LEN,
                ),
            };
            if width == KeyWidth::W32 && len < KEYS32_AVX512_MIN_LEN {
                &KEYS_TINY32
            } else if width == KeyWidth::W64 && len < KEYS64_SIMD_MIN_LEN {
                &KEYS_TINY64
            } else if len < avx2_to {
                &KEYS_SIMD
            } else if len < avx512_to {
                // On a CPU without AVX-512 radix goes first from here.
                &KEYS_AVX512_THEN_RADIX
            } else if GPU_WINDOW.contains(&len) {
                &KEYS_GPU
            } else {
                &KEYS_RADIX
            }
        }
        // Only radix sorts pairs on the CPU (stable, values follow their keys).
        Workload::Pairs(_) if GPU_WINDOW.contains(&len) => &PAIRS_GPU,
        Workload::Pairs(_) => &PAIRS,
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;

    /// The first of `names` in the key preference at `len` for integer keys.
    fn first_of(width: KeyWidth, len: usize, names: &[&str]) -> &'static str {
        first_mapped(width, len, KeyMap::Unsigned, names)
    }

    /// The first of `names` in the key preference at `len` for keys mapped by `map`.
    fn first_mapped(width: KeyWidth, len: usize, map: KeyMap, names: &[&str]) -> &'static str {
        preference(Workload::Keys(width), len, map)
            .iter()
            .copied()
            .find(|n| names.contains(n))
            .expect("a key list names every CPU key backend")
    }

    #[test]
    fn small_keys_go_to_the_widest_simd_sort_until_its_crossover() {
        for (w, avx512_to, avx2_to) in [
            (
                KeyWidth::W32,
                KEYS32_RADIX_MIN_LEN,
                KEYS32_AVX2_RADIX_MIN_LEN,
            ),
            (
                KeyWidth::W64,
                KEYS64_RADIX_MIN_LEN,
                KEYS64_AVX2_RADIX_MIN_LEN,
            ),
        ] {
            // A CPU with AVX-512 (and so AVX2); the shortest slices go elsewhere (below).
            let with_512 = ["avx512", "avx2", "portable", "radix"];
            assert_eq!(first_of(w, 100, &with_512), "avx512");
            assert_eq!(first_of(w, avx512_to - 1, &with_512), "avx512");
            assert_eq!(first_of(w, avx512_to, &with_512), "radix");
            // A CPU with AVX2 only.
            let with_avx2 = ["avx2", "portable", "radix"];
            assert_eq!(first_of(w, 100, &with_avx2), "avx2");
            assert_eq!(first_of(w, avx2_to - 1, &with_avx2), "avx2");
            assert_eq!(first_of(w, avx2_to, &with_avx2), "radix");
            // Anything else: radix at every length (portable is slower, see above).
            for len in [0, 1, 100, avx2_to, 1 << 20] {
                assert_eq!(first_of(w, len, &["portable", "radix"]), "radix");
            }
        }
    }

    #[test]
    fn the_shortest_slices_go_to_the_cheapest_small_sort() {
        let with_512 = ["avx512", "avx2", "portable", "radix"];
        assert_eq!(first_of(KeyWidth::W32, 0, &with_512), "avx2");
        assert_eq!(
            first_of(KeyWidth::W32, KEYS32_AVX512_MIN_LEN - 1, &with_512),
            "avx2"
        );
        assert_eq!(
            first_of(KeyWidth::W32, KEYS32_AVX512_MIN_LEN, &with_512),
            "avx512"
        );
        for cpu in [&with_512[..], &["avx2", "portable", "radix"]] {
            assert_eq!(
                first_of(KeyWidth::W64, KEYS64_SIMD_MIN_LEN - 1, cpu),
                "radix"
            );
            assert_ne!(first_of(KeyWidth::W64, KEYS64_SIMD_MIN_LEN, cpu), "radix");
        }
    }

    #[test]
    fn floats_stay_on_the_simd_sort_longer() {
        let with_512 = ["avx512", "avx2", "portable", "radix"];
        for (w, int_to, float_to) in [
            (
                KeyWidth::W32,
                KEYS32_RADIX_MIN_LEN,
                KEYS32_FLOAT_RADIX_MIN_LEN,
            ),
            (
                KeyWidth::W64,
                KEYS64_RADIX_MIN_LEN,
                KEYS64_FLOAT_RADIX_MIN_LEN,
            ),
        ] {
            assert_eq!(first_mapped(w, int_to, KeyMap::Signed, &with_512), "radix");
            assert_eq!(first_mapped(w, int_to, KeyMap::Float, &with_512), "avx512");
            assert_eq!(
                first_mapped(w, float_to - 1, KeyMap::Float, &with_512),
                "avx512"
            );
            assert_eq!(first_mapped(w, float_to, KeyMap::Float, &with_512), "radix");
        }
    }
}

#[cfg(test)]
mod gpu_radix_tests {
    use super::*;

    #[test]
    fn sorts_go_to_the_gpu_radix_only_inside_the_measured_window() {
        let workloads = [
            Workload::Keys(KeyWidth::W32),
            Workload::Keys(KeyWidth::W64),
            Workload::Pairs(KeyWidth::W32),
            Workload::Pairs(KeyWidth::W64),
        ];
        for workload in workloads {
            for map in [KeyMap::Unsigned, KeyMap::Float] {
                let first = |len| preference(workload, len, map)[0];
                let gpu = |len| preference(workload, len, map).contains(&"vulkan-radix");
                assert_eq!(first(GPU_RADIX_MIN_KEYS), "vulkan-radix", "{workload:?}");
                assert_eq!(first(GPU_RADIX_END - 1), "vulkan-radix", "{workload:?}");
                assert!(!gpu(GPU_RADIX_MIN_KEYS - 1), "{workload:?}");
                assert!(!gpu(GPU_RADIX_END) && !gpu(1 << 30), "{workload:?}");
                // radix comes next, for a GPU that refuses or fails the sort.
                assert_eq!(preference(workload, GPU_RADIX_MIN_KEYS, map)[1], "radix");
            }
        }
    }
}
