//! The CPU backends that take no SIMD path (`scalar`, `lut`, `portable`, `radix`, and the
//! few-distinct counting sort behind `radix`) on small inputs, against a plain reference.
//!
//! Small enough to run under Miri, which checks their unsafe code (CI: `cargo +nightly miri
//! test --no-default-features --test small_paths`); in an ordinary build it is one more
//! differential test. The lengths reach each path's edges: the empty and one-element slice,
//! lengths around the vector widths, the 8-bit LSD digits below 2^14 keys, the 11-bit digits
//! from there, and the counting sort for few distinct keys from 2^12.

use sortnet::backend;

/// A small deterministic generator (xorshift64*), so that Miri and a normal build see the
/// same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Lengths to try: every length up to 33 and a few larger ones; the 11-bit LSD digits
/// (2^14 keys and up) only outside Miri for 64-bit keys, where they cost minutes there.
fn lengths(wide: bool) -> Vec<usize> {
    let mut lens: Vec<usize> = (0..=33).collect();
    lens.extend([64, 100, 257, 1000]);
    if !cfg!(miri) || !wide {
        lens.push((1 << 14) + 3);
    }
    lens
}

fn backends() -> Vec<&'static dyn sortnet::SortBackend> {
    ["scalar", "lut", "portable", "radix"]
        .into_iter()
        .filter_map(backend::by_name)
        .collect()
}

#[test]
fn keys_sort_like_the_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for b in backends() {
        for n in lengths(false) {
            if !b.supports(sortnet::Workload::Keys(sortnet::KeyWidth::W32)) {
                continue;
            }
            let random: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
            let descending: Vec<u32> = (0..n as u32).rev().collect();
            for mut keys in [random.clone(), descending.clone()] {
                let mut expected = keys.clone();
                expected.sort_unstable();
                b.sort(&mut keys).unwrap();
                assert_eq!(keys, expected, "{} u32, n = {n}", b.name());
            }
            let mut floats: Vec<f32> = random.iter().map(|&k| f32::from_bits(k)).collect();
            let mut expected = floats.clone();
            expected.sort_unstable_by(f32::total_cmp);
            b.sort(&mut floats).unwrap();
            let same = floats.iter().zip(&expected).all(|(a, e)| a.to_bits() == e.to_bits());
            assert!(same, "{} f32, n = {n}", b.name());
        }
        for n in lengths(true) {
            if !b.supports(sortnet::Workload::Keys(sortnet::KeyWidth::W64)) {
                continue;
            }
            let mut keys: Vec<i64> = (0..n).map(|_| rng.next() as i64).collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            b.sort(&mut keys).unwrap();
            assert_eq!(keys, expected, "{} i64, n = {n}", b.name());
        }
    }
}

#[test]
fn few_distinct_keys_are_counted_right() {
    let mut rng = Rng(7);
    for b in backends() {
        if !b.supports(sortnet::Workload::Keys(sortnet::KeyWidth::W32)) {
            continue;
        }
        for n in [(1 << 12) + 5, (1 << 14) + 3] {
            let mut keys: Vec<u32> = (0..n).map(|_| (rng.next() % 7) as u32 * 1000).collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            b.sort(&mut keys).unwrap();
            assert_eq!(keys, expected, "{} few distinct, n = {n}", b.name());
        }
    }
}

#[test]
fn pairs_sort_stably() {
    let mut rng = Rng(11);
    for b in backends() {
        if !b.supports(sortnet::Workload::Pairs(sortnet::KeyWidth::W32)) {
            continue;
        }
        for n in lengths(false) {
            // Few distinct keys, so that stability shows.
            let mut keys: Vec<u32> = (0..n).map(|_| (rng.next() % 16) as u32).collect();
            let mut values: Vec<u32> = (0..n as u32).collect();
            let mut expected: Vec<(u32, u32)> = keys.iter().copied().zip(0..).collect();
            expected.sort_by_key(|&(k, _)| k); // stable
            b.sort_pairs(&mut keys, &mut values).unwrap();
            let got: Vec<(u32, u32)> = keys.into_iter().zip(values).collect();
            assert_eq!(got, expected, "{} pairs, n = {n}", b.name());
        }
    }
}

/// Each word's 16 nibbles, largest in the top bits.
fn nibbles_reference(word: u64) -> u64 {
    let mut nibbles: Vec<u64> = (0..16).map(|i| (word >> (4 * i)) & 0xf).collect();
    nibbles.sort_unstable();
    nibbles.iter().enumerate().fold(0, |acc, (i, &n)| acc | n << (4 * i))
}

#[test]
fn nibbles_sort_like_the_reference() {
    let mut rng = Rng(3);
    for b in backends() {
        if !b.supports(sortnet::Workload::Nibbles) {
            continue;
        }
        for n in (0..=40).chain([100, 257]) {
            let mut words: Vec<u64> = (0..n).map(|_| rng.next()).collect();
            let expected: Vec<u64> = words.iter().map(|&w| nibbles_reference(w)).collect();
            b.sort_nibbles(&mut words).unwrap();
            assert_eq!(words, expected, "{} nibbles, n = {n}", b.name());
        }
    }
}
