//! Selection and partial sort on the vectorised partition of [`network`](super::network):
//! quickselect keeps only the side that holds the wanted position, so `select_nth` costs
//! about `2n` key visits instead of a sort's `n log n`, and `partial_sort` selects the `k`
//! smallest keys and then sorts only those.
//!
//! Pivots are the median of the same 16-key sample the quicksort takes; when a range has
//! gone through `2 * log2(n)` partitions and is still larger than a block (pivots chosen
//! badly on purpose), it is sorted by radix, which bounds the worst case at `O(n log n)`
//! partition work plus one `O(n)` radix sort.
//!
//! The AVX-512 and AVX2 key tokens instantiate [`select_nth`] and [`partial_sort`] over
//! their vectors; [`select_nth32`] and the other `u32`/`u64` entry points below serve every
//! other CPU backend, portably: the keys are mapped to their unsigned images once, std's
//! introselect (`select_nth_unstable`, median-of-medians fallback, linear in the worst case)
//! places the n-th key, and a partial sort then sorts only the prefix with the crate's radix
//! sort (std's sort for short prefixes). The callers have checked `n < len` and `k <= len`.

use super::key::KeyMap;
use super::network::{
    block_max, partition, partition_le, pick_pivot, quicksort, sort_block, KeyVector, VecKey,
};
use super::radix;

/// Reorders `keys` so that `keys[n]` is the key a full sort puts there, every key before it
/// is at most it and every key after it at least it (`n < keys.len()`).
///
/// # Safety
/// The CPU supports `V`'s instructions.
// Only the x86-64 key tokens instantiate it; the portable backend selects through std.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn select_nth<V: KeyVector>(keys: &mut [V::Key], n: usize)
where
    V::Key: VecKey,
{
    debug_assert!(n < keys.len());
    let block = block_max::<V>();
    let budget = 2 * (usize::BITS - keys.len().leading_zeros()) as usize;
    let (mut start, mut end) = (0, keys.len());
    // A two-pivot step that left the whole range between its pivots (few distinct keys)
    // hands the next step to the single pivot, which splits off the keys equal to it.
    let mut bracket = true;
    for depth in 0.. {
        let range = &mut keys[start..end];
        let len = range.len();
        if len <= block {
            // SAFETY: caller's guarantee; the range fits one block.
            unsafe { sort_block::<V>(range) };
            return;
        }
        if depth >= budget {
            V::Key::radix_sort(range);
            return;
        }
        let at = n - start;
        if bracket && len >= BRACKET_MIN_LEN {
            // SAFETY: caller's guarantee; `at < len`.
            let (from, to, settled) = unsafe { bracket_step::<V>(range, at) };
            if settled {
                return;
            }
            bracket = (from, to) != (0, len);
            end = start + to;
            start += from;
            continue;
        }
        bracket = true;
        // SAFETY: caller's guarantee; `len > block`.
        let pivot = unsafe { pick_pivot::<V>(range) };
        // SAFETY: caller's guarantee.
        let mut mid = unsafe { partition::<V>(range, pivot) };
        let mut high = mid;
        if mid == 0 {
            // The pivot is the range's minimum: the keys equal to it go first, and they are
            // in their final places.
            if pivot == V::MAX {
                return;
            }
            // SAFETY: caller's guarantee; `pivot < MAX`.
            high = unsafe { partition_le::<V>(range, pivot) };
            mid = 0;
        }
        if at < mid {
            end = start + mid;
        } else if at < high {
            return;
        } else {
            start += high;
        }
    }
}

/// Ranges of at least this many keys take [`bracket_step`]; shorter ones a single pivot,
/// whose sample costs less than the partition work the bracket would save.
const BRACKET_MIN_LEN: usize = 1 << 13;

/// One Floyd-Rivest step: two pivots drawn from a sorted sample of about `2 sqrt(len)` keys,
/// `2.5` standard deviations of the sample's rank either side of `at`, and two partitions
/// (the side away from `at` first, so the second touches only what the first kept). Returns
/// the range `from..to` that holds position `at` after them: the keys between the pivots
/// (a few percent of `len`) unless the sample misled, when it is the side beyond a pivot.
/// A single median pivot leaves `at` near the edge of the larger half and takes about `2.2n`
/// key visits at the middle rank; the bracket takes `1.5n` plus the band.
///
/// # Safety
/// The CPU supports `V`'s instructions; `at < keys.len()` and `keys.len() > block_max::<V>()`.
#[inline(always)]
unsafe fn bracket_step<V: KeyVector>(keys: &mut [V::Key], at: usize) -> (usize, usize, bool)
where
    V::Key: VecKey,
{
    let len = keys.len();
    let samples = (2 * len.isqrt()).clamp(64, 1 << 14);
    let stride = len / samples;
    let mut sample: Vec<V::Key> = (0..samples)
        .map(|i| keys[i * stride + stride / 2])
        .collect();
    // SAFETY: caller's guarantee.
    unsafe { quicksort::<V>(&mut sample) };
    let gap = 5 * samples.isqrt() / 4 + 1;
    let rank = at * samples / len;
    let lo = sample[rank.saturating_sub(gap)];
    let hi = sample[(rank + gap).min(samples - 1)];
    // Keys below `lo` go first, then those in `lo..=hi`, then those above `hi`. (Plain
    // calls, not closures: a closure is compiled without `V`'s target features, and the
    // partition's intrinsics were then called out of line at a tenth of the speed.)
    if at < len / 2 {
        // SAFETY: caller's guarantee.
        let to = unsafe { up_to::<V>(keys, hi) };
        if at >= to {
            return (to, len, false);
        }
        // SAFETY: caller's guarantee.
        let from = unsafe { partition::<V>(&mut keys[..to], lo) };
        if at < from {
            return (0, from, false);
        }
        (from, to, lo == hi)
    } else {
        // SAFETY: caller's guarantee.
        let from = unsafe { partition::<V>(keys, lo) };
        if at < from {
            return (0, from, false);
        }
        // SAFETY: caller's guarantee.
        let to = from + unsafe { up_to::<V>(&mut keys[from..], hi) };
        if at >= to {
            return (to, len, false);
        }
        (from, to, lo == hi)
    }
}

/// Partitions so that `keys[..b]` holds the keys at most `pivot`; returns `b`.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn up_to<V: KeyVector>(keys: &mut [V::Key], pivot: V::Key) -> usize
where
    V::Key: VecKey,
{
    if pivot == V::MAX {
        keys.len()
    } else {
        // SAFETY: caller's guarantee; `pivot < MAX`.
        unsafe { partition_le::<V>(keys, pivot) }
    }
}

/// Puts the `k` smallest keys, sorted, in `keys[..k]` (`k <= keys.len()`); the order of the
/// others is unspecified.
///
/// # Safety
/// The CPU supports `V`'s instructions.
// Only the x86-64 key tokens instantiate it; the portable backend selects through std.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn partial_sort<V: KeyVector>(keys: &mut [V::Key], k: usize)
where
    V::Key: VecKey,
{
    debug_assert!(k <= keys.len());
    // SAFETY: caller's guarantee, for both calls; `k < len` for the selection.
    unsafe {
        if k < keys.len() {
            select_nth::<V>(keys, k);
        }
        quicksort::<V>(&mut keys[..k]);
    }
}

/// Prefixes of at least this many keys are radix-sorted, shorter ones by std's sort: radix
/// beats comparison sorts from a few hundred keys (`radix::INSERTION_MAX_LEN` and the
/// backend crossovers near 800 keys), and a prefix is usually short.
const PREFIX_RADIX_MIN_LEN: usize = 1 << 10;

/// Puts the `n`-th smallest 32-bit key (by `map.encode32`) at `keys[n]`, smaller or equal
/// keys before it and greater or equal ones after it.
pub(crate) fn select_nth32(keys: &mut [u32], n: usize, map: KeyMap) {
    debug_assert!(n < keys.len());
    map.encode_slice32(keys);
    keys.select_nth_unstable(n);
    map.decode_slice32(keys);
}

/// [`select_nth32`] for 64-bit keys.
pub(crate) fn select_nth64(keys: &mut [u64], n: usize, map: KeyMap) {
    debug_assert!(n < keys.len());
    map.encode_slice64(keys);
    keys.select_nth_unstable(n);
    map.decode_slice64(keys);
}

/// Puts the `k` smallest 32-bit keys, ascending, in `keys[..k]`; the rest in any order.
pub(crate) fn partial_sort32(keys: &mut [u32], k: usize, map: KeyMap) {
    debug_assert!(k <= keys.len());
    if k == 0 {
        return;
    }
    if k == keys.len() {
        radix::sort32(keys, map);
        return;
    }
    map.encode_slice32(keys);
    keys.select_nth_unstable(k - 1);
    let prefix = &mut keys[..k - 1];
    if prefix.len() >= PREFIX_RADIX_MIN_LEN {
        radix::sort32(prefix, KeyMap::Unsigned);
    } else {
        prefix.sort_unstable();
    }
    map.decode_slice32(keys);
}

/// [`partial_sort32`] for 64-bit keys.
pub(crate) fn partial_sort64(keys: &mut [u64], k: usize, map: KeyMap) {
    debug_assert!(k <= keys.len());
    if k == 0 {
        return;
    }
    if k == keys.len() {
        radix::sort64(keys, map);
        return;
    }
    map.encode_slice64(keys);
    keys.select_nth_unstable(k - 1);
    let prefix = &mut keys[..k - 1];
    if prefix.len() >= PREFIX_RADIX_MIN_LEN {
        radix::sort64(prefix, KeyMap::Unsigned);
    } else {
        prefix.sort_unstable();
    }
    map.decode_slice64(keys);
}

/// Checks shared by the instantiations' unit tests: selection and partial sort against
/// std's `select_nth_unstable` and `sort_unstable` on random, sorted, few-distinct and
/// adversarial inputs, with `n` and `k` at both ends and in the middle.
#[cfg(test)]
pub(crate) mod tests {
    use crate::keys::key::KeyMap;
    use crate::keys::network::tests::{inputs, rng};

    /// Positions to try for length `len`.
    fn positions(len: usize, s: &mut u64) -> Vec<usize> {
        let mut p = vec![0, len / 2, len - 1, len / 3, (rng(s) as usize) % len];
        p.retain(|&x| x < len);
        p
    }

    /// `select32`/`select64` take `(keys, n, map)`, `partial32`/`partial64` `(keys, k, map)`.
    pub(crate) fn check_select(
        select32: impl Fn(&mut [u32], usize, KeyMap),
        select64: impl Fn(&mut [u64], usize, KeyMap),
        partial32: impl Fn(&mut [u32], usize, KeyMap),
        partial64: impl Fn(&mut [u64], usize, KeyMap),
    ) {
        let mut s = 77u64;
        for len in [1, 2, 17, 255, 256, 257, 1000, 4097, 70_000] {
            for (p, input) in inputs(len, len as u64).into_iter().enumerate() {
                let wide: Vec<u64> = input;
                let narrow: Vec<u32> = wide.iter().map(|&x| (x ^ (x >> 32)) as u32).collect();
                let mut sorted32 = narrow.clone();
                sorted32.sort_unstable();
                let mut sorted64 = wide.clone();
                sorted64.sort_unstable();
                for n in positions(len, &mut s) {
                    let mut a = narrow.clone();
                    select32(&mut a, n, KeyMap::Unsigned);
                    let mut want = narrow.clone();
                    want.select_nth_unstable(n);
                    assert_eq!(a[n], want[n], "u32 select pattern {p} len={len} n={n}");
                    assert!(a[..n].iter().all(|&x| x <= a[n]) && a[n..].iter().all(|&x| x >= a[n]));
                    a.sort_unstable();
                    assert_eq!(a, sorted32, "u32 select lost keys");

                    let mut b = wide.clone();
                    select64(&mut b, n, KeyMap::Unsigned);
                    assert_eq!(b[n], sorted64[n], "u64 select pattern {p} len={len} n={n}");
                    assert!(b[..n].iter().all(|&x| x <= b[n]) && b[n..].iter().all(|&x| x >= b[n]));
                    b.sort_unstable();
                    assert_eq!(b, sorted64, "u64 select lost keys");
                }
                for k in positions(len, &mut s).into_iter().chain([len]) {
                    let mut a = narrow.clone();
                    partial32(&mut a, k, KeyMap::Unsigned);
                    assert_eq!(
                        a[..k],
                        sorted32[..k],
                        "u32 partial pattern {p} len={len} k={k}"
                    );
                    a.sort_unstable();
                    assert_eq!(a, sorted32, "u32 partial lost keys");

                    let mut b = wide.clone();
                    partial64(&mut b, k, KeyMap::Unsigned);
                    assert_eq!(
                        b[..k],
                        sorted64[..k],
                        "u64 partial pattern {p} len={len} k={k}"
                    );
                    b.sort_unstable();
                    assert_eq!(b, sorted64, "u64 partial lost keys");
                }
            }
        }
        // Signed and float keys through their maps.
        let mut f: Vec<u32> = (0..5000)
            .map(|i| ((i as f32 - 2500.0) * 0.37).to_bits())
            .collect();
        let mut want: Vec<f32> = f.iter().map(|&b| f32::from_bits(b)).collect();
        want.sort_by(f32::total_cmp);
        partial32(&mut f, 100, KeyMap::Float);
        let got: Vec<f32> = f[..100].iter().map(|&b| f32::from_bits(b)).collect();
        assert_eq!(got, want[..100]);
        let mut i: Vec<u64> = (0..5000)
            .map(|i| (i as i64 - 2500).wrapping_mul(7919) as u64)
            .collect();
        let mut want: Vec<i64> = i.iter().map(|&x| x as i64).collect();
        want.sort_unstable();
        select64(&mut i, 1234, KeyMap::Signed);
        assert_eq!(i[1234] as i64, want[1234]);
    }
}

#[cfg(test)]
mod portable_tests {
    use super::*;

    #[test]
    fn portable_entry_points_pass_the_shared_checks() {
        super::tests::check_select(select_nth32, select_nth64, partial_sort32, partial_sort64);
    }

    #[test]
    fn select_and_partial_sort_match_a_full_sort() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for len in [1usize, 2, 3, 10, 100, 1500, 5000] {
            let keys: Vec<u64> = (0..len)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s % 1000
                })
                .collect();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            for at in [0, len / 3, len - 1, len] {
                let mut k = keys.clone();
                partial_sort64(&mut k, at, KeyMap::Unsigned);
                assert_eq!(k[..at], sorted[..at], "len {len} k {at}");
                let mut w: Vec<u32> = keys.iter().map(|&x| x as u32).collect();
                partial_sort32(&mut w, at, KeyMap::Signed);
                assert!(w[..at]
                    .iter()
                    .zip(&sorted)
                    .all(|(a, b)| u64::from(*a) == *b));
                if at < len {
                    let mut k = keys.clone();
                    select_nth64(&mut k, at, KeyMap::Unsigned);
                    assert_eq!(k[at], sorted[at]);
                    assert!(k[..at].iter().all(|&x| x <= k[at]));
                    assert!(k[at..].iter().all(|&x| x >= k[at]));
                    let mut w: Vec<u32> = keys.iter().map(|&x| x as u32).collect();
                    select_nth32(&mut w, at, KeyMap::Float);
                    assert_eq!(u64::from(w[at]), sorted[at]);
                }
            }
        }
    }
}
