//! Counting sort with 16 packed 4-bit counters in one `u64` and a branch-free rebuild.

/// A nibble of value 1 in every position.
const ONES: u64 = 0x1111_1111_1111_1111;

/// Sorts one word: count each nibble value into a packed 4-bit counter, then lay the values
/// out from the smallest up, each covering the still unfinished high part of the word.
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
    // `unfinished` covers the nibbles not yet assigned; each value fills all of them, and
    // the next value's mask starts `count` nibbles higher. A shift by 64 (all assigned) is
    // done in two steps so that it yields zero instead of overflowing.
    let mut unfinished = u64::MAX;
    let mut result = 0u64;
    for value in 0..16u64 {
        let count = (counts >> (4 * value)) & 0xf;
        result = (result & !unfinished) | ((ONES & unfinished) * value);
        unfinished = (unfinished << (2 * count)) << (2 * count);
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
