//! 128-bit keys (`u128`, `i128`; Arrow's `Decimal128` and `FixedSizeBinary(16)`): a stable
//! most-significant-digit radix sort over the keys' unsigned images, 8 bits a digit, that
//! only passes over the bytes that vary.
//!
//! Decimals use few of their 128 bits: a column of prices in cents fits in 5 bytes, and the
//! signed map (the top bit flipped) turns the sign extension of the others into two values of
//! the top bytes. So every node of the recursion first knows which bits vary among its keys
//! (the OR and the AND of them, computed by the parent's scatter for each bucket at no extra
//! read) and sorts on the highest varying byte only: the top level of mixed-sign decimals
//! splits on the sign, and each half starts again at its own highest varying byte. A bucket
//! whose keys are all equal is done; runs of at most [`INSERTION_MAX_LEN`] keys are sorted by
//! insertion. Random keys take two scatters at 2^20 and buckets of about 16 keys.
//!
//! Keys that span at most 64 bits (decimals of up to 18 digits of either sign, ids,
//! timestamps) skip all that: they sort as `u64`s by the 64-bit radix sort ([`Narrow`]).
//!
//! Every step is stable, so values (pairs, argsort's indices, records) keep the input order of
//! equal keys. Memory: one scratch copy of the keys and of the values (`16n` bytes plus
//! `size_of::<V>() * n`), freed before the call returns.

use rayon::prelude::*;

use super::key::KeyMap;
use super::radix::insertion;
use super::records::Order;

/// Runs up to this length are insertion-sorted instead of scattered: a scatter clears and
/// scans a 256-entry histogram and two 256-entry accumulators, which costs more than the
/// quadratic moves of a few dozen keys.
const INSERTION_MAX_LEN: usize = 48;

/// Inputs from this length on sort the buckets of their first scatter on all rayon threads.
const PARALLEL_MIN_LEN: usize = 1 << 16;

/// The byte whose digit a node scatters on: the highest one in which its keys differ.
#[inline(always)]
fn top_byte(diff: u128) -> u32 {
    (127 - diff.leading_zeros()) / 8
}

/// The OR and the AND of every key: their XOR has a bit set where the keys differ.
fn spread(keys: &[u128]) -> u128 {
    let (or, and) = keys
        .iter()
        .fold((0u128, u128::MAX), |(o, a), &k| (o | k, a & k));
    or ^ and
}

/// Sorts `keys` ascending by `map` (descending if `descending`) and moves `values[i]` with
/// `keys[i]`; stable. The caller has checked the lengths; keys alone pass values of `()`.
pub(crate) fn sort_pairs<V: Copy + Send + Sync>(
    keys: &mut [u128],
    values: &mut [V],
    map: KeyMap,
    descending: bool,
) {
    debug_assert_eq!(keys.len(), values.len());
    if keys.len() < 2 {
        return;
    }
    let flip = if descending { u128::MAX } else { 0 };
    keys.iter_mut().for_each(|k| *k = map.encode128(*k) ^ flip);
    sort_images(keys, values);
    keys.iter_mut().for_each(|k| *k = map.decode128(*k ^ flip));
}

/// Sorts `keys` (ascending by `map`, or descending).
pub(crate) fn sort(keys: &mut [u128], map: KeyMap, descending: bool) {
    sort_pairs(keys, &mut vec![(); keys.len()], map, descending);
}

/// The stable sorting order of keys whose unmapped bits `images` holds: `u32` indices while
/// they fit, else `u64`.
pub(crate) fn order(mut images: Vec<u128>, map: KeyMap) -> Order {
    let n = images.len();
    if u32::try_from(n).is_ok() {
        let mut order = super::records::iota32(n);
        sort_pairs(&mut images, &mut order, map, false);
        Order::U32(order)
    } else {
        let mut order: Vec<u64> = (0..n as u64).collect();
        sort_pairs(&mut images, &mut order, map, false);
        Order::U64(order)
    }
}

/// Puts the `n`-th smallest key by `map` at `keys[n]`, smaller or equal keys before it and
/// greater or equal ones after (std's introselect on the images: linear time).
pub(crate) fn select_nth(keys: &mut [u128], n: usize, map: KeyMap) {
    keys.iter_mut().for_each(|k| *k = map.encode128(*k));
    keys.select_nth_unstable(n);
    keys.iter_mut().for_each(|k| *k = map.decode128(*k));
}

/// Puts the `k` smallest keys by `map`, ascending, in `keys[..k]`: a select, then the radix
/// sort of the prefix alone.
pub(crate) fn partial_sort(keys: &mut [u128], k: usize, map: KeyMap) {
    if k == 0 {
        return;
    }
    if k < keys.len() {
        select_nth(keys, k - 1, map);
    }
    sort(&mut keys[..k], map, false);
}

/// Sorts unsigned images ascending with their values; stable.
fn sort_images<V: Copy + Send + Sync>(keys: &mut [u128], values: &mut [V]) {
    let n = keys.len();
    if n <= INSERTION_MAX_LEN {
        insertion(keys, values);
        return;
    }
    if keys.windows(2).all(|w| w[0] <= w[1]) {
        return;
    }
    let diff = spread(keys);
    if let Some(narrow) = Narrow::of(keys, diff) {
        sort_narrow(keys, values, narrow);
        return;
    }
    let mut scratch_k = vec![0u128; n];
    let mut scratch_v = values.to_vec();
    node(
        keys,
        values,
        &mut scratch_k,
        &mut scratch_v,
        diff,
        true,
        n >= PARALLEL_MIN_LEN && rayon::current_num_threads() > 1,
    );
}

/// How keys that span no more than 64 bits become `u64`s and back, their order kept, so that
/// they sort by the engine of 64-bit keys: Arrow decimals of up to 18 digits of either sign,
/// prices, ids and timestamps widened to 128 bits all do.
#[derive(Clone, Copy, Debug)]
enum Narrow {
    /// `k - min`: every key within 2^64 of the smallest.
    Offset(u128),
    /// The 64 bits from `shift`: the bits outside them are `fixed`, the same in every key
    /// (a few distinct high bits, as `FixedSizeBinary` prefixes have).
    Window { shift: u32, fixed: u128 },
}

impl Narrow {
    /// The narrowing of `keys`, whose differing bits `diff` marks (not zero), if one fits.
    fn of(keys: &[u128], diff: u128) -> Option<Narrow> {
        let (min, max) = keys
            .iter()
            .fold((u128::MAX, 0), |(lo, hi), &k| (lo.min(k), hi.max(k)));
        if max - min <= u128::from(u64::MAX) {
            return Some(Narrow::Offset(min));
        }
        let shift = (127 - diff.leading_zeros()).saturating_sub(63);
        (diff.trailing_zeros() >= shift).then(|| Narrow::Window {
            shift,
            fixed: keys[0] & !(u128::from(u64::MAX) << shift),
        })
    }

    #[inline(always)]
    fn down(self, k: u128) -> u64 {
        match self {
            Narrow::Offset(min) => (k - min) as u64,
            Narrow::Window { shift, .. } => (k >> shift) as u64,
        }
    }

    #[inline(always)]
    fn up(self, w: u64) -> u128 {
        match self {
            Narrow::Offset(min) => min + u128::from(w),
            Narrow::Window { shift, fixed } => fixed | u128::from(w) << shift,
        }
    }
}

/// Sorts images as their narrowed `u64`s ([`Narrow`]): keys alone by the 64-bit radix sort,
/// with values by its stable pair sort.
fn sort_narrow<V: Copy + Send + Sync>(keys: &mut [u128], values: &mut [V], narrow: Narrow) {
    let mut words: Vec<u64> = keys.iter().map(|&k| narrow.down(k)).collect();
    if std::mem::size_of::<V>() == 0 {
        // No values to keep in order: equal keys are the same bits.
        super::radix::sort64(&mut words, KeyMap::Unsigned);
    } else {
        super::radix::sort_pairs64_values(&mut words, values, KeyMap::Unsigned);
    }
    for (k, &w) in keys.iter_mut().zip(&words) {
        *k = narrow.up(w);
    }
}

/// Sorts the keys in `src` (whose differing bits `diff` marks, never zero) with their values,
/// using `dst` as scratch; the result ends in `src` if `into_src`, else in `dst`.
fn node<V: Copy + Send + Sync>(
    src_k: &mut [u128],
    src_v: &mut [V],
    dst_k: &mut [u128],
    dst_v: &mut [V],
    diff: u128,
    into_src: bool,
    parallel: bool,
) {
    let shift = top_byte(diff) * 8;
    let digit = |k: u128| (k >> shift) as u8 as usize;
    let mut counts = [0usize; 256];
    for &k in src_k.iter() {
        counts[digit(k)] += 1;
    }
    let mut starts = [0usize; 256];
    let mut sum = 0;
    for (s, &c) in starts.iter_mut().zip(&counts) {
        *s = sum;
        sum += c;
    }
    // Each bucket's OR and AND, so that its own sort knows its varying bytes without a read.
    let mut or = [0u128; 256];
    let mut and = [u128::MAX; 256];
    let mut next = starts;
    for (&k, &v) in src_k.iter().zip(src_v.iter()) {
        let d = digit(k);
        let at = next[d];
        dst_k[at] = k;
        dst_v[at] = v;
        next[d] = at + 1;
        or[d] |= k;
        and[d] &= k;
    }
    // The buckets as disjoint slices of both buffers, with their spreads.
    let mut buckets = Vec::with_capacity(256);
    let (mut sk, mut sv, mut dk, mut dv) = (src_k, src_v, dst_k, dst_v);
    for ((&len, &o), &a) in counts.iter().zip(&or).zip(&and) {
        if len == 0 {
            continue;
        }
        let (bsk, rsk) = std::mem::take(&mut sk).split_at_mut(len);
        let (bsv, rsv) = std::mem::take(&mut sv).split_at_mut(len);
        let (bdk, rdk) = std::mem::take(&mut dk).split_at_mut(len);
        let (bdv, rdv) = std::mem::take(&mut dv).split_at_mut(len);
        (sk, sv, dk, dv) = (rsk, rsv, rdk, rdv);
        buckets.push((bsk, bsv, bdk, bdv, o ^ a));
    }
    // The bucket's keys are in `dst` now; its result goes back to `src` if `into_src`.
    let finish =
        |(bsk, bsv, bdk, bdv, spread): (&mut [u128], &mut [V], &mut [u128], &mut [V], u128)| {
            if spread == 0 {
                // All keys equal: already in input order.
                if into_src {
                    bsk.copy_from_slice(bdk);
                    bsv.copy_from_slice(bdv);
                }
            } else if bdk.len() <= INSERTION_MAX_LEN {
                insertion(bdk, bdv);
                if into_src {
                    bsk.copy_from_slice(bdk);
                    bsv.copy_from_slice(bdv);
                }
            } else {
                node(bdk, bdv, bsk, bsv, spread, !into_src, false);
            }
        };
    if parallel {
        buckets.into_par_iter().for_each(finish);
    } else {
        buckets.into_iter().for_each(finish);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Test data from `seed`.
    pub(crate) fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        move || crate::keys::network::tests::rng(&mut s)
    }

    /// Keys that exercise every shape: random 128-bit, decimals of both signs (few varying
    /// bytes), few distinct, a shared high half.
    fn inputs(n: usize, seed: u64) -> Vec<Vec<i128>> {
        let mut r = rng(seed);
        let random: Vec<i128> = (0..n)
            .map(|_| ((u128::from(r()) << 64) | u128::from(r())) as i128)
            .collect();
        let decimals: Vec<i128> = (0..n)
            .map(|_| (r() % 2_000_000_000) as i128 - 1_000_000_000)
            .collect();
        let few: Vec<i128> = (0..n).map(|_| (r() % 3) as i128 * (1 << 100)).collect();
        let high: Vec<i128> = (0..n)
            .map(|_| (7i128 << 90) | (r() % 1000) as i128)
            .collect();
        vec![random, decimals, few, high]
    }

    #[test]
    fn sorts_as_std_both_ways_and_pairs_are_stable() {
        for n in [0, 1, 2, 47, 48, 49, 300, 5000, 70_000] {
            for (case, keys) in inputs(n, n as u64).into_iter().enumerate() {
                let mut expected = keys.clone();
                expected.sort();
                let mut got: Vec<u128> = keys.iter().map(|&k| k as u128).collect();
                sort(&mut got, KeyMap::Signed, false);
                assert!(
                    got.iter().map(|&k| k as i128).eq(expected.iter().copied()),
                    "case {case} n={n}"
                );
                let mut got: Vec<u128> = keys.iter().map(|&k| k as u128).collect();
                sort(&mut got, KeyMap::Signed, true);
                assert!(
                    got.iter()
                        .map(|&k| k as i128)
                        .eq(expected.iter().rev().copied()),
                    "case {case} n={n} descending"
                );
                let mut stable: Vec<(i128, u32)> = keys.iter().copied().zip(0..).collect();
                stable.sort_by_key(|p| p.0);
                let images: Vec<u128> = keys.iter().map(|&k| k as u128).collect();
                let Order::U32(order) = order(images, KeyMap::Signed) else {
                    panic!("u32 order expected")
                };
                assert!(
                    order.iter().copied().eq(stable.iter().map(|p| p.1)),
                    "case {case} n={n}: order not stable"
                );
            }
        }
    }

    #[test]
    fn select_and_partial_sort_agree_with_std() {
        for (case, keys) in inputs(3000, 9).into_iter().enumerate() {
            let mut expected = keys.clone();
            expected.sort();
            for at in [0, 1, 1500, 2999] {
                let mut got: Vec<u128> = keys.iter().map(|&k| k as u128).collect();
                select_nth(&mut got, at, KeyMap::Signed);
                assert_eq!(got[at] as i128, expected[at], "case {case} select {at}");
                let mut got: Vec<u128> = keys.iter().map(|&k| k as u128).collect();
                partial_sort(&mut got, at, KeyMap::Signed);
                assert!(
                    got[..at]
                        .iter()
                        .map(|&k| k as i128)
                        .eq(expected[..at].iter().copied()),
                    "case {case} partial {at}"
                );
            }
        }
    }
}
