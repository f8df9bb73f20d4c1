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

/// The window of lengths in which `auto` sends a 64-bit key sort to `vulkan-radix` on a
/// hardware GPU, end to end from a host slice (upload, sort, download): from this many keys
/// ... (32-bit keys: [`GPU_RADIX_KEYS32_MIN`])
///
/// Measured on an NVIDIA H200 host with 16 CPU cores, `sortnet bench --workload
/// u32,u64,pairs,f32 --sizes 2^20,2^22,2^24,2^26 --backends std,rayon,radix,vulkan-radix,..
/// --stat best` (BENCHMARKS.md, "GPU against CPU end to end"), `vulkan-radix` / `radix`
/// throughput: u32 keys 1.72x at 2^20, 1.59x at 2^22, 0.69x at 2^24, 0.62x at 2^26; f32
/// 1.20x, 1.21x, 0.65x, 0.69x; u64 keys 1.38x, 0.58x, 0.42x, 1.06x; u32 pairs 0.92x, 1.29x,
/// 0.48x, 0.90x. The CPU `radix` took its MSD route on all cores from 32 MiB of keys
/// (2^23 u32) then (16 MiB since session 5), and from there the transfers make the GPU
/// lose; below 2^20 keys the transfers' fixed cost does. Pairs stay on `radix` (no clear window). Software drivers are
/// never picked (`auto` checks).
pub const GPU_RADIX_MIN_KEYS: usize = 1 << 20;

/// 32-bit key sorts go to `vulkan-radix` from this many keys on, not from
/// [`GPU_RADIX_MIN_KEYS`]: with the streamed host path (below) the GPU lost at 2^20 u32 keys
/// (0.85x of `radix`, same run as [`GPU_RADIX_KEYS32_END`]) and won from 2^22 (2.7x); 2^21
/// was not measured and stays on the CPU.
pub const GPU_RADIX_KEYS32_MIN: usize = 1 << 22;

/// ... up to (not including) this many 32-bit keys (see [`GPU_RADIX_KEYS32_MIN`]).
///
/// Since the host-slice path streams (host copies on all cores overlapping the PCIe
/// copies, branch `gpu-host`), `vulkan-radix` beats `radix` end to end at every size
/// measured from 2^22 u32 keys up on the same H200 host (BENCHMARKS.md (GPU host), run 3,
/// `gpu_bench --only e2e`, one call after 500 ms of GPU idle): 3.52 / 5.74 / 18.2 / 70.9
/// ms against 6.25 / 11.2 / 42.6 / 263 ms at 2^22 / 2^24 / 2^26 / 2^28 (1.8x to 3.7x).
pub const GPU_RADIX_KEYS32_END: usize = 1 << 29;

/// ... up to (not including) this many 64-bit keys (see [`GPU_RADIX_MIN_KEYS`]): only at
/// 2^20 did the GPU win for u64 keys (1.38x); at 2^26 it was a tie (1.06x).
pub const GPU_RADIX_KEYS64_END: usize = 1 << 21;

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

/// Every list [`preference`] returns.
pub(crate) static LISTS: [&[&str]; 8] = [
    &NIBBLES,
    &KEYS_TINY32,
    &KEYS_TINY64,
    &KEYS_SIMD,
    &KEYS_AVX512_THEN_RADIX,
    &KEYS_GPU,
    &KEYS_RADIX,
    &PAIRS,
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
            let (avx512_to, avx2_to, gpu) = match width {
                KeyWidth::W32 => (
                    if float {
                        KEYS32_FLOAT_RADIX_MIN_LEN
                    } else {
                        KEYS32_RADIX_MIN_LEN
                    },
                    KEYS32_AVX2_RADIX_MIN_LEN,
                    GPU_RADIX_KEYS32_MIN..GPU_RADIX_KEYS32_END,
                ),
                KeyWidth::W64 => (
                    if float {
                        KEYS64_FLOAT_RADIX_MIN_LEN
                    } else {
                        KEYS64_RADIX_MIN_LEN
                    },
                    KEYS64_AVX2_RADIX_MIN_LEN,
                    GPU_RADIX_MIN_KEYS..GPU_RADIX_KEYS64_END,
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
            } else if gpu.contains(&len) {
                &KEYS_GPU
            } else {
                &KEYS_RADIX
            }
        }
        // Only radix sorts pairs on the CPU (stable, values follow their keys).
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
    fn key_sorts_go_to_the_gpu_radix_only_inside_the_measured_window() {
        for (w, start, end) in [
            (KeyWidth::W32, GPU_RADIX_KEYS32_MIN, GPU_RADIX_KEYS32_END),
            (KeyWidth::W64, GPU_RADIX_MIN_KEYS, GPU_RADIX_KEYS64_END),
        ] {
            let gpu = |len| {
                preference(Workload::Keys(w), len, KeyMap::Unsigned).contains(&"vulkan-radix")
            };
            assert_eq!(
                preference(Workload::Keys(w), start, KeyMap::Unsigned)[0],
                "vulkan-radix"
            );
            assert_eq!(
                preference(Workload::Keys(w), end - 1, KeyMap::Unsigned)[0],
                "vulkan-radix"
            );
            assert!(!gpu(start - 1) && !gpu(end) && !gpu(1 << 30));
        }
        assert!(
            !preference(Workload::Pairs(KeyWidth::W32), 1 << 21, KeyMap::Unsigned)
                .contains(&"vulkan-radix")
        );
    }
}
