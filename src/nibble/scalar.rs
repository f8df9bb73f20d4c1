//! Counting sort with 16 packed 4-bit counters in one `u64` and a branch-free, table-free
//! rebuild.

/// A nibble of value 1 in every position.
const ONES: u64 = 0x1111_1111_1111_1111;

/// Sorts one word: count each nibble value into a packed 4-bit counter, then add up one run
/// of 1-nibbles per value, each starting where the smaller values end.
#[inline]
pub fn sort_word(word: u64) -> u64 {
    // Sixteen equal nibbles would overflow their 4-bit counter; such a word is its own sort,
    // and it is exactly the word that equals itself rotated by one nibble.
    if word.rotate_left(4) == word {
        return word;
    }
    let mut counts = 0u64;
    let mut rest = word;
    for _ in 0..16 {
        counts += 1 << (4 * (rest & 0xf));
        rest >>= 4;
    }
    // The sorted word is the sum, over every value v >= 1, of a run of 1-nibbles starting
    // at the number of nibbles smaller than v: position k then sums to the number of values
    // whose run starts at or below k, which is its value. Those starting points are prefix
    // sums of the counters, taken for all values at once in byte lanes: `upto_odd` byte i
    // counts the nibbles <= 2i + 1, `upto_even` byte i those <= 2i (every sum is at most
    // 16, so no byte carries into the next).
    const LOW_NIBBLES: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    let even = counts & LOW_NIBBLES;
    let odd = (counts >> 4) & LOW_NIBBLES;
    let upto_odd = (even + odd).wrapping_mul(0x0101_0101_0101_0101);
    let upto_even = (upto_odd << 8) + even;
    // A run starting at nibble 16 is empty: shifting twice by half the distance gives 0
    // there instead of overflowing the shift.
    let run = |starts: u64, i: usize| {
        let half = ((starts >> (8 * i)) & 0x1f) * 2;
        (ONES << half) << half
    };
    let mut result = 0u64;
    for i in 0..8 {
        // Values 2i + 1 and 2i + 2 (the run of value 16 does not exist).
        result += run(upto_even, i);
        if i < 7 {
            result += run(upto_odd, i);
        }
    }
    result
}

/// Sorts every word of the slice.
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
    fn matches_reference_on_edge_words() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut words = vec![0, u64::MAX, 0x1111_1111_1111_1111, 0xf000_0000_0000_0000, 1];
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            words.push(x);
        }
        for w in words {
            assert_eq!(sort_word(w), reference(w), "{w:#x}");
        }
    }
}
