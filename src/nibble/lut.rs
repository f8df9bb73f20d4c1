//! Table-driven counting sort (the winning non-SIMD entry of the nibble sort contest, by
//! Jerome, as described in hanshq.net's write-up): count the nibbles with one lookup per
//! byte, then build the sorted word additively with one lookup per byte of the counts.
//!
//! `counts` packs sixteen 4-bit counters, counter `v` in bits `4v..4v + 4`. The sorted word
//! is the sum, over every value `v`, of a run of `1` nibbles starting just above the
//! nibbles taken by values `0..=v`: position `k` then adds up to the number of values whose
//! run starts at or below it, which is its value. Each byte of `counts` holds two counters,
//! so one lookup adds two runs; the table is indexed by that byte and by how many nibbles
//! the lower values took (`offset`). Jerome advanced `offset` with a second table, a chain
//! of dependent steps; here all eight offsets come at once from one multiplication.

/// A nibble of value 1 in every position.
const ONES: u64 = 0x1111_1111_1111_1111;

/// Largest number of nibbles the values below a counter byte can take (all sixteen).
const MAX_OFFSET: usize = 16;

/// `PAIR_COUNTS[b]` is the packed count of the two nibbles of byte `b`: one in counter `b & 15`
/// and one in counter `b >> 4` (two in the same counter when they are equal).
static PAIR_COUNTS: [u64; 256] = pair_counts();

/// `RUNS[offset][b]` adds the runs of the two values counted in byte `b` of `counts` when
/// `offset` nibbles are taken by lower values: a run of ones above `offset + low` and one
/// above `offset + low + high` (runs that would start at nibble 16 are empty).
static RUNS: [[u64; 256]; MAX_OFFSET + 1] = runs();

/// `ROWS[offset]` is `RUNS[offset]` for every `u8` offset (offsets past 16 cannot occur and
/// get the last row). Indexing by a `u8` through this table needs no bounds check and no
/// masking, which saves an instruction per lookup on the hot path.
static ROWS: [&[u64; 256]; 256] = rows();

const fn pair_counts() -> [u64; 256] {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (1 << (4 * (b & 15))) + (1 << (4 * (b >> 4)));
        b += 1;
    }
    table
}

/// Ones in every nibble from `start` up; empty when `start` is past the word.
const fn run_from(start: usize) -> u64 {
    if start >= 16 {
        0
    } else {
        ONES << (4 * start)
    }
}

const fn runs() -> [[u64; 256]; MAX_OFFSET + 1] {
    let mut table = [[0; 256]; MAX_OFFSET + 1];
    let mut offset = 0;
    while offset <= MAX_OFFSET {
        let mut b = 0;
        while b < 256 {
            let low = b & 15;
            let high = b >> 4;
            table[offset][b] = run_from(offset + low) + run_from(offset + low + high);
            b += 1;
        }
        offset += 1;
    }
    table
}

const fn rows() -> [&'static [u64; 256]; 256] {
    let mut table = [&RUNS[MAX_OFFSET]; 256];
    let mut offset = 0;
    while offset <= MAX_OFFSET {
        table[offset] = &RUNS[offset];
        offset += 1;
    }
    table
}

/// Sorts one word.
#[inline(always)]
pub fn sort_word(word: u64) -> u64 {
    // Sixteen equal nibbles would overflow their counter; such a word is already sorted and
    // is exactly the word equal to itself rotated by one nibble.
    if word.rotate_left(4) == word {
        return word;
    }
    let byte = |x: u64, i: usize| (x >> (8 * i)) as u8 as usize;
    let mut counts = 0u64;
    for i in 0..8 {
        counts += PAIR_COUNTS[byte(word, i)];
    }
    // Byte i of `below` counts the nibbles smaller than 2i: the byte sums of the counter
    // pairs, prefix-summed by one multiplication (every partial sum is at most 16, so no
    // byte carries into the next).
    const LOW_NIBBLES: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    let pair_sums = (counts & LOW_NIBBLES) + ((counts >> 4) & LOW_NIBBLES);
    let below = pair_sums.wrapping_mul(0x0101_0101_0101_0101) << 8;
    let mut sorted = 0u64;
    for i in 0..8 {
        sorted += ROWS[byte(below, i)][byte(counts, i)];
    }
    sorted
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
