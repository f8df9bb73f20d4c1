//! Table-driven counting sort, after the winning non-SIMD entry of the nibble sort contest
//! (Jerome's, as described in hanshq.net's write-up): count the nibbles with one lookup per
//! byte into sixteen packed 4-bit counters.
//!
//! The rebuild is ours. The sorted word is the sum, over every value `v` from 1 to 15, of a
//! run of 1-nibbles from position `P(v)`, the number of nibbles smaller than `v`, to the
//! top: position `k` then adds up to the number of values whose run starts at or below it,
//! which is its value. That sum is `ONES` times the histogram of the starts `P(1)..P(15)`
//! (the multiplication turns the histogram into its prefix sums), and the starts are
//! themselves the prefix sums of the counters, `counts * ONES`. So the rebuild is two
//! multiplications around one more count: the histogram of the fifteen starts, looked up
//! three nibbles at a time. Jerome instead added runs from a 34 KiB table indexed by counter
//! byte and offset, with a second table to advance the offset; this is 1.3x faster here
//! (BENCHMARKS.md, "CPU nibble sort").

/// A nibble of value 1 in every position.
const ONES: u64 = 0x1111_1111_1111_1111;

/// `PAIR_COUNTS[b]` is the packed count of the two nibbles of byte `b`: one in counter
/// `b & 15` and one in counter `b >> 4` (two in the same counter when they are equal).
static PAIR_COUNTS: [u64; 256] = pair_counts();

/// `TRIPLE_COUNTS[x]` is the packed count of the three nibbles of the 12-bit `x` (32 KiB,
/// of which the starts of real words touch a small part: three consecutive starts are
/// non-decreasing, or a start of 16 carried to 0 or 1, see `sort_word_bytes`).
static TRIPLE_COUNTS: [u64; 4096] = triple_counts();

const fn triple_counts() -> [u64; 4096] {
    let mut table = [0; 4096];
    let mut x = 0;
    while x < 4096 {
        table[x] = (1 << (4 * (x & 15))) + (1 << (4 * ((x >> 4) & 15))) + (1 << (4 * (x >> 8)));
        x += 1;
    }
    table
}

const fn pair_counts() -> [u64; 256] {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (1 << (4 * (b & 15))) + (1 << (4 * (b >> 4)));
        b += 1;
    }
    table
}

/// The sixteen nibbles of a word given as its bytes (in any order), two per byte, counted
/// into packed 4-bit counters. A counter that reaches 16 carries into the next one (or out
/// of the word), which only sixteen equal nibbles can cause.
///
/// The eight lookups are written as a tree of additions (measured 6.5 against 6.8 ns per
/// word for a fold).
#[inline(always)]
fn count_nibbles(bytes: &[u8; 8]) -> u64 {
    let t = |i: usize| PAIR_COUNTS[bytes[i] as usize];
    let add = u64::wrapping_add;
    add(
        add(add(t(0), t(1)), add(t(2), t(3))),
        add(add(t(4), t(5)), add(t(6), t(7))),
    )
}

/// Sorts one word (the tests check the kernel word by word).
#[cfg(test)]
fn sort_word(word: u64) -> u64 {
    sort_word_bytes(&word.to_ne_bytes())
}

/// Sorts the word whose bytes (native order) are `bytes`. Taking the bytes rather than the
/// word lets [`sort_words`] read each one straight from memory with one load, instead of
/// shifting it out of a register (measured 6.0 against 6.5 ns per word).
#[inline(always)]
fn sort_word_bytes(bytes: &[u8; 8]) -> u64 {
    let word = u64::from_ne_bytes(*bytes);
    // Sixteen equal nibbles would overflow their counter; such a word is already sorted and
    // is exactly the word equal to itself rotated by one nibble.
    if word.rotate_left(4) == word {
        return word;
    }
    let counts = count_nibbles(bytes);
    // Multiplying by ONES takes the prefix sums of the counters: nibble k of the product
    // is P(k + 1), the number of nibbles <= k, as long as that is below 16. From the
    // largest nibble value `max` up the sums are 16, which the product carries: it holds
    // 0 at `max` and 1 above.
    let ends = counts.wrapping_mul(ONES);
    // The histogram of P(1)..P(15) (nibbles 0..15 of `ends`), three at a time.
    let triple = |i: usize| TRIPLE_COUNTS[((ends >> (12 * i)) & 0xfff) as usize];
    let histogram = (triple(0) + triple(1)) + (triple(2) + triple(3)) + triple(4);
    // Undo the carried sums: with `above` = 15 - max values above the largest nibble
    // (empty counters at the top), one start was counted at 0 and `above - 1` at 1 instead
    // of at 16, where they add nothing. Counters 0 and 1 stay below 16 meanwhile (they
    // count distinct values v <= 15), so nothing carried between them.
    let above = u64::from(counts.leading_zeros() / 4);
    let miscounted = (16 * above).saturating_sub(15);
    (histogram - miscounted).wrapping_mul(ONES)
}

/// Sorts every word of the slice, one after the other.
pub fn sort_words(words: &mut [u64]) {
    for w in words {
        let bytes: &[u8; 8] = bytemuck::cast_ref(w);
        *w = sort_word_bytes(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nibble::reference;

    #[test]
    fn matches_reference_on_random_and_edge_words() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut words = vec![
            0,
            u64::MAX,
            ONES,
            0xf000_0000_0000_0000,
            1,
            0x42badc0ffeed00d5,
        ];
        for v in 0..16u64 {
            words.push(v * ONES);
            for pos in 0..16 {
                for other in 0..16u64 {
                    let w = v * ONES;
                    words.push(w & !(0xf << (4 * pos)) | other << (4 * pos));
                }
            }
        }
        for i in 0..256u64 {
            words.push((i & 0xff) * 0x0101_0101_0101_0101);
        }
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            words.push(x);
        }
        for w in words {
            assert_eq!(sort_word(w), reference(w), "{w:#018x}");
        }
    }

    #[test]
    fn matches_reference_on_every_count_split_of_two_values() {
        // Words made of `k` copies of `a` and 16 - k of `b` reach every offset and the
        // extreme counter bytes (a counter of 15, a counter of 0).
        for a in 0..16u64 {
            for b in 0..16u64 {
                for k in 0..=16 {
                    let w = (0..16).fold(0u64, |w, i| w | (if i < k { a } else { b }) << (4 * i));
                    assert_eq!(sort_word(w), reference(w), "{w:#018x}");
                }
            }
        }
    }
}
