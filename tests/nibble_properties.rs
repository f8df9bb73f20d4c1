//! quickcheck properties of every nibble backend: the result equals the reference on any
//! batch, sorting twice changes nothing, and each word keeps its multiset of nibbles.

use quickcheck::{QuickCheck, TestResult};
use sortnet::backend;
use sortnet::nibble::reference;

fn nibble_histogram(word: u64) -> [u8; 16] {
    let mut counts = [0u8; 16];
    for i in 0..16 {
        counts[(word >> (4 * i) & 0xf) as usize] += 1;
    }
    counts
}

/// The property for the backend called `name`: discarded where it is not available.
fn property(name: &str, words: Vec<u64>) -> TestResult {
    let Some(b) = backend::by_name(name) else {
        return TestResult::discard();
    };
    let mut sorted = words.clone();
    if b.sort_nibbles(&mut sorted).is_err() {
        return TestResult::failed();
    }
    let matches = words
        .iter()
        .zip(&sorted)
        .all(|(w, s)| *s == reference(*w) && nibble_histogram(*w) == nibble_histogram(*s));
    let mut again = sorted.clone();
    let idempotent = b.sort_nibbles(&mut again).is_ok() && again == sorted;
    TestResult::from_bool(sorted.len() == words.len() && matches && idempotent)
}

fn check(property: fn(Vec<u64>) -> TestResult) {
    QuickCheck::new().tests(300).quickcheck(property);
}

#[test]
fn scalar_sorts_like_reference() {
    check(|w| property("scalar", w));
}

#[test]
fn lut_sorts_like_reference() {
    check(|w| property("lut", w));
}

#[test]
fn portable_sorts_like_reference() {
    check(|w| property("portable", w));
}

#[test]
fn avx2_sorts_like_reference() {
    check(|w| property("avx2", w));
}

#[test]
fn avx512_sorts_like_reference() {
    check(|w| property("avx512", w));
}

#[test]
fn auto_sorts_like_reference() {
    check(|w| property("auto", w));
}
