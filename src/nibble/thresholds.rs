//! Named cut-offs of the CPU nibble kernels: when to split a batch over rayon's pool, and
//! when a few words go to the lookup-table sort instead of a SIMD block. The figures are
//! from BENCHMARKS.md, "CPU nibble sort" (a 2-core AMD EPYC Zen 4 VM, one thread unless
//! said otherwise, best of 2000 runs of the contest's timing loop).

/// Words from which the SIMD nibble kernels (portable, avx2, avx512) split a slice over
/// rayon's pool. A fork-join costs 1.8 to 5 µs on that machine (2 threads), while 2^17
/// words take 66 µs with avx512 and 79 µs with avx2 on one thread: over ten times as much.
/// The crossover itself could not be measured on a shared 2-core machine; re-measure it on
/// an idle multi-core one.
pub(crate) const NIBBLE_SIMD_PARALLEL_MIN_WORDS: usize = 1 << 17;

/// Words from which the `lut` nibble kernel splits a slice over rayon's pool: 2^14 words
/// take 82 µs on one thread (5.0 ns/word), over ten times the fork-join cost given at
/// [`NIBBLE_SIMD_PARALLEL_MIN_WORDS`].
pub(crate) const NIBBLE_LUT_PARALLEL_MIN_WORDS: usize = 1 << 14;

/// Fewest words per parallel task (chunks grow with the slice, see
/// `nibble::sort_in_parallel`): 4096 words are 2 µs of avx512 work and 20 µs of `lut`
/// work, both above rayon's per-task cost, and fit a 32 KiB L1 data cache.
pub(crate) const NIBBLE_PARALLEL_CHUNK_WORDS: usize = 1 << 12;

/// Longest tail (words after the last whole SIMD block) that the avx2 and portable kernels
/// sort with the lookup-table sort instead of one more, overlapping, block: `lut` takes
/// 9.7, 13.3, 16.6 and 21.0 ns for 1 to 4 words, one more 32-word avx2 block about 20 ns,
/// and more when it waits for the stores of the block before it. `auto` also sends slices
/// this short straight to `lut`.
pub(crate) const NIBBLE_TAIL_LUT_MAX_WORDS: usize = 4;

/// Longest whole slice, shorter than one SIMD block, that the kernels without masked
/// stores (portable, avx2) sort with the lookup-table sort instead of one block in a stack
/// buffer, whose word-sized copies the block's vector loads must wait for: avx2 through the
/// buffer takes 41 to 43 ns for 5 to 9 words, `lut` 25.7 ns for 5 words and 40.2 ns for 8
/// (45.4 ns for 9).
pub(crate) const NIBBLE_SHORT_LUT_MAX_WORDS: usize = 8;

/// As [`NIBBLE_SHORT_LUT_MAX_WORDS`] for the kernel with masked loads and stores (avx512),
/// for whole short slices and for tails: a masked block costs a flat 25 ns for 5 to 12
/// words, `lut` 21.0 ns for 4 words and 25.7 ns for 5.
#[cfg(target_arch = "x86_64")]
pub(crate) const NIBBLE_MASKED_LUT_MAX_WORDS: usize = 4;
