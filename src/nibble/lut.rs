//! Table-driven counting sort, after the winning non-SIMD entry of the nibble sort contest
//! (Jerome's, as described in hanshq.net's write-up): count the nibbles with one lookup per
//! byte into sixteen packed 4-bit counters.
//!
//! The rebuild is ours and uses the same table again. The sorted word is the sum, over
//! every value `v` from 1 to 15, of a run of 1-nibbles from position `P(v)`, the number of
//! nibbles smaller than `v`, to the top: position `k` then adds up to the number of values
//! whose run starts at or below it, which is its value. That sum is `ONES` times the
//! histogram of the starts `P(1)..P(15)` (the multiplication turns the histogram into its
//! prefix sums), and that histogram is another nibble count: all fifteen starts, packed
//! two per byte, go through the table that counted the word. Jerome instead added runs
//! from a 34 KiB table indexed by counter byte and offset, with one lookup per byte plus a
//! second table to advance the offset.

/// A nibble of value 1 in every position.
const ONES: u64 = 0x1111_1111_1111_1111;

/// The low nibble of every byte.
const LOW_NIBBLES: u64 = 0x0f0f_0f0f_0f0f_0f0f;

/// `PAIR_COUNTS[b]` is the packed count of the two nibbles of byte `b`: one in counter
/// `b & 15` and one in counter `b >> 4` (two in the same counter when they are equal).
static PAIR_COUNTS: [u64; 256] = pair_counts();

const fn pair_counts() -> [u64; 256] {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (1 << (4 * (b & 15))) + (1 << (4 * (b >> 4)));
        b += 1;
    }
    table
}

/// The sixteen nibbles of `packed`, two per byte, counted into packed 4-bit counters.
///
/// The eight lookups are written as a tree of additions (measured 6.5 against 6.8 ns per
/// word for a fold).
#[inline(always)]
fn count_nibbles(packed: u64) -> u64 {
    let bytes = packed.to_le_bytes();
    let t = |i: usize| PAIR_COUNTS[bytes[i] as usize];
    ((t(0) + t(1)) + (t(2) + t(3))) + ((t(4) + t(5)) + (t(6) + t(7)))
}

/// Sorts one word.
#[inline(always)]
pub fn sort_word(word: u64) -> u64 {
    // Sixteen equal nibbles would overflow their counter; such a word is already sorted and
    // is exactly the word equal to itself rotated by one nibble.
    if word.rotate_left(4) == word {
        return word;
    }
    let counts = count_nibbles(word);
    // The starts P(v), in byte lanes: byte i of `upto_odd` is P(2i + 2), the number of
    // nibbles <= 2i + 1, and byte i of `upto_even` is P(2i + 1). One multiplication takes
    // the prefix sums of the counter pairs; no sum passes 16, so no byte carries.
    let even = counts & LOW_NIBBLES;
    let odd = (counts >> 4) & LOW_NIBBLES;
    let upto_odd = (even + odd).wrapping_mul(0x0101_0101_0101_0101);
    let upto_even = (upto_odd << 8) + even;
    // P(1)..P(16) packed two per byte, taken mod 16, and counted like the word's nibbles.
    let starts = (upto_even & LOW_NIBBLES) | ((upto_odd & LOW_NIBBLES) << 4);
    let histogram = count_nibbles(starts);
    // The starts equal to 16 were counted at 0: P(16) always, and P(v) for every value v
    // above the largest nibble, one per empty counter at the top. Without them counter 0
    // is at most 15 (a word of one repeated nibble returned early), so no nibble carries.
    let wrapped = 1 + u64::from(counts.leading_zeros() / 4);
    (histogram - wrapped).wrapping_mul(ONES)
}

/// Sorts every word of the slice, one after the other.
pub fn sort_words(words: &mut [u64]) {
    for w in words {
        *w = sort_word(*w);
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
