//! Key sort of input that is sorted but for a few keys out of place (a sorted column with
//! updates, appends or a little noise): one scan keeps the keys that are in order, sets the
//! others aside, and only those are sorted and merged back.
//!
//! Users re-sort sorted and nearly sorted data most often, and the radix passes and the
//! quicksort's partitions cost as much on it as on random keys (with 1% of the keys swapped
//! to random places, 0.6-1.4x random keys' time on two threads of the Xeon host). The scan
//! keeps an ascending subsequence in place at the front of the slice: a key below the last
//! kept key either takes the place of the few kept keys above it (a large key out of place
//! is then set aside, not every key after it) or, where more than [`MAX_POPS`] kept keys
//! are above it, is set aside itself. The keys set aside are sorted by the caller's sort,
//! then merged into the kept ones from the back, each gap moved as one block.
//!
//! Only key-only sorts use it: the scan moves keys past equal ones, which pairs would
//! notice (their values are not stable across it). The scan runs on one thread and is tried
//! where a sample of neighbouring pairs is almost all in order and most of the sampled keys
//! stand in ascending order ([`MIN_SAMPLE_KEPT`]); it gives up (the keys, in
//! another order, go to the caller's usual sort) as soon as more than one key in
//! [`MAX_ASIDE_SHARE`] goes aside. With it, 1% of the keys swapped to random places take
//! 0.11-0.40x random keys' time on one thread of the Xeon build machine (2^20 and 2^24
//! keys, `u32` and `u64`), 2.5-4 ns a key.

use super::sampling::{run_end, sample_position};

/// Inputs shorter than this are not tried: the sample and the buffer cost more than the
/// sort they could save.
pub(crate) const MIN_LEN: usize = 1 << 12;

/// Neighbouring pairs compared before the scan, spread over the slice.
const PROBES: usize = 128;

/// The scan is tried where at most this many of the [`PROBES`] pairs are out of order: 1%
/// of the keys swapped to random places put 2% of the pairs out of order (2.6 expected of
/// 128, more than 8 in under 1% of samples), random keys half of them.
const MAX_PROBES_OUT_OF_ORDER: usize = 8;

/// At most one key in this many is set aside: past that the scan gives up (the sort of the
/// aside keys and the merge then cost more than they save, and the buffer stays small).
const MAX_ASIDE_SHARE: usize = 8;

/// Kept keys a key out of order may displace (they go aside, it takes their place): one
/// large key out of place displaces one, keys slightly out of order a few.
const MAX_POPS: usize = 8;

/// Where `keys` are sorted by `order(key)` (a bijection, as the key maps are) but for a few
/// keys: moves the sorted rest to the front and returns the few, for the caller to sort and
/// hand to [`merge_back`]. Otherwise `None`, with the same keys in `keys`, perhaps in another
/// order. (The caller sorts the keys set aside itself, so that the quicksorts do it inside
/// their own instruction set.)
pub(crate) fn set_aside<K: Copy, O: Ord>(keys: &mut [K], order: impl Fn(K) -> O) -> Option<Vec<K>> {
    if keys.len() < MIN_LEN || !looks_nearly_sorted(keys, &order) {
        return None;
    }
    keep_ascending(keys, &order)
}

/// Whether few of [`PROBES`] neighbouring pairs spread over `keys` are out of order, and the
/// first keys of those pairs, in the order they stand, hold an ascending subsequence of at
/// least [`MIN_SAMPLE_KEPT`].
fn looks_nearly_sorted<K: Copy, O: Ord>(keys: &[K], order: &impl Fn(K) -> O) -> bool {
    pairs_out_of_order(keys, order) <= MAX_PROBES_OUT_OF_ORDER
        && longest_ascending(probes(keys).map(|p| order(keys[p]))) >= MIN_SAMPLE_KEPT
}

/// Where the [`PROBES`] neighbouring pairs start: spread over `keys` (at least two keys).
fn probes<K>(keys: &[K]) -> impl Iterator<Item = usize> + Clone {
    let pairs = keys.len() - 1;
    (0..PROBES).map(move |i| sample_position(pairs, PROBES, i))
}

/// How many of the [`PROBES`] neighbouring pairs are out of order.
fn pairs_out_of_order<K: Copy, O: Ord>(keys: &[K], order: &impl Fn(K) -> O) -> usize {
    probes(keys)
        .filter(|&p| order(keys[p]) > order(keys[p + 1]))
        .count()
}

/// The least length of the sample's longest ascending subsequence for the scan to be tried.
/// Where the scan succeeds, at least seven keys in eight are kept in one ascending
/// subsequence, and as many of the sample's keys in expectation; this leaves room for the
/// sample's spread. Input made of a few long sorted runs passes the pairs but not this:
/// two sorted halves keep about half the sample (its keys of one half, or those below some
/// key in the first half and above it in the second), an organ pipe too. The scan gives up
/// on two sorted halves more than half way through, on one thread: without this check and
/// the one before the scans for order (`sampling::sample_is_monotonic`), they take 1.3-2.3x
/// random keys' time on two threads of the Xeon build machine, with them 0.75-1.12x.
const MIN_SAMPLE_KEPT: usize = PROBES - 2 * PROBES / MAX_ASIDE_SHARE;

/// The length of the longest non-descending subsequence of `sample` (patience sorting:
/// `tails[l]` is the least last key of such a subsequence of length `l + 1` so far).
fn longest_ascending<O: Ord>(sample: impl Iterator<Item = O>) -> usize {
    let mut tails: Vec<O> = Vec::with_capacity(PROBES);
    for x in sample {
        let at = tails.partition_point(|t| *t <= x);
        if at == tails.len() {
            tails.push(x);
        } else {
            tails[at] = x;
        }
    }
    tails.len()
}

/// Moves an ascending subsequence of `keys` to its front, in order, and returns the other
/// keys; `None` (every key still in `keys`) where more than one in [`MAX_ASIDE_SHARE`]
/// would go aside.
fn keep_ascending<K: Copy, O: Ord>(keys: &mut [K], order: &impl Fn(K) -> O) -> Option<Vec<K>> {
    let n = keys.len();
    let limit = n / MAX_ASIDE_SHARE;
    let mut aside = Vec::with_capacity(limit + MAX_POPS);
    // `keys[..kept]` is ascending; `keys[kept..i]` is free (its keys were kept or set aside).
    let mut kept = 1;
    let mut top = order(keys[0]);
    let mut i = 1;
    while i < n {
        let x = keys[i];
        let ox = order(x);
        if ox >= top {
            // `x` and the ascending run it starts are kept, moved as one block.
            let end = run_end(keys, i, |a, b| order(a) <= order(b));
            if kept < i {
                keys.copy_within(i..end, kept);
            }
            kept += end - i;
            top = order(keys[kept - 1]);
            i = end;
            continue;
        }
        // `x` goes where the kept keys above it start, if there are at most MAX_POPS of them.
        let mut at = kept - 1;
        while at > 0 && kept - at < MAX_POPS && order(keys[at - 1]) > ox {
            at -= 1;
        }
        if at == 0 || order(keys[at - 1]) <= ox {
            aside.extend_from_slice(&keys[at..kept]);
            keys[at] = x;
            kept = at + 1;
            top = ox;
        } else {
            aside.push(x);
        }
        // Give up early on input that only looked sorted (long sorted runs, sawtooth).
        if aside.len() > limit || (i >= 1024 && aside.len() * MAX_ASIDE_SHARE > i) {
            keys[kept..kept + aside.len()].copy_from_slice(&aside);
            return None;
        }
        i += 1;
    }
    debug_assert_eq!(kept + aside.len(), n);
    Some(aside)
}

/// Merges the sorted `aside` keys from [`set_aside`] into the ascending
/// `keys[..n - aside.len()]` it left, filling
/// `keys` from the back: for each aside key, largest first, the kept keys above it move up
/// as one block (found by a galloping search from the end of the kept keys left, so the
/// search stays near where the last one ended).
pub(crate) fn merge_back<K: Copy, O: Ord>(keys: &mut [K], aside: &[K], order: impl Fn(K) -> O) {
    let mut end = keys.len() - aside.len();
    let mut write = keys.len();
    for &y in aside.iter().rev() {
        let oy = order(y);
        // Kept keys above `y` are `keys[start..end]`; equal keys stay below it.
        let mut step = 1;
        while step <= end && order(keys[end - step]) > oy {
            step *= 2;
        }
        let low = end - step.min(end);
        let high = end - step / 2;
        let start = low + keys[low..high].partition_point(|&k| order(k) <= oy);
        let moved = end - start;
        keys.copy_within(start..end, write - moved);
        write -= moved + 1;
        keys[write] = y;
        end = start;
    }
    debug_assert_eq!(write, end);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    fn random_keys(n: usize, seed: u64) -> Vec<u32> {
        let mut s = seed;
        (0..n).map(|_| xorshift(&mut s) as u32).collect()
    }

    fn nearly_sorted(n: usize, swaps: usize, seed: u64) -> Vec<u32> {
        let mut s = seed;
        let mut keys: Vec<u32> = (0..n).map(|_| xorshift(&mut s) as u32).collect();
        keys.sort_unstable();
        for _ in 0..swaps {
            let (i, j) = (xorshift(&mut s) as usize % n, xorshift(&mut s) as usize % n);
            keys.swap(i, j);
        }
        keys
    }

    /// The module's two steps with std's sort for the keys set aside; `None` if it gave up.
    fn sort_if_nearly_sorted(
        keys: &mut [u32],
        order: impl Fn(u32) -> u32 + Copy,
        sort: impl FnOnce(&mut [u32]),
    ) -> Option<usize> {
        let mut aside = set_aside(keys, order)?;
        sort(&mut aside);
        merge_back(keys, &aside, order);
        Some(aside.len())
    }

    fn sorted_copy(keys: &[u32]) -> Vec<u32> {
        let mut want = keys.to_vec();
        want.sort_unstable();
        want
    }

    #[test]
    fn sorts_keys_swapped_out_of_place() {
        for (n, swaps) in [
            (4096, 1),
            (4096, 40),
            (5000, 50),
            (1 << 16, 655),
            (100_000, 3),
        ] {
            let mut keys = nearly_sorted(n, swaps, n as u64 + swaps as u64);
            let want = sorted_copy(&keys);
            let aside_len = sort_if_nearly_sorted(&mut keys, |k| k, |a| a.sort_unstable());
            assert!(aside_len.is_some(), "n {n}, {swaps} swaps");
            assert_eq!(keys, want, "n {n}, {swaps} swaps");
            // Each swap puts at most two keys out of place, each displacing one kept key.
            assert!(aside_len.unwrap() <= 4 * swaps, "n {n}, {swaps} swaps");
        }
    }

    #[test]
    fn keys_appended_to_sorted_data_and_duplicates() {
        let mut keys: Vec<u32> = (0..10_000).map(|i| i / 3).collect();
        keys.extend([5, 0, 9999, 1234, 1234, 3333, 7]);
        let want = sorted_copy(&keys);
        assert!(sort_if_nearly_sorted(&mut keys, |k| k, |a| a.sort_unstable()).is_some());
        assert_eq!(keys, want);
    }

    #[test]
    fn order_map_is_followed() {
        // Descending by the key: the order maps a key to its complement.
        let mut keys = nearly_sorted(8192, 30, 7);
        keys.reverse();
        let mut want = keys.clone();
        want.sort_unstable_by(|a, b| b.cmp(a));
        let descending = |a: &mut [u32]| a.sort_unstable_by(|x, y| y.cmp(x));
        assert!(sort_if_nearly_sorted(&mut keys, |k| !k, descending).is_some());
        assert_eq!(keys, want);
    }

    #[test]
    fn gives_up_with_every_key_kept() {
        let random = random_keys(1 << 14, 3);
        let n = random.len();
        // Sawtooth: sorted runs pass the sample, the scan gives up after two runs.
        let mut sawtooth = random.clone();
        sawtooth.chunks_mut(128).for_each(|c| c.sort_unstable());
        // Sorted, then a tenth of the keys swapped: too many to set aside.
        let noisy = nearly_sorted(n, n / 10, 11);
        for (name, input) in [("random", random), ("sawtooth", sawtooth), ("noisy", noisy)] {
            let mut keys = input.clone();
            assert_eq!(set_aside(&mut keys, |k| k), None, "{name}");
            assert_eq!(sorted_copy(&keys), sorted_copy(&input), "{name}: keys lost");
        }
    }

    #[test]
    fn few_long_sorted_runs_are_not_scanned() {
        let random = random_keys(1 << 14, 5);
        let n = random.len();
        let mut halves = random.clone();
        halves[..n / 2].sort_unstable();
        halves[n / 2..].sort_unstable();
        let mut organ_pipe = sorted_copy(&random);
        organ_pipe[n / 2..].reverse();
        for (name, keys) in [("sorted halves", halves), ("organ pipe", organ_pipe)] {
            // The pairs alone would try the scan: only the sample's subsequence stops it.
            if name == "sorted halves" {
                let out_of_order = pairs_out_of_order(&keys, &|k| k);
                assert!(out_of_order <= MAX_PROBES_OUT_OF_ORDER, "{name}");
            }
            assert!(!looks_nearly_sorted(&keys, &|k| k), "{name}");
        }
        let noisy = nearly_sorted(n, n / 100, 13);
        assert!(looks_nearly_sorted(&noisy, &|k| k));
    }

    #[test]
    fn runs_end_at_the_first_key_below_its_neighbour() {
        let in_order = |a: u32, b: u32| a <= b;
        for n in [1usize, 2, 8, 9, 17, 40] {
            let ascending: Vec<u32> = (0..n as u32).map(|k| k / 2).collect();
            for start in 0..n {
                assert_eq!(
                    run_end(&ascending, start, in_order),
                    n,
                    "n {n} start {start}"
                );
                for drop in start + 1..n {
                    let mut keys = ascending.clone();
                    keys[drop] = 0;
                    let want = (start + 1..n).find(|&j| keys[j] < keys[j - 1]).unwrap_or(n);
                    assert_eq!(
                        run_end(&keys, start, in_order),
                        want,
                        "n {n} start {start} drop {drop}"
                    );
                }
            }
        }
    }

    #[test]
    fn longest_ascending_subsequence() {
        assert_eq!(longest_ascending([0u32; 0].into_iter()), 0);
        assert_eq!(longest_ascending([3, 1, 2, 2, 5, 4].into_iter()), 4);
        assert_eq!(longest_ascending([5, 4, 3, 2, 1].into_iter()), 1);
        assert_eq!(longest_ascending(0..100), 100);
    }

    #[test]
    fn short_input_is_left_alone() {
        let mut keys: Vec<u32> = (0..MIN_LEN as u32 - 1).rev().collect();
        let before = keys.clone();
        assert_eq!(set_aside(&mut keys, |k| k), None);
        assert_eq!(keys, before);
    }
}
