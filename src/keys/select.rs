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
use super::sampling::sample_position;

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

/// `u64` selects take the one pass ([`one_pass`]) from this many keys; below, two
/// partitions. Ratio to `select_nth_unstable` at n/2, one thread, one pass / two partitions,
/// two rounds each in one run (`sortnet bench --no-profile --workload select64`): 16-core
/// Intel Xeon host 2^16 2.59-2.60 / 3.23-3.44x, 2^20 2.43-2.48 / 2.95-3.03x, 2^24 2.43-2.45
/// / 2.03-2.11x (the pass over 128 MiB is bound by memory, where reading each key once
/// counts); 2-core AMD EPYC Zen 4 2^20 1.89-2.41 / 2.23-2.30x, 2^24 2.01-2.05 / 1.28-1.29x.
/// Between 2^20 and 2^24 it was not measured: 2^22 keys (32 MiB) is past both machines'
/// L2 and at the AMD machine's L3. `u32` takes the one pass at every size (Xeon 4.70 / 5.21
/// / 3.04-3.38x against 4.69-4.78 / 4.80-4.83 / 2.62-2.87x).
#[cfg(target_arch = "x86_64")]
const ONE_PASS_MIN_LEN_64: usize = 1 << 22;

/// One Floyd-Rivest step: two pivots drawn from a sorted sample of about `2 sqrt(len)` keys,
/// `2.5` standard deviations of the sample's rank either side of `at`, and a three-way split
/// around them: one pass ([`one_pass`]) on AVX-512, else two partitions (the side away from
/// `at` first, so the second touches only what the first kept). Returns the range
/// `from..to` that holds position `at` after them: the keys between the pivots (a few
/// percent of `len`) unless the sample misled, when it is the side beyond a pivot. A single
/// median pivot leaves `at` near the edge of the larger half and takes about `2.2n` key
/// visits at the middle rank; the two partitions take `1.5n` plus the band, the one pass `n`.
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
    let mut sample: Vec<V::Key> = (0..samples)
        .map(|i| keys[sample_position(len, samples, i)])
        .collect();
    // SAFETY: caller's guarantee.
    unsafe { quicksort::<V>(&mut sample) };
    let gap = 5 * samples.isqrt() / 4 + 1;
    let rank = at * samples / len;
    let lo = sample[rank.saturating_sub(gap)];
    let hi = sample[(rank + gap).min(samples - 1)];
    let room = band_room(len, samples, gap);
    // SAFETY: caller's guarantee.
    if let Some((from, to)) = unsafe { one_pass::<V>(keys, lo, hi, room) } {
        return if at < from {
            (0, from, false)
        } else if at >= to {
            (to, len, false)
        } else {
            (from, to, lo == hi)
        };
    }
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

/// The band a Floyd-Rivest step expects between its pivots, for `len` keys and a sample
/// of `samples` keys with `2 * gap + 1` of them in the band, and the room [`one_pass`]
/// gives it before it gives up: twice the expected count and a few thousand keys.
fn band_room(len: usize, samples: usize, gap: usize) -> usize {
    2 * (len / samples) * (2 * gap + 1) + 4096
}

/// The three-way split of [`bracket_step`] in one pass over the keys, where the CPU and the
/// vector have one: keys below `lo` to the front, keys above `hi` to the back, and the
/// keys in `lo..=hi` through a side buffer into the middle. Returns the band `from..to`, or
/// `None` (keys permuted, nothing else promised) when there is no such kernel for `V` or the
/// band outgrew `room` keys (a misleading sample, many keys equal to a pivot); the caller
/// then takes two partitions.
///
/// Two partitions read and write `1.5n` keys; this pass reads and writes each key once,
/// plus the band twice (a few percent). From 2^20 64-bit keys the pass is bound by memory
/// (BENCHMARKS.md, "Calls").
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
unsafe fn one_pass<V: KeyVector>(
    keys: &mut [V::Key],
    lo: V::Key,
    hi: V::Key,
    room: usize,
) -> Option<(usize, usize)> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::any::TypeId;
        // Only the AVX-512 token's vectors are 8 lanes of `u64` or 16 of `u32` (AVX2 holds
        // 4 and 8, the portable vectors 4 and 8 of `u32`), so the AVX2 backend keeps its
        // two partitions even on an AVX-512 CPU; the feature check makes the call sound
        // whatever `V` is.
        let avx512 = || {
            is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("popcnt")
                && is_x86_feature_detected!("bmi2")
        };
        let key = TypeId::of::<V::Key>();
        if V::LANES == 8
            && key == TypeId::of::<u64>()
            && keys.len() >= ONE_PASS_MIN_LEN_64
            && avx512()
        {
            // SAFETY: `V::Key` is `u64` (same `TypeId`), so the slice and the pivots are
            // `u64`s viewed as themselves; the CPU has the kernel's features (checked).
            return unsafe {
                let keys = &mut *(keys as *mut [V::Key] as *mut [u64]);
                let (lo, hi) = (
                    *(&lo as *const V::Key).cast::<u64>(),
                    *(&hi as *const V::Key).cast::<u64>(),
                );
                split3_u64(keys, lo, hi, room)
            };
        }
        if V::LANES == 16 && key == TypeId::of::<u32>() && avx512() {
            // SAFETY: as above, with `u32`.
            return unsafe {
                let keys = &mut *(keys as *mut [V::Key] as *mut [u32]);
                let (lo, hi) = (
                    *(&lo as *const V::Key).cast::<u32>(),
                    *(&hi as *const V::Key).cast::<u32>(),
                );
                split3_u32(keys, lo, hi, room)
            };
        }
    }
    None
}

/// `unsafe fn $name(keys: &mut [$k], lo, hi, room) -> Option<(usize, usize)>`: the AVX-512
/// kernel of [`one_pass`] for unsigned keys of type `$k`, `$lanes` to a vector.
///
/// The loop is the in-place scheme of `network::partition_vectors`: `U` vectors read ahead
/// from each end, then batches of `U` from the side with less room, so that a side never
/// writes over keys it has not read. Each vector is split by two compares; the keys below
/// `lo` are compressed to the front and those above `hi` to the back with masked stores
/// (exactly their lanes: the band's lanes leave holes that the band fills at the end), and
/// the band's keys to the side buffer. Register compresses with plain or masked stores, not
/// compressing stores (microcoded on Zen 4).
#[cfg(target_arch = "x86_64")]
macro_rules! split3_kernel {
    ($name:ident, $k:ty, $lanes:expr, $mask:ty, $splat:ident, $lt:ident, $gt:ident,
     $compress:ident, $store_mask:ident) => {
        #[target_feature(enable = "avx512f,popcnt,bmi2")]
        unsafe fn $name(keys: &mut [$k], lo: $k, hi: $k, room: usize) -> Option<(usize, usize)> {
            use std::arch::x86_64::*;
            const U: usize = 8;
            const LANES: usize = $lanes;
            let step = U * LANES;
            let n = keys.len();
            let m = n - n % LANES;
            if m < 2 * step {
                return None;
            }
            // Room for `room` keys when a batch starts, the batch, the last partial batch
            // and the read-ahead, and one whole vector store past the end.
            let mut band: Vec<$k> = Vec::with_capacity(room + 4 * step + LANES);
            let bp = band.as_mut_ptr();
            let p = keys.as_mut_ptr();
            let (mut l_write, mut r_write) = (0usize, m);
            // SAFETY: every read is of `keys[..m]`, each key read once; every write to
            // `keys` goes to a slot whose key was read before (`l_write..l_read` and
            // `r_read..r_write`): a vector read from a side frees `LANES` slots there and
            // its split takes `ca + cc <= LANES` of them, and with `2 * step + nb` free
            // slots before each batch (the read-ahead and the band), reading the side with
            // less room leaves at least `step` free on each side for the batch's at most
            // `step` keys per side (the argument of `partition_vectors`). Masked stores
            // write only their lanes. Band stores write `LANES` keys at `nb`, which stays
            // below `room + 4 * step` (checked before each batch; at most `step` per batch,
            // less than `step` in the tail loop and `2 * step` for the read-ahead).
            unsafe {
                let (vlo, vhi) = ($splat(lo as _), $splat(hi as _));
                let mut nb = 0usize;
                macro_rules! split {
                    ($v:expr) => {{
                        let v = $v;
                        let a: $mask = $lt(v, vlo);
                        let c: $mask = $gt(v, vhi);
                        let b: $mask = !(a | c);
                        let (ca, cc) = (a.count_ones() as usize, c.count_ones() as usize);
                        $store_mask(
                            p.add(l_write).cast(),
                            low_lanes(ca) as $mask,
                            $compress(a, v),
                        );
                        l_write += ca;
                        r_write -= cc;
                        $store_mask(
                            p.add(r_write).cast(),
                            low_lanes(cc) as $mask,
                            $compress(c, v),
                        );
                        _mm512_storeu_si512(bp.add(nb).cast(), $compress(b, v));
                        nb += LANES - ca - cc;
                    }};
                }
                let zero = _mm512_setzero_si512();
                let mut ahead = [zero; 2 * U];
                for i in 0..U {
                    ahead[i] = _mm512_loadu_si512(p.add(i * LANES).cast());
                    ahead[U + i] = _mm512_loadu_si512(p.add(m - step + i * LANES).cast());
                }
                let (mut l_read, mut r_read) = (step, m - step);
                while r_read - l_read >= step {
                    if nb > room {
                        // Give up: the read-ahead and the band go back into the free
                        // slots, which number exactly as many, and the keys are whole.
                        for (i, v) in ahead.iter().enumerate() {
                            _mm512_storeu_si512(bp.add(nb + i * LANES).cast(), *v);
                        }
                        let back = nb + 2 * step;
                        let left = l_read - l_write;
                        std::ptr::copy_nonoverlapping(bp, p.add(l_write), left);
                        std::ptr::copy_nonoverlapping(bp.add(left), p.add(r_read), back - left);
                        debug_assert_eq!(back - left, r_write - r_read);
                        return None;
                    }
                    let mut batch = [zero; U];
                    if l_read - l_write <= r_write - r_read {
                        for (i, v) in batch.iter_mut().enumerate() {
                            *v = _mm512_loadu_si512(p.add(l_read + i * LANES).cast());
                        }
                        l_read += step;
                    } else {
                        r_read -= step;
                        for (i, v) in batch.iter_mut().enumerate() {
                            *v = _mm512_loadu_si512(p.add(r_read + i * LANES).cast());
                        }
                    }
                    for v in batch {
                        split!(v);
                    }
                }
                while l_read < r_read {
                    let v = if l_read - l_write <= r_write - r_read {
                        l_read += LANES;
                        _mm512_loadu_si512(p.add(l_read - LANES).cast())
                    } else {
                        r_read -= LANES;
                        _mm512_loadu_si512(p.add(r_read).cast())
                    };
                    split!(v);
                }
                for v in ahead {
                    split!(v);
                }
                debug_assert_eq!(r_write - l_write, nb);
                std::ptr::copy_nonoverlapping(bp, p.add(l_write), nb);
            }
            Some(settle_tail(keys, m, lo, hi, l_write, r_write))
        }
    };
}

/// Low `c` bits set (`c <= 16`): the mask of a compressed vector's first `c` lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn low_lanes(c: usize) -> u32 {
    (1u32 << c) - 1
}

#[cfg(target_arch = "x86_64")]
split3_kernel!(
    split3_u64,
    u64,
    8,
    u8,
    _mm512_set1_epi64,
    _mm512_cmplt_epu64_mask,
    _mm512_cmpgt_epu64_mask,
    _mm512_maskz_compress_epi64,
    _mm512_mask_storeu_epi64
);

#[cfg(target_arch = "x86_64")]
split3_kernel!(
    split3_u32,
    u32,
    16,
    u16,
    _mm512_set1_epi32,
    _mm512_cmplt_epu32_mask,
    _mm512_cmpgt_epu32_mask,
    _mm512_maskz_compress_epi32,
    _mm512_mask_storeu_epi32
);

/// Adds the keys after the last whole vector, `keys[m..]`, to a split of `keys[..m]` into
/// below `lo` (`..from`), the band (`from..to`) and above `hi` (`to..m`): each one moves the
/// first key of the parts after its own to their ends (a Dutch-flag step). Returns the band.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn settle_tail<K: Copy + Ord>(
    keys: &mut [K],
    m: usize,
    lo: K,
    hi: K,
    mut from: usize,
    mut to: usize,
) -> (usize, usize) {
    for i in m..keys.len() {
        let x = keys[i];
        if x > hi {
            continue;
        }
        keys[i] = keys[to];
        if x < lo {
            keys[to] = keys[from];
            keys[from] = x;
            from += 1;
        } else {
            keys[to] = x;
        }
        to += 1;
    }
    (from, to)
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

#[cfg(all(test, target_arch = "x86_64"))]
mod one_pass_tests {
    use super::*;
    use crate::keys::network::tests::{inputs, rng};

    fn avx512() -> bool {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("bmi2")
    }

    /// A kernel of [`one_pass`]: `(keys, lo, hi, room) -> band`.
    type Kernel<K> = unsafe fn(&mut [K], K, K, usize) -> Option<(usize, usize)>;

    /// Runs one kernel on `keys` with the band `lo..=hi` and `room`, and checks the split
    /// (or, when it gave up, that the keys are only permuted).
    fn check<K: Copy + Ord + std::fmt::Debug>(
        keys: &[K],
        lo: K,
        hi: K,
        room: usize,
        kernel: Kernel<K>,
    ) -> bool {
        let mut got = keys.to_vec();
        // SAFETY: the callers run this only where the CPU has AVX-512F, POPCNT and BMI2.
        let split = unsafe { kernel(&mut got, lo, hi, room) };
        if let Some((from, to)) = split {
            assert!(got[..from].iter().all(|&x| x < lo), "below lo");
            assert!(got[from..to].iter().all(|&x| lo <= x && x <= hi), "band");
            assert!(got[to..].iter().all(|&x| x > hi), "above hi");
        }
        let (mut a, mut b) = (got, keys.to_vec());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "keys lost (split {split:?})");
        split.is_some()
    }

    #[test]
    fn splits_every_length_and_pattern_or_gives_the_keys_back() {
        if !avx512() {
            eprintln!("no AVX-512F here: skipped");
            return;
        }
        let mut s = 5u64;
        // Around the kernels' minimum (two batches of 8 vectors each side), odd tails, and
        // long enough for many batches.
        for len in [
            127, 128, 129, 255, 256, 257, 263, 1000, 4099, 20_000, 70_001,
        ] {
            for input in inputs(len, len as u64) {
                let narrow: Vec<u32> = input.iter().map(|&x| (x ^ (x >> 32)) as u32).collect();
                let (i, j) = ((rng(&mut s) as usize) % len, (rng(&mut s) as usize) % len);
                let (lo, hi) = (input[i].min(input[j]), input[i].max(input[j]));
                let (lo32, hi32) = (narrow[i].min(narrow[j]), narrow[i].max(narrow[j]));
                for room in [0, 100, len] {
                    let done = check(&input, lo, hi, room, split3_u64);
                    check(&narrow, lo32, hi32, room, split3_u32);
                    if room == len && len >= 256 {
                        assert!(done, "room for every key, yet no split (len {len})");
                    }
                }
                // Every key in the band (all equal keys with lo == hi look like this).
                let (min, max) = (*input.iter().min().unwrap(), *input.iter().max().unwrap());
                check(&input, min, max, 0, split3_u64);
                check(&input, min, max, len, split3_u64);
                check(&input, 0, u64::MAX, len, split3_u64);
                check(&narrow, 0, u32::MAX, len, split3_u32);
            }
        }
    }

    #[test]
    fn select_takes_the_other_path_when_the_band_overflows() {
        // Few distinct keys put a third of the keys in a band of one value (more than the
        // room), and all-equal keys put them all there: the pass gives up and the two
        // partitions finish. Checked through the AVX-512 backend's select.
        let Some(t) = crate::keys::x86_64::avx512::Avx512KeysToken::new() else {
            eprintln!("no AVX-512F here: skipped");
            return;
        };
        for len in [8191, 8192, 8193, 70_000, 1 << 18] {
            for distinct in [1u64, 2, 3, 17] {
                let keys: Vec<u64> = (0..len as u64).map(|i| (i * 7919) % distinct).collect();
                let mut sorted = keys.clone();
                sorted.sort_unstable();
                for n in [0, len / 3, len / 2, len - 1] {
                    let mut k = keys.clone();
                    t.select_nth64(&mut k, n, KeyMap::Unsigned);
                    assert_eq!(k[n], sorted[n], "len {len} distinct {distinct} n {n}");
                    assert!(k[..n].iter().all(|&x| x <= k[n]) && k[n..].iter().all(|&x| x >= k[n]));
                    let mut w: Vec<u32> = keys.iter().map(|&x| x as u32).collect();
                    t.select_nth32(&mut w, n, KeyMap::Unsigned);
                    assert_eq!(u64::from(w[n]), sorted[n]);
                    k.sort_unstable();
                    assert_eq!(k, sorted);
                }
            }
        }
    }
}
