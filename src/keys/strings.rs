//! Byte strings in byte order (`memcmp`, a prefix before its extensions): the engine of
//! `sort_strings` and `argsort_strings`, and so of Arrow's row format (several columns
//! encoded as one comparable byte string), binary columns and UTF-8 text (byte order is code
//! point order).
//!
//! A most-significant-digit radix sort whose digits are 8 bytes wide. A group of strings
//! that agree on their first `depth` bytes is sorted by the next 8 bytes of each, read as a
//! big-endian `u64` (zero-padded past the end) and sorted with the string's index by the
//! crate's 64-bit pair sort (`radix`: stable, MSD and LSD passes, threads for large groups).
//! Strings whose 8 bytes are equal are then told apart by how many of those bytes they have
//! (`"ab"` before `"ab\0"`: a prefix first), and those that go on past them form a group at
//! `depth + 8`. A group whose words take at most [`FEW_VALUES_MAX`] values (categories) is
//! sorted by counting them instead. Groups of at most [`COMPARE_MAX_LEN`] strings are sorted by comparing their
//! remaining bytes. A group whose 8 bytes are all the same skips the sort (one read of the
//! bytes), so a common prefix costs a read of it per string, never a sort per 8 bytes; the
//! work stack is a `Vec`, so no length of shared prefix deepens the call stack.
//!
//! Every step is stable and starts from the indices in order, so strings that are equal
//! come out in index order: the argsort is stable.
//!
//! Memory: the strings' addresses and lengths (`16n` bytes), the 8-byte digits and the
//! indices (`12n`) and the pair sort's scratch (`12n` for large groups), freed before the
//! call returns.

use super::key::KeyMap;
use super::radix;
use super::records::{iota32, Order};

/// Groups of at most this many strings are sorted by comparison of their remaining bytes
/// (std's stable sort), which beats reading their 8-byte digits and sorting those: most such
/// groups are told apart by the first bytes compared.
const COMPARE_MAX_LEN: usize = 24;

/// The 8 bytes of `s` from `depth` on as a big-endian word, zeros past its end.
#[inline(always)]
fn digit(s: &[u8], depth: usize) -> u64 {
    match s.get(depth..depth + 8) {
        Some(bytes) => u64::from_be_bytes(bytes.try_into().expect("8 bytes")),
        None => {
            let tail = s.get(depth..).unwrap_or(&[]);
            let mut word = [0u8; 8];
            word[..tail.len()].copy_from_slice(tail);
            u64::from_be_bytes(word)
        }
    }
}

/// How many bytes `s` has from `depth` on, capped at 9: strings with equal 8-byte digits
/// sort by it (0 to 8 bytes: all told, shorter first; 9: more to come, a group of its own).
#[inline(always)]
fn class(s: &[u8], depth: usize) -> usize {
    s.len().saturating_sub(depth).min(9)
}

/// The stable byte order of `rows`: `order[i]` is the index of the `i`-th smallest.
pub(crate) fn order<S: AsRef<[u8]>>(rows: &[S]) -> Order {
    let refs: Vec<&[u8]> = rows.iter().map(AsRef::as_ref).collect();
    if u32::try_from(refs.len()).is_err() {
        // Past 2^32 strings: indices of 8 bytes, sorted by comparison.
        let mut order: Vec<u64> = (0..refs.len() as u64).collect();
        order.sort_by(|&a, &b| refs[a as usize].cmp(refs[b as usize]));
        return Order::U64(order);
    }
    Order::U32(order32(&refs))
}

/// [`order`] for fewer than 2^32 strings.
fn order32(refs: &[&[u8]]) -> Vec<u32> {
    let n = refs.len();
    let mut idx = iota32(n);
    let mut digits = vec![0u64; n];
    // Groups still to sort: (start, end, depth), every string in one sharing `depth` bytes.
    let mut stack = vec![(0usize, n, 0usize)];
    while let Some((start, end, depth)) = stack.pop() {
        let group = &mut idx[start..end];
        if group.len() <= COMPARE_MAX_LEN {
            let tail = |i: u32| refs[i as usize].get(depth..).unwrap_or(&[]);
            group.sort_by(|&a, &b| tail(a).cmp(tail(b)));
            continue;
        }
        let words = &mut digits[start..end];
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for (w, &i) in words.iter_mut().zip(group.iter()) {
            let d = digit(refs[i as usize], depth);
            *w = d;
            lo = lo.min(d);
            hi = hi.max(d);
        }
        if lo != hi && !sort_few_values(words, group) {
            radix::sort_pairs64(words, group, KeyMap::Unsigned);
        }
        // Runs of equal digits: split by class, push those that go on.
        let mut a = 0;
        while a < group.len() {
            let mut b = a + 1;
            while b < group.len() && words[b] == words[a] {
                b += 1;
            }
            if b - a > 1 {
                let run = &mut group[a..b];
                let cls = |i: &u32| class(refs[*i as usize], depth);
                if !run.iter().all(|i| cls(i) == 9) {
                    run.sort_by_key(cls);
                }
                let more = run.partition_point(|i| cls(i) < 9);
                if b - (a + more) > 1 {
                    stack.push((start + a + more, start + b, depth + 8));
                }
            }
            a = b;
        }
    }
    idx
}

/// Most distinct 8-byte digits a group may have for [`sort_few_values`] to sort it.
const FEW_VALUES_MAX: usize = 16;

/// Sorts `words`, and `group` with them, stably by counting where the words take at most
/// [`FEW_VALUES_MAX`] values (a column of a few categories, such as TPC-H's seven ship
/// modes, whose 8-byte words differ in every byte: the pair sort's radix would take eight
/// passes over them); returns whether it did.
fn sort_few_values(words: &mut [u64], group: &mut [u32]) -> bool {
    let mut values: Vec<u64> = Vec::with_capacity(FEW_VALUES_MAX);
    for &w in words.iter() {
        if !values.contains(&w) {
            if values.len() == FEW_VALUES_MAX {
                return false;
            }
            values.push(w);
        }
    }
    values.sort_unstable();
    let ranks: Vec<u8> = words
        .iter()
        .map(|w| values.partition_point(|v| v < w) as u8)
        .collect();
    let mut counts = [0usize; FEW_VALUES_MAX];
    for &r in &ranks {
        counts[r as usize] += 1;
    }
    let mut next = [0usize; FEW_VALUES_MAX];
    let mut at = 0;
    for (slot, &count) in next.iter_mut().zip(&counts) {
        *slot = at;
        at += count;
    }
    let mut sorted = vec![0u32; group.len()];
    for (&r, &i) in ranks.iter().zip(group.iter()) {
        sorted[next[r as usize]] = i;
        next[r as usize] += 1;
    }
    group.copy_from_slice(&sorted);
    let mut at = 0;
    for (&value, &count) in values.iter().zip(&counts) {
        words[at..at + count].fill(value);
        at += count;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::keys::keys128::tests::rng;

    /// Strings over a small alphabet (zeros included, so padding and real zeros meet), with
    /// a shared prefix of `prefix` bytes.
    fn strings(n: usize, max_len: u64, alphabet: u64, prefix: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut r = rng(seed);
        (0..n)
            .map(|_| {
                let mut s = vec![b'p'; prefix];
                let len = r() % (max_len + 1);
                s.extend((0..len).map(|_| (r() % alphabet) as u8));
                s
            })
            .collect()
    }

    fn check(rows: &[Vec<u8>]) {
        let Order::U32(got) = order(rows) else {
            panic!("u32 order expected")
        };
        let mut expected: Vec<u32> = (0..rows.len() as u32).collect();
        expected.sort_by(|&a, &b| rows[a as usize].cmp(&rows[b as usize]));
        assert_eq!(got, expected, "{} strings", rows.len());
    }

    #[test]
    fn orders_as_std_stable_sort() {
        for n in [0, 1, 2, 24, 25, 100, 3000, 70_000] {
            for (max_len, alphabet, prefix) in [(32, 256, 0), (12, 2, 0), (40, 3, 20), (9, 1, 7)] {
                check(&strings(n, max_len, alphabet, prefix, n as u64 + max_len));
            }
        }
    }

    #[test]
    fn few_distinct_words_sort_by_counting_and_stay_stable() {
        let modes = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"];
        let mut r = rng(5);
        for values in [1, 7, 8, 16, 17] {
            // Up to 16 distinct words take the count; 17 the radix sort. Each string fits
            // one word ("REG AIR2" is 8 bytes), so distinct strings are distinct words.
            let rows: Vec<Vec<u8>> = (0..3000)
                .map(|_| {
                    let k = (r() % values) as usize;
                    format!("{}{}", modes[k % modes.len()], k / modes.len()).into_bytes()
                })
                .collect();
            let mut words: Vec<u64> = rows.iter().map(|s| digit(s, 0)).collect();
            let mut group = iota32(rows.len());
            let counted = sort_few_values(&mut words, &mut group);
            assert_eq!(counted, values <= FEW_VALUES_MAX as u64, "{values} values");
            check(&rows);
        }
    }

    #[test]
    fn long_shared_prefixes_and_duplicates() {
        // Row-format-like keys: 300 shared bytes, then a few distinct tails, many repeated.
        let base = vec![0xA5u8; 300];
        let mut r = rng(3);
        let rows: Vec<Vec<u8>> = (0..5000)
            .map(|_| {
                let mut s = base.clone();
                s.truncate(290 + (r() % 11) as usize);
                s.push((r() % 4) as u8);
                s
            })
            .collect();
        check(&rows);
        let same = vec![vec![7u8; 1000]; 2000];
        check(&same);
    }
}
