//! Nibble sort: sort the 16 four-bit nibbles inside every `u64` of a batch, largest nibble
//! in the most significant position (`0x42badc0ffeed00d5` -> `0xffeedddcba542000`).
//!
//! Every implementation here is checked against [`reference()`] on the same inputs.

pub(crate) mod lut;
pub(crate) mod network;
pub(crate) mod portable;
pub(crate) mod scalar;
pub(crate) mod thresholds;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64 {
    //! x86-64 nibble kernels: the shared network over AVX2 and AVX-512 byte vectors.

    pub mod avx2;
    pub mod avx512;
}

use rayon::prelude::*;

/// Runs `sort` over `words`, split across rayon's pool when the slice has at least
/// `min_words` words (and the pool has more than one thread).
///
/// Chunks are about a quarter of an even share per thread (so a thread slowed by other
/// work is balanced by the others), at least `min_chunk_words`, and a multiple of 64 words,
/// every SIMD block, so that only the last chunk can end in a partial block.
pub(crate) fn sort_in_parallel(
    words: &mut [u64],
    min_words: usize,
    min_chunk_words: usize,
    sort: impl Fn(&mut [u64]) + Sync,
) {
    if words.len() < min_words {
        sort(words);
    } else {
        split_over_pool(words, min_chunk_words, sort);
    }
}

/// The parallel half of [`sort_in_parallel`], out of line so that short calls do not pay
/// for its setup.
#[inline(never)]
fn split_over_pool(words: &mut [u64], min_chunk_words: usize, sort: impl Fn(&mut [u64]) + Sync) {
    let threads = rayon::current_num_threads();
    if threads < 2 {
        return sort(words);
    }
    let share = words.len() / (4 * threads);
    let chunk = share.max(min_chunk_words).next_multiple_of(64);
    words.par_chunks_mut(chunk).for_each(&sort);
}

/// The reference semantics: extract the 16 nibbles, sort them, repack (largest on top).
/// Slow and obviously right; tests and fuzzers compare every backend against it.
pub fn reference(word: u64) -> u64 {
    let mut nibbles: [u8; 16] = std::array::from_fn(|i| ((word >> (4 * i)) & 0xf) as u8);
    nibbles.sort_unstable();
    nibbles
        .iter()
        .enumerate()
        .fold(0, |acc, (i, &n)| acc | (n as u64) << (4 * i))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::reference;

    /// A xorshift stream: deterministic test words without a dependency.
    pub(crate) fn xorshift_words(seed: u64, len: usize) -> Vec<u64> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect()
    }

    /// The words a kernel is checked on: random words, the contest's pathological buffer
    /// (every byte of word `i` equal to `i mod 256`), all sixteen all-equal words, and every
    /// word of fifteen equal nibbles and one other.
    pub(crate) fn interesting_words() -> Vec<u64> {
        let mut words = xorshift_words(0x9e37_79b9_7f4a_7c15, 3000);
        words.extend((0..600u64).map(|i| (i % 256) * 0x0101_0101_0101_0101));
        for v in 0..16u64 {
            let equal = v * 0x1111_1111_1111_1111;
            words.push(equal);
            for pos in 0..16 {
                for other in 0..16u64 {
                    words.push(equal & !(0xf << (4 * pos)) | other << (4 * pos));
                }
            }
        }
        words.extend([0, u64::MAX, 0x42badc0ffeed00d5, 0x0badbeef]);
        words
    }

    /// Checks a slice kernel whose block is `width` words against [`reference`]: on the
    /// interesting words, on every length around multiples of the width, and on subslices
    /// at odd offsets with guard words around them that must stay untouched.
    pub(crate) fn check_kernel(width: usize, sort: impl Fn(&mut [u64])) {
        let words = interesting_words();
        let mut got = words.clone();
        sort(&mut got);
        for (w, g) in words.iter().zip(&got) {
            assert_eq!(*g, reference(*w), "word {w:#018x}");
        }
        let source = xorshift_words(0x2545_f491_4f6c_dd1d, 4 * width + 8);
        let mut lengths: Vec<usize> = (0..=2 * width + 2).collect();
        for k in [3, 4] {
            lengths.extend([k * width - 1, k * width, k * width + 1]);
        }
        const GUARD: u64 = 0xdead_beef_dead_beef;
        for len in lengths {
            for offset in [0, 1, 3] {
                let mut buffer = vec![GUARD; len + offset + 5];
                buffer[offset..offset + len].copy_from_slice(&source[..len]);
                sort(&mut buffer[offset..offset + len]);
                for (i, &b) in buffer.iter().enumerate() {
                    if (offset..offset + len).contains(&i) {
                        let want = reference(source[i - offset]);
                        assert_eq!(b, want, "len {len}, offset {offset}, index {i}");
                    } else {
                        assert_eq!(b, GUARD, "len {len}, offset {offset}: wrote at {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn scalar_and_lut_pass_the_kernel_checks() {
        check_kernel(1, super::scalar::sort_words);
        check_kernel(1, super::lut::sort_words);
    }

    #[test]
    fn parallel_split_matches_reference() {
        let words = xorshift_words(7, 10_000 + 13);
        let mut got = words.clone();
        super::sort_in_parallel(&mut got, 0, 64 * 3, super::portable::sort_words);
        assert!(words.iter().zip(&got).all(|(w, g)| *g == reference(*w)));
    }

    #[test]
    fn reference_matches_the_contest_examples() {
        assert_eq!(reference(0x42badc0ffeed00d5), 0xffeedddcba542000);
        assert_eq!(reference(0x0badbeef), 0xfeedbba000000000);
        assert_eq!(reference(0), 0);
        assert_eq!(reference(u64::MAX), u64::MAX);
    }
}
