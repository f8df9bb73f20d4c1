//! The least-significant-digit sort: on one thread, insertion sort for short runs, LSD passes
//! from the lowest digit that matters, and the finishing walk over runs of equal prefixes; on
//! all rayon threads, each pass one chunk per thread with its own histogram and offsets.

use rayon::prelude::*;

use super::count::*;
use super::digits::*;
use super::scatter::*;
use super::INSERTION_MAX_LEN;

/// Stable insertion sort of `buf[..len]` by encoded key. `encoded`: the keys are already
/// encoded (they are decoded on the way out either way).
///
/// # Safety
/// `buf` holds `len` initialised elements owned by the caller.
pub(super) unsafe fn small_sort<K: RadixKey, V: Copy, C: Codec<K>>(
    buf: Buf<K, V>,
    len: usize,
    encoded: bool,
) {
    // SAFETY: `len` initialised elements at each pointer (caller's contract).
    let (keys, vals) = unsafe {
        (
            std::slice::from_raw_parts_mut(buf.k, len),
            std::slice::from_raw_parts_mut(buf.v, len),
        )
    };
    if !encoded {
        keys.iter_mut().for_each(|k| *k = C::encode(*k));
    }
    insertion(keys, vals);
    keys.iter_mut().for_each(|k| *k = C::decode(*k));
}

/// Stable insertion sort of keys with their values, for short runs (here and in the
/// 128-bit sort).
pub(crate) fn insertion<K: Ord + Copy, V: Copy>(keys: &mut [K], vals: &mut [V]) {
    for i in 1..keys.len() {
        let (k, v) = (keys[i], vals[i]);
        let mut j = i;
        while j > 0 && keys[j - 1] > k {
            keys[j] = keys[j - 1];
            vals[j] = vals[j - 1];
            j -= 1;
        }
        keys[j] = k;
        vals[j] = v;
    }
}

/// LSD radix sort of the `len` elements at `src` on `W`-bit digits `0..digits`. Passes alternate
/// between `src` and `tmp`; the last one writes to `out`, where the decoded result ends.
/// `out` may be `src` (then the passes are arranged to end there, with a final copy when
/// their number is odd) or a third buffer. `encoded`: the keys at `src` are already
/// encoded. `stream` (for outputs far larger than the cache, with `out` a third buffer): the
/// last pass stays in cache and one streaming copy ([`copy_streaming`]) writes the result out.
/// Measured on the MSD route, 2^24 random keys on both cores, best of 7
/// (a best-of-N loop): the buckets' phase took 41 ms for `u32` with a write-combining
/// last pass and takes 30 ms this way; the whole sort 65 -> 53 ms (`u32`), 93 -> 75 ms
/// (`u64`, whose buckets also finish their runs in cache now).
///
/// # Safety
/// `src` holds `len` initialised elements; `tmp` and `out` have room for `len`; `src`,
/// `tmp` and `out` (unless it is `src`) do not overlap; all belong to the caller alone.
pub(super) unsafe fn lsd<K: RadixKey, V: Copy, C: Codec<K>, const W: u32>(
    src: Buf<K, V>,
    tmp: Buf<K, V>,
    out: Buf<K, V>,
    len: usize,
    digits: usize,
    encoded: bool,
    stream: bool,
) {
    if len <= INSERTION_MAX_LEN {
        // SAFETY: contract of `lsd`; `copy_decode` without DEC is a plain copy (or nothing),
        // then the small sort works in place on `out`.
        unsafe {
            copy_decode::<K, V, C, false>(src, out, len);
            small_sort::<K, V, C>(out, len, encoded);
        }
        return;
    }
    // SAFETY: `src` holds `len` initialised elements.
    let (mut low_digits, mut hist) = unsafe {
        if encoded {
            let first =
                first_digit::<K, W>(len, digits, || varying_bits::<K, V, C, false>(src, len));
            (
                first,
                count_all::<K, V, C, W, false>(src, len, first, digits),
            )
        } else {
            let first =
                first_digit::<K, W>(len, digits, || varying_bits::<K, V, C, true>(src, len));
            (
                first,
                count_all::<K, V, C, W, true>(src, len, first, digits),
            )
        }
    };
    let (lowered, counted) = lower_first_digit(len, low_digits, &hist[low_digits..], |a, b| {
        // SAFETY: as above.
        let mut h = unsafe {
            if encoded {
                count_all::<K, V, C, W, false>(src, len, a, b)
            } else {
                count_all::<K, V, C, W, true>(src, len, a, b)
            }
        };
        h.split_off(a)
    });
    for (h, c) in hist[lowered..].iter_mut().zip(counted) {
        *h = c;
    }
    low_digits = lowered;
    let passes: Vec<usize> = (low_digits..digits)
        .filter(|&d| hist[d].iter().all(|&c| c != len))
        .collect();
    // With `stream` and a third buffer for the output, the last pass stays in cache (plain
    // scatter into the ping-pong buffer), the runs are finished there, and one streaming copy
    // writes the result out: cheaper than a write-combining last pass, and the finishing walk
    // reads cache instead of the lines just streamed to memory.
    let via_cache = stream && out.k != src.k && out.k != tmp.k;
    let mut cur = src;
    for (i, &d) in passes.iter().enumerate() {
        let mut offsets = exclusive_prefix(&hist[d]);
        let first = i == 0 && !encoded;
        let last = i + 1 == passes.len();
        let other = if cur.k == src.k { tmp } else { src };
        let target = if last && out.k != cur.k && !via_cache {
            out
        } else {
            other
        };
        // SAFETY: `cur` holds `len` initialised elements (the input, or the previous pass's
        // output); `offsets` is the exclusive prefix of this digit's histogram over exactly
        // these elements, so every write lands in `target[..len]`, which is not `cur`.
        unsafe {
            let offs = &mut offsets[..];
            match (first, last) {
                (true, true) => scatter::<K, V, C, W, true, true>(cur, target, len, d, offs),
                (true, false) => scatter::<K, V, C, W, true, false>(cur, target, len, d, offs),
                (false, true) => scatter::<K, V, C, W, false, true>(cur, target, len, d, offs),
                (false, false) => scatter::<K, V, C, W, false, false>(cur, target, len, d, offs),
            }
        }
        cur = target;
    }
    // SAFETY: `cur` holds the `len` sorted elements; `out` is `cur` or a disjoint buffer; the
    // buffer of `src` and `tmp` that is not `cur` is free (its elements were moved on).
    unsafe {
        if via_cache {
            if passes.is_empty() && encoded {
                copy_decode::<K, V, C, true>(cur, cur, len);
            }
            if low_digits > 0 {
                let free = if cur.k == src.k { tmp } else { src };
                finish_runs::<K, V, C, W>(cur, free, len, low_digits);
            }
            copy_streaming(cur, out, len);
            return;
        }
        if passes.is_empty() && encoded {
            copy_decode::<K, V, C, true>(cur, out, len);
        } else {
            // Already decoded: by the last scatter, or never encoded (no pass ran on raw keys).
            copy_decode::<K, V, C, false>(cur, out, len);
        }
        if low_digits > 0 {
            // `tmp` is free again and disjoint from `out` (contract of `lsd`).
            finish_runs::<K, V, C, W>(out, tmp, len, low_digits);
        }
    }
}

/// Varying bits an LSD sort keeps above the digits it leaves to [`finish_runs`], beyond
/// log2 of the length: with 4 more bits than needed to tell the keys apart, about one uniform
/// key in 16 shares its prefix with another, and those short runs cost the finishing walk
/// less than a pass. Measured with a best-of-N loop (one thread below 2^18 keys, random
/// keys), 8 / 4 / 0 slack bits: `u64` 2^12 21.5 / 14.3 us, 2^16 343 / 242 / 248 us; `u32`
/// 2^12 18.3 / 13.7 / 13.2 us, 2^14 62.8 / 59.3 us, 2^16 245 / 234 us; 2^24 `u32` (MSD route,
/// both cores) 64 / 63 / 110 ms (no slack: long runs); 2^20 unchanged (the same passes).
pub(super) const PREFIX_SLACK_BITS: u32 = 4;

/// The lowest digit an LSD sort of `len` keys runs a pass on: the digits below the most
/// significant varying ones that span `log2(len) + PREFIX_SLACK_BITS` bits are left to
/// [`finish_runs`], and need not even be counted. `varying` gives the bits in which some keys
/// differ; it costs a read of the keys, so it is asked for only where skipping is possible
/// (where the digits above the lowest span enough bits).
///
/// This is where 64-bit keys gain most: 2^20 uniform `u64` keys are told apart by their top
/// 24 bits, 3 [`WIDE`] passes of 6 (2^16 keys: 2 passes).
pub(super) fn first_digit<K: RadixKey, const W: u32>(
    len: usize,
    digits: usize,
    varying: impl FnOnce() -> K,
) -> usize {
    let need = len.ilog2() + PREFIX_SLACK_BITS;
    if digits < 2 || K::BITS.min(W * digits as u32) - W < need {
        return 0;
    }
    let varying = varying();
    let mut bits = 0;
    for d in (0..digits).rev() {
        if varying.digit::<W>(d) != 0 {
            bits += W.min(K::BITS - W * d as u32);
            if bits >= need {
                return d;
            }
        }
    }
    0
}

/// Whether keys whose digits have the histograms `hists` (all digits above the ones an LSD
/// sort skips) rarely share all of them: the expected number of key pairs that agree on
/// every digit, taking the digits as independent, is at most `len / 8`. Uniform keys with
/// [`PREFIX_SLACK_BITS`] of slack expect about `len / 32`.
pub(super) fn prefixes_tell_apart(len: usize, hists: &[Vec<usize>]) -> bool {
    let n = len as f64;
    let collision: f64 = hists
        .iter()
        .map(|h| h.iter().map(|&c| (c as f64 / n).powi(2)).sum::<f64>())
        .product();
    n * n / 2.0 * collision <= n / 8.0
}

/// Where the prefixes above `low` (histograms `kept`, digits `low..`) do not tell the keys
/// apart ([`prefixes_tell_apart`]), the lowest digit to sort on instead, and the histograms
/// of the digits added below `low`, lowest first. `count(a, b)` counts digits `a..b` (one
/// read of the keys) and returns their histograms.
///
/// One digit lower first: skewed keys such as floats over a few binades, whose top digits
/// take few values, are told apart by the next digit, which holds mantissa bits (2^12 `f32`
/// uniform in ±1e6: 3 passes instead of 4). Where that is still not enough, every digit.
pub(super) fn lower_first_digit(
    len: usize,
    low: usize,
    kept: &[Vec<usize>],
    mut count: impl FnMut(usize, usize) -> Vec<Vec<usize>>,
) -> (usize, Vec<Vec<usize>>) {
    if low == 0 || prefixes_tell_apart(len, kept) {
        return (low, Vec::new());
    }
    let next = count(low - 1, low);
    let widened: Vec<Vec<usize>> = next.iter().chain(kept).cloned().collect();
    if low == 1 || prefixes_tell_apart(len, &widened) {
        return (low - 1, next);
    }
    let mut all = count(0, low - 1);
    all.extend(next);
    (0, all)
}

/// Finishes an LSD sort that skipped the `low_digits` lowest digits: `out[..len]` (decoded)
/// is sorted by the bits above them, and every run of keys that agree there is sorted by
/// the whole key, stably (insertion sort for short runs, an LSD sort of the low digits for
/// long ones, which skewed data can produce).
///
/// # Safety
/// `out` holds `len` initialised elements; `tmp` has room for `len` and does not overlap it.
pub(super) unsafe fn finish_runs<K: RadixKey, V: Copy, C: Codec<K>, const W: u32>(
    out: Buf<K, V>,
    tmp: Buf<K, V>,
    len: usize,
    low_digits: usize,
) {
    /// Neighbour pairs tested at once where the test vectorises.
    const BLOCK: usize = 16;
    let shift = W * low_digits as u32;
    // Two raw keys agree on their encoded prefix iff their raw bits do: the maps flip either
    // nothing, the sign bit alone, or all bits below a sign bit that is part of the prefix
    // (so keys of different signs differ there both ways). No decoding needed.
    // SAFETY: `i + 1 < len`, and `out` holds `len` initialised elements (caller's contract).
    let same = |i: usize| unsafe { (*out.k.add(i) ^ *out.k.add(i + 1)) >> shift == K::ZERO };
    let mut i = 0;
    while i + 1 < len {
        // Most neighbours differ (about one uniform key in 16 has a twin): for 32-bit keys
        // one branch-free, vectorised test of a whole block first (the baseline x86-64
        // target has no 64-bit vector compare: there the test per pair is as fast).
        if K::BITS == 32 && i + BLOCK < len {
            // SAFETY: `i + BLOCK < len` elements are initialised; the view ends with this
            // block, before any run is sorted in place.
            let block = unsafe { &*out.k.add(i).cast_const().cast::<[K; BLOCK + 1]>() };
            // A fixed-length loop with an integer accumulator compiles to a few vector
            // compares and one mask test; the iterator form with a `bool` fold took about
            // twice the instructions (callgrind, 2^20 `u32` keys on one thread).
            let mut hits = 0u32;
            for j in 0..BLOCK {
                hits |= u32::from((block[j] ^ block[j + 1]) >> shift == K::ZERO);
            }
            if hits == 0 {
                i += BLOCK;
                continue;
            }
            // Straight to the first equal pair of the block: stepping one key at a time
            // through the block test again cost more than the test saved.
            while !same(i) {
                i += 1;
            }
        } else if !same(i) {
            i += 1;
            continue;
        }
        let mut end = i + 2;
        while end < len && same(end - 1) {
            end += 1;
        }
        if end - i <= INSERTION_MAX_LEN {
            // SAFETY: `out[i..end]` is initialised and ours alone (caller's contract).
            unsafe { insert_raw::<K, V, C>(out.add(i), end - i) };
        } else {
            // SAFETY: `out[i..end]` is initialised and `tmp` has room for it; the run is
            // sorted in place (the input is raw, decoded keys).
            unsafe {
                lsd::<K, V, C, W>(
                    out.add(i),
                    tmp,
                    out.add(i),
                    end - i,
                    low_digits,
                    false,
                    false,
                )
            };
        }
        i = end;
    }
}

/// Stable insertion sort of `buf[..len]` holding raw (decoded) keys, compared by their
/// encoded images: the short runs that [`finish_runs`] finds (mostly pairs) are sorted where
/// they lie, without the encode and decode sweeps and the call of a whole [`lsd`]. One
/// thread, uniform `u32` keys at 2^20 (MSD route, runs of one 16-bit prefix in 4096-key
/// buckets, about 128 per bucket): the finishing walk took 15% of the sort's instructions
/// through [`lsd`] (callgrind).
///
/// # Safety
/// `buf` holds `len` initialised elements owned by the caller.
#[inline]
pub(super) unsafe fn insert_raw<K: RadixKey, V: Copy, C: Codec<K>>(buf: Buf<K, V>, len: usize) {
    for i in 1..len {
        // SAFETY: every index is below `len` (caller's contract); elements move up by one
        // within the run.
        unsafe {
            let (k, v) = (*buf.k.add(i), *buf.v.add(i));
            let e = C::encode(k);
            let mut j = i;
            while j > 0 && C::encode(*buf.k.add(j - 1)) > e {
                *buf.k.add(j) = *buf.k.add(j - 1);
                *buf.v.add(j) = *buf.v.add(j - 1);
                j -= 1;
            }
            *buf.k.add(j) = k;
            *buf.v.add(j) = v;
        }
    }
}

/// [`lsd`] for a whole input on all rayon threads: every pass splits the current buffer into
/// one contiguous chunk per thread, counts each chunk's digit, gives chunk `t` the offsets
/// after chunks `0..t` in every bucket (so equal keys keep their order) and lets each thread
/// scatter its chunk. Counting the first digit comes with the survey of all digits; later
/// digits are recounted per chunk (a read of cache-resident data) because the chunks' contents
/// change with every pass. The input at `data` is raw; the decoded result ends there.
///
/// # Safety
/// `data` holds `len` initialised elements, `scratch` has room for `len`, they do not overlap,
/// and both belong to the caller alone.
pub(super) unsafe fn lsd_parallel<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>, const W: u32>(
    data: Buf<K, V>,
    scratch: Buf<K, V>,
    len: usize,
) {
    let buckets = 1 << W;
    let digits = digits::<K, W>();
    let chunks = chunk_bounds(len, rayon::current_num_threads());
    let low_digits = first_digit::<K, W>(len, digits, || {
        let (and, or) = chunks
            .par_iter()
            // SAFETY: `data[a..b]` is initialised and only read here.
            .map(|&(a, b)| unsafe { and_or::<K, V, C, true>(data.add(a), b - a) })
            .reduce(|| (K::ONES, K::ZERO), |x, y| (x.0 & y.0, x.1 | y.1));
        and ^ or
    });
    let mut counts: Vec<Vec<Vec<usize>>> = chunks
        .par_iter()
        // SAFETY: `data[a..b]` is initialised and only read here.
        .map(|&(a, b)| unsafe {
            count_all::<K, V, C, W, true>(data.add(a), b - a, low_digits, digits)
        })
        .collect();
    let total = |counts: &[Vec<Vec<usize>>], d: usize| -> Vec<usize> {
        (0..buckets)
            .map(|b| counts.iter().map(|c| c[d][b]).sum())
            .collect()
    };
    let kept: Vec<Vec<usize>> = (low_digits..digits).map(|d| total(&counts, d)).collect();
    let (low_digits, _) = lower_first_digit(len, low_digits, &kept, |a, b| {
        let low: Vec<Vec<Vec<usize>>> = chunks
            .par_iter()
            // SAFETY: `data[a..b]` is initialised and only read here.
            .map(|&(s, e)| unsafe { count_all::<K, V, C, W, true>(data.add(s), e - s, a, b) })
            .collect();
        for (c, l) in counts.iter_mut().zip(low) {
            for (h, lh) in c[a..b].iter_mut().zip(l.into_iter().skip(a)) {
                *h = lh;
            }
        }
        (a..b).map(|d| total(&counts, d)).collect()
    });
    let passes: Vec<usize> = (low_digits..digits)
        .filter(|&d| (0..buckets).all(|b| counts.iter().map(|c| c[d][b]).sum::<usize>() != len))
        .collect();
    let mut cur = data;
    for (i, &d) in passes.iter().enumerate() {
        let (first, last) = (i == 0, i + 1 == passes.len());
        let target = if cur.k == data.k { scratch } else { data };
        let per_chunk: Vec<Vec<usize>> = if first {
            counts.iter().map(|c| c[d].clone()).collect()
        } else {
            chunks
                .par_iter()
                // SAFETY: `cur[a..b]` holds initialised (encoded) elements, only read here.
                .map(|&(a, b)| unsafe { count_one::<K, V, W>(cur.add(a), b - a, d) })
                .collect()
        };
        let mut offsets = vec![vec![0usize; buckets]; chunks.len()];
        let mut sum = 0;
        for b in 0..buckets {
            for (t, h) in per_chunk.iter().enumerate() {
                offsets[t][b] = sum;
                sum += h[b];
            }
        }
        chunks
            .par_iter()
            .zip(offsets.par_iter_mut())
            .for_each(|(&(a, b), offs)| {
                // SAFETY: chunk `cur[a..b]` is initialised; its offsets come from its own
                // histogram placed after the earlier chunks', so its writes land in ranges of
                // `target` that no other chunk writes.
                unsafe {
                    let s = cur.add(a);
                    let n = b - a;
                    match (first, last) {
                        (true, true) => scatter::<K, V, C, W, true, true>(s, target, n, d, offs),
                        (true, false) => scatter::<K, V, C, W, true, false>(s, target, n, d, offs),
                        (false, true) => scatter::<K, V, C, W, false, true>(s, target, n, d, offs),
                        (false, false) => {
                            scatter::<K, V, C, W, false, false>(s, target, n, d, offs)
                        }
                    }
                }
            });
        cur = target;
    }
    if cur.k != data.k {
        // An odd number of passes ended in the scratch buffer (already decoded).
        chunks.par_iter().for_each(|&(a, b)| {
            // SAFETY: disjoint chunks of two disjoint buffers; `scratch[a..b]` is initialised.
            unsafe { copy_decode::<K, V, C, false>(scratch.add(a), data.add(a), b - a) }
        });
    }
    if low_digits > 0 {
        // Each thread finishes the runs of one part; parts start where a prefix starts.
        let shift = W * low_digits as u32;
        // SAFETY: `i < len`: `data` holds `len` initialised elements.
        let prefix = |i: usize| unsafe { C::encode(*data.k.add(i)) >> shift };
        let mut starts: Vec<usize> = chunks.iter().map(|&(a, _)| a).collect();
        for s in starts.iter_mut().skip(1) {
            while *s < len && prefix(*s) == prefix(*s - 1) {
                *s += 1;
            }
        }
        starts.push(len);
        starts.par_windows(2).for_each(|w| {
            let (a, b) = (w[0], w[1].max(w[0]));
            // SAFETY: the parts `a..b` are disjoint ranges of `data` (each start is at or past
            // the previous one) and use the same ranges of `scratch` as room.
            unsafe { finish_runs::<K, V, C, W>(data.add(a), scratch.add(a), b - a, low_digits) };
        });
    }
}
