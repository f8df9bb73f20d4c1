//! Nibble sort: sort the 16 four-bit nibbles inside every `u64` of a batch, largest nibble
//! in the most significant position (`0x42badc0ffeed00d5` -> `0xffeedddcba542000`).
//!
//! Every implementation here is checked against [`reference`] on the same inputs.

pub mod scalar;

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
mod tests {
    use super::reference;

    #[test]
    fn reference_matches_the_contest_examples() {
        assert_eq!(reference(0x42badc0ffeed00d5), 0xffeedddcba542000);
        assert_eq!(reference(0x0badbeef), 0xfeedbba000000000);
        assert_eq!(reference(0), 0);
        assert_eq!(reference(u64::MAX), u64::MAX);
    }
}
