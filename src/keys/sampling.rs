//! Reading a slice's order cheaply, for the sorts that look before they sort: keys sampled
//! at spread positions ([`sample_position`], [`sample_is_monotonic`]) and the end of a sorted
//! run ([`run_end`]). A leaf: the quicksorts, the radix sort's run detection, the
//! nearly-sorted scan and select all read order through it, and it imports none of them.

/// Where the `i`-th of `samples` keys spread over a range of `n` is read: one key in each
/// `n / samples` stretch, at an offset in it that changes from one stretch to the next (the
/// fractional parts of `i` times the golden ratio). At one fixed offset, input made of sorted
/// runs whose length divides the stretch (sawtooth, blocks sorted one by one) showed the
/// sample only the first key of each run, the pivot fell near the minimum and every level
/// took a second partition: 1.1-1.4x random keys' time on the Xeon build machine.
#[inline(always)]
pub(crate) fn sample_position(n: usize, samples: usize, i: usize) -> usize {
    let step = n / samples;
    let fraction = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let offset = ((u128::from(fraction) * step as u128) >> 64) as usize;
    i * step + offset
}

/// Keys read by [`sample_is_monotonic`].
const MONOTONIC_PROBES: usize = 64;

/// Whether keys spread over `keys` ([`sample_position`]), in the order they stand, are all
/// non-descending or all non-ascending by `order` (always for slices too short to sample):
/// true of every slice in order or in reverse, and almost never of inputs made of a few
/// long sorted runs (sorted halves, organ pipes), which the scans for order would read to
/// the end of their first run. Two threads of the Xeon build machine, `avx512`, 2^20 and
/// 2^22 keys, time / random keys' time: sorted halves 1.30-2.27 before this check and the
/// nearly-sorted one's (`nearly::MIN_SAMPLE_KEPT`), 0.75-1.12 after; organ pipes 1.13-1.86,
/// then 0.73-1.09.
pub(crate) fn sample_is_monotonic<K: Copy, O: Ord>(keys: &[K], order: impl Fn(K) -> O) -> bool {
    let n = keys.len();
    if n < 2 * MONOTONIC_PROBES {
        return true;
    }
    let at = |i| order(keys[sample_position(n, MONOTONIC_PROBES, i)]);
    let (mut up, mut down) = (true, true);
    let mut last = at(0);
    for i in 1..MONOTONIC_PROBES {
        let next = at(i);
        up &= last <= next;
        down &= last >= next;
        last = next;
    }
    up || down
}

/// The end of the run that starts at `keys[start]`: the first `j > start` whose pair
/// `(keys[j - 1], keys[j])` is not `in_order`, or `keys.len()`. Whole groups of
/// [`RUN_CHUNK`] neighbours are compared at a time (no branch per key, which the compiler
/// can vectorise). The nearly-sorted scan (`nearly`) moves each ascending run as one block by
/// it (moving kept keys one by one costs a store per key, most of the scan's time), and the
/// scans for sorted or reversed input find their runs by it.
pub(crate) fn run_end<K: Copy>(keys: &[K], start: usize, in_order: impl Fn(K, K) -> bool) -> usize {
    let n = keys.len();
    let mut j = start + 1;
    while j + RUN_CHUNK <= n {
        let w = &keys[j - 1..j + RUN_CHUNK];
        let all = (0..RUN_CHUNK).fold(true, |ok, t| ok & in_order(w[t], w[t + 1]));
        if !all {
            break;
        }
        j += RUN_CHUNK;
    }
    while j < n && in_order(keys[j - 1], keys[j]) {
        j += 1;
    }
    j
}

/// Neighbouring pairs [`run_end`] compares at a time.
const RUN_CHUNK: usize = 8;
