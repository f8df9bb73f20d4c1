//! `radix`: a stable least-significant-digit radix sort on the unsigned images of the keys,
//! with one most-significant-digit pass in front for inputs larger than the cache.
//!
//! # Shape
//!
//! * Digits are 8 bits wide: 4 passes for 32-bit keys, 8 for 64-bit keys at most.
//! * One read of the input counts the histograms of every digit at once. A digit that is the
//!   same for every key moves nothing and its pass is skipped (small integers in `u64`s, data
//!   with a common prefix, all-equal slices).
//! * The [`KeyMap`] is fused into the passes: the counting pass and the first scatter encode
//!   as they read, the last scatter decodes as it writes. No separate sweep over the data.
//! * Slices of at least [`MSD_MIN_LEN`] elements first scatter once on their highest varying
//!   digit (the "MSD pass"), which cuts them into up to 256 buckets that each fit in the
//!   private cache; every bucket is then sorted by LSD passes on the remaining digits while
//!   it stays cache-resident. Main-memory traffic drops from one read and one scattered
//!   write per digit to about two of each for the whole sort.
//! * From [`PARALLEL_MIN_LEN`] elements on, the counting and MSD scatter run on rayon, each
//!   thread over one contiguous chunk with its own histogram and its own prefix offsets per
//!   bucket (chunk `t` writes after chunks `0..t` in every bucket, so the order of equal keys
//!   is kept), and the buckets are sorted in parallel.
//! * Runs of at most [`INSERTION_MAX_LEN`] elements (small inputs, small buckets) are sorted
//!   by insertion sort, which beats clearing and scanning 256-entry histograms.
//!
//! Every step is stable, so values in [`sort_pairs32`]/[`sort_pairs64`] keep the input order
//! of equal keys.
//!
//! # Memory
//!
//! One scratch buffer the size of the input (`n` keys, plus `n` values for pairs) ping-pongs
//! with the caller's slices: `4n` extra bytes for 32-bit keys, `8n` for 64-bit keys, plus `4n`
//! for the values of pairs. The histograms are a few KiB per thread.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::key::KeyMap;

/// Bits per digit.
const DIGIT_BITS: u32 = 8;
/// Buckets per digit.
const BUCKETS: usize = 1 << DIGIT_BITS;

/// Runs up to this length are insertion-sorted instead of radix-sorted.
///
/// Measured with `cargo bench --bench keys -- radix` (u32, random): a run of 48 keys costs
/// about as much by insertion sort as by 4 LSD passes with their histogram setup, and the
/// setup cost grows with the number of passes (64-bit keys), so the same bound serves both.
pub const INSERTION_MAX_LEN: usize = 48;

/// Inputs from this length on take an MSD pass in front of the LSD passes.
///
/// Below it the whole input and its scratch sit in the 1 MiB private L2 of the test machine
/// (AMD EPYC, Zen 4) and plain LSD is as fast; above it LSD scatters miss the cache on every
/// pass. Measured (`cargo bench --bench keys`, u32 random, one thread): at 2^16 the two
/// shapes are within noise, at 2^18 the MSD+LSD shape is faster.
pub const MSD_MIN_LEN: usize = 1 << 16;

/// Inputs from this length on count and scatter on all rayon threads.
///
/// On the 2-core test machine rayon's fork/join costs a few microseconds per phase; from
/// 2^17 u32 keys the second core pays for it (`cargo bench --bench keys`, u32 random).
pub const PARALLEL_MIN_LEN: usize = 1 << 17;

/// An unsigned key as a sequence of 8-bit digits, least significant first.
pub(crate) trait RadixKey: Copy + Ord + Send + Sync + 'static {
    /// Number of 8-bit digits.
    const DIGITS: usize;
    /// Digit `i` (0 = least significant) of the key.
    fn digit(self, i: usize) -> usize;
}

impl RadixKey for u32 {
    const DIGITS: usize = 4;
    #[inline(always)]
    fn digit(self, i: usize) -> usize {
        ((self >> (DIGIT_BITS as usize * i)) & 0xff) as usize
    }
}

impl RadixKey for u64 {
    const DIGITS: usize = 8;
    #[inline(always)]
    fn digit(self, i: usize) -> usize {
        ((self >> (DIGIT_BITS as usize * i)) & 0xff) as usize
    }
}

/// A [`KeyMap`] lifted to the type level, so that the inner loops are compiled once per map
/// and hold no branch on it.
trait Codec<K>: Send + Sync {
    fn encode(k: K) -> K;
    fn decode(k: K) -> K;
}

struct Unsigned;
struct Signed;
struct Float;

macro_rules! codec {
    ($ty:ident, $variant:ident) => {
        impl Codec<u32> for $ty {
            #[inline(always)]
            fn encode(k: u32) -> u32 {
                KeyMap::$variant.encode32(k)
            }
            #[inline(always)]
            fn decode(k: u32) -> u32 {
                KeyMap::$variant.decode32(k)
            }
        }
        impl Codec<u64> for $ty {
            #[inline(always)]
            fn encode(k: u64) -> u64 {
                KeyMap::$variant.encode64(k)
            }
            #[inline(always)]
            fn decode(k: u64) -> u64 {
                KeyMap::$variant.decode64(k)
            }
        }
    };
}
codec!(Unsigned, Unsigned);
codec!(Signed, Signed);
codec!(Float, Float);

/// Sorts 32-bit keys ascending by `map.encode32(key)`.
pub fn sort32(keys: &mut [u32], map: KeyMap) {
    sort_with_map(keys, &mut unit_values(keys.len()), map);
}

/// Sorts 64-bit keys ascending by `map.encode64(key)`.
pub fn sort64(keys: &mut [u64], map: KeyMap) {
    sort_with_map(keys, &mut unit_values(keys.len()), map);
}

/// Sorts 32-bit keys and moves `values[i]` with `keys[i]`; stable.
///
/// # Panics
/// If the slices differ in length (the public API checks this first).
pub fn sort_pairs32(keys: &mut [u32], values: &mut [u32], map: KeyMap) {
    assert_eq!(keys.len(), values.len(), "one value per key");
    sort_with_map(keys, values, map);
}

/// Sorts 64-bit keys and moves `values[i]` with `keys[i]`; stable.
///
/// # Panics
/// If the slices differ in length (the public API checks this first).
pub fn sort_pairs64(keys: &mut [u64], values: &mut [u32], map: KeyMap) {
    assert_eq!(keys.len(), values.len(), "one value per key");
    sort_with_map(keys, values, map);
}

/// Values for a keys-only sort: zero-sized, so every value move compiles to nothing and one
/// code path serves keys and pairs.
fn unit_values(n: usize) -> Vec<()> {
    vec![(); n]
}

fn sort_with_map<K, V>(keys: &mut [K], values: &mut [V], map: KeyMap)
where
    K: RadixKey,
    V: Copy + Send + Sync,
    Unsigned: Codec<K>,
    Signed: Codec<K>,
    Float: Codec<K>,
{
    match map {
        KeyMap::Unsigned => sort_kv::<K, V, Unsigned>(keys, values),
        KeyMap::Signed => sort_kv::<K, V, Signed>(keys, values),
        KeyMap::Float => sort_kv::<K, V, Float>(keys, values),
    }
}

/// Key and value arrays seen through raw pointers, so that disjoint ranges can be handed to
/// rayon threads and so that the scratch buffer can be used before it is initialised.
struct Buf<K, V> {
    k: *mut K,
    v: *mut V,
}

impl<K, V> Clone for Buf<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, V> Copy for Buf<K, V> {}

// SAFETY: a `Buf` is only a pair of addresses; every function that dereferences it is
// `unsafe` and its callers guarantee that threads touch disjoint ranges (each chunk or bucket
// is owned by exactly one task), which is what moving `&mut [K]` to a thread guarantees too.
unsafe impl<K: Send, V: Send> Send for Buf<K, V> {}
// SAFETY: as above; shared references to a `Buf` only read the two addresses.
unsafe impl<K: Send, V: Send> Sync for Buf<K, V> {}

impl<K, V> Buf<K, V> {
    /// The buffer starting `i` elements later.
    ///
    /// # Safety
    /// `i` must stay within (or one past) the allocation of both arrays.
    #[inline(always)]
    unsafe fn add(self, i: usize) -> Self {
        // SAFETY: the caller keeps `i` inside the allocations.
        unsafe {
            Buf {
                k: self.k.add(i),
                v: self.v.add(i),
            }
        }
    }
}

fn sort_kv<K, V, C>(keys: &mut [K], values: &mut [V])
where
    K: RadixKey,
    V: Copy + Send + Sync,
    C: Codec<K>,
{
    let n = keys.len();
    debug_assert_eq!(n, values.len());
    if n < 2 {
        return;
    }
    let data = Buf {
        k: keys.as_mut_ptr(),
        v: values.as_mut_ptr(),
    };
    if n <= INSERTION_MAX_LEN {
        // SAFETY: `data` covers `n` initialised elements owned by this call.
        unsafe { small_sort::<K, V, C>(data, n, false) };
        return;
    }
    // The scratch buffer: `n` keys and `n` values, written before they are read.
    let mut scratch_k: Vec<MaybeUninit<K>> = Vec::with_capacity(n);
    let mut scratch_v: Vec<MaybeUninit<V>> = Vec::with_capacity(n);
    let scratch = Buf {
        k: scratch_k.spare_capacity_mut().as_mut_ptr().cast::<K>(),
        v: scratch_v.spare_capacity_mut().as_mut_ptr().cast::<V>(),
    };
    // SAFETY: `data` holds `n` initialised elements, `scratch` has room for `n`; both are
    // exclusively ours for the duration of the call and do not overlap.
    unsafe {
        if n >= MSD_MIN_LEN {
            msd_lsd::<K, V, C>(data, scratch, n, K::DIGITS, false, false);
        } else {
            lsd::<K, V, C>(data, scratch, n, K::DIGITS, false, false);
        }
    }
}

/// Histograms of digits `0..digits` of the (encoded) keys of `src[..len]`.
///
/// # Safety
/// `src` must hold `len` initialised elements.
unsafe fn count<K: RadixKey, V, C: Codec<K>, const ENC: bool>(
    src: Buf<K, V>,
    len: usize,
    digits: usize,
) -> Vec<[usize; BUCKETS]> {
    let mut hist = vec![[0usize; BUCKETS]; digits];
    // SAFETY: the caller guarantees `len` initialised keys at `src.k`.
    let keys = unsafe { std::slice::from_raw_parts(src.k, len) };
    for &k in keys {
        let e = if ENC { C::encode(k) } else { k };
        for (d, h) in hist.iter_mut().enumerate() {
            h[e.digit(d)] += 1;
        }
    }
    hist
}

/// Specialised counter for all digits of a key type: the digit loop is unrolled.
///
/// # Safety
/// `src` must hold `len` initialised elements.
unsafe fn count_all<K: RadixKey, V, C: Codec<K>, const ENC: bool>(
    src: Buf<K, V>,
    len: usize,
    digits: usize,
) -> Vec<[usize; BUCKETS]> {
    if digits == K::DIGITS {
        let mut hist = vec![[0usize; BUCKETS]; K::DIGITS];
        // SAFETY: the caller guarantees `len` initialised keys at `src.k`.
        let keys = unsafe { std::slice::from_raw_parts(src.k, len) };
        if K::DIGITS == 4 {
            let (h, _) = hist.split_at_mut(4);
            let [h0, h1, h2, h3] = h else { unreachable!() };
            for &k in keys {
                let e = if ENC { C::encode(k) } else { k };
                h0[e.digit(0)] += 1;
                h1[e.digit(1)] += 1;
                h2[e.digit(2)] += 1;
                h3[e.digit(3)] += 1;
            }
        } else {
            let (h, _) = hist.split_at_mut(8);
            let [h0, h1, h2, h3, h4, h5, h6, h7] = h else {
                unreachable!()
            };
            for &k in keys {
                let e = if ENC { C::encode(k) } else { k };
                h0[e.digit(0)] += 1;
                h1[e.digit(1)] += 1;
                h2[e.digit(2)] += 1;
                h3[e.digit(3)] += 1;
                h4[e.digit(4)] += 1;
                h5[e.digit(5)] += 1;
                h6[e.digit(6)] += 1;
                h7[e.digit(7)] += 1;
            }
        }
        hist
    } else {
        // SAFETY: forwarded from the caller.
        unsafe { count::<K, V, C, ENC>(src, len, digits) }
    }
}

/// Moves `src[..len]` to `dst` ordered by digit `d`, keeping the order of equal digits.
/// `offsets[b]` is where the first element with digit `b` goes; it is advanced as elements
/// are written. `ENC`: the source is raw and is encoded as it is read. `DEC`: the
/// destination receives decoded keys.
///
/// # Safety
/// `src` holds `len` initialised elements; every `offsets[b]` plus the number of elements
/// with digit `b` stays within `dst`, and `src` and `dst` do not overlap.
#[inline(always)]
unsafe fn scatter<K: RadixKey, V: Copy, C: Codec<K>, const ENC: bool, const DEC: bool>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
    d: usize,
    offsets: &mut [usize; BUCKETS],
) {
    for i in 0..len {
        // SAFETY: `i < len` and the caller guarantees `len` initialised elements at `src`;
        // the offsets keep the write inside `dst` (see the function's contract).
        unsafe {
            let k = *src.k.add(i);
            let v = *src.v.add(i);
            let e = if ENC { C::encode(k) } else { k };
            let b = e.digit(d);
            let p = *offsets.get_unchecked(b);
            *offsets.get_unchecked_mut(b) = p + 1;
            let w = match (ENC, DEC) {
                (true, true) => k,
                (false, true) => C::decode(e),
                _ => e,
            };
            dst.k.add(p).write(w);
            dst.v.add(p).write(v);
        }
    }
}

/// Copies `len` elements from `src` to `dst` (which may be the same), decoding the keys when
/// `DEC` is set.
///
/// # Safety
/// `src` holds `len` initialised elements; `dst` has room for `len`; the ranges are either
/// identical or disjoint.
unsafe fn copy_decode<K: RadixKey, V: Copy, C: Codec<K>, const DEC: bool>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
) {
    if src.k == dst.k {
        if DEC {
            for i in 0..len {
                // SAFETY: `i < len`, initialised by the caller's contract.
                unsafe { *dst.k.add(i) = C::decode(*dst.k.add(i)) };
            }
        }
        return;
    }
    // SAFETY: disjoint ranges of `len` elements (caller's contract).
    unsafe {
        std::ptr::copy_nonoverlapping(src.v, dst.v, len);
        if DEC {
            for i in 0..len {
                dst.k.add(i).write(C::decode(*src.k.add(i)));
            }
        } else {
            std::ptr::copy_nonoverlapping(src.k, dst.k, len);
        }
    }
}

/// Stable insertion sort of `buf[..len]` by encoded key. `encoded`: the keys are already
/// encoded (they are decoded on the way out either way).
///
/// # Safety
/// `buf` holds `len` initialised elements owned by the caller.
unsafe fn small_sort<K: RadixKey, V: Copy, C: Codec<K>>(buf: Buf<K, V>, len: usize, encoded: bool) {
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
    for i in 1..len {
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
    keys.iter_mut().for_each(|k| *k = C::decode(*k));
}

/// LSD radix sort of the `len` elements at `src` on digits `0..digits`, using `dst` as the
/// other buffer. `encoded`: the keys at `src` are already encoded. The decoded result ends
/// in `dst` if `result_in_dst`, else in `src`.
///
/// # Safety
/// `src` holds `len` initialised elements, `dst` has room for `len`, they do not overlap, and
/// both ranges belong to the caller alone.
unsafe fn lsd<K: RadixKey, V: Copy, C: Codec<K>>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
    digits: usize,
    encoded: bool,
    result_in_dst: bool,
) {
    if len <= INSERTION_MAX_LEN {
        let out = if result_in_dst { dst } else { src };
        // SAFETY: contract of `lsd`; `copy_decode` without DEC is a plain copy (or nothing),
        // then the small sort works in place on `out`.
        unsafe {
            copy_decode::<K, V, C, false>(src, out, len);
            small_sort::<K, V, C>(out, len, encoded);
        }
        return;
    }
    // SAFETY: `src` holds `len` initialised elements.
    let hist = unsafe {
        if encoded {
            count_all::<K, V, C, false>(src, len, digits)
        } else {
            count_all::<K, V, C, true>(src, len, digits)
        }
    };
    let passes: Vec<usize> = (0..digits)
        .filter(|&d| hist[d].iter().all(|&c| c != len))
        .collect();
    let (mut cur, mut other) = (src, dst);
    for (i, &d) in passes.iter().enumerate() {
        let mut offsets = exclusive_prefix(&hist[d]);
        let first = i == 0 && !encoded;
        let last = i + 1 == passes.len();
        // SAFETY: `cur` holds `len` initialised elements (the input, or the previous pass's
        // output); `offsets` is the exclusive prefix of this digit's histogram over exactly
        // these elements, so every write lands in `other[..len]`.
        unsafe {
            match (first, last) {
                (true, true) => scatter::<K, V, C, true, true>(cur, other, len, d, &mut offsets),
                (true, false) => scatter::<K, V, C, true, false>(cur, other, len, d, &mut offsets),
                (false, true) => scatter::<K, V, C, false, true>(cur, other, len, d, &mut offsets),
                (false, false) => {
                    scatter::<K, V, C, false, false>(cur, other, len, d, &mut offsets)
                }
            }
        }
        std::mem::swap(&mut cur, &mut other);
    }
    let out = if result_in_dst { dst } else { src };
    // SAFETY: `cur` holds the `len` sorted elements; `out` is `cur` or the other buffer.
    unsafe {
        if passes.is_empty() && encoded {
            copy_decode::<K, V, C, true>(cur, out, len);
        } else {
            // Already decoded: by the last scatter, or never encoded (no pass ran on raw keys).
            copy_decode::<K, V, C, false>(cur, out, len);
        }
    }
}

fn exclusive_prefix(h: &[usize; BUCKETS]) -> [usize; BUCKETS] {
    let mut out = [0usize; BUCKETS];
    let mut sum = 0;
    for (o, &c) in out.iter_mut().zip(h) {
        *o = sum;
        sum += c;
    }
    out
}

/// Splits `0..n` into `parts` contiguous ranges of nearly equal length.
fn chunk_bounds(n: usize, parts: usize) -> Vec<(usize, usize)> {
    (0..parts)
        .map(|t| (n * t / parts, n * (t + 1) / parts))
        .collect()
}

/// One MSD pass on the highest digit (below `digits`) that varies, then each bucket sorted on
/// the digits below it. Input at `src` (`encoded` or raw), scratch at `dst`; the decoded
/// result ends in `dst` if `result_in_dst`, else in `src`.
///
/// # Safety
/// As [`lsd`].
unsafe fn msd_lsd<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
    digits: usize,
    encoded: bool,
    result_in_dst: bool,
) {
    let parallel = len >= PARALLEL_MIN_LEN && rayon::current_num_threads() > 1;
    let parts = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    let chunks = chunk_bounds(len, parts);
    let count_chunk = |&(a, b): &(usize, usize)| {
        // SAFETY: `src[a..b]` is initialised and only read here.
        unsafe {
            let s = src.add(a);
            if encoded {
                count_all::<K, V, C, false>(s, b - a, digits)
            } else {
                count_all::<K, V, C, true>(s, b - a, digits)
            }
        }
    };
    let hists: Vec<Vec<[usize; BUCKETS]>> = if parallel {
        chunks.par_iter().map(count_chunk).collect()
    } else {
        chunks.iter().map(count_chunk).collect()
    };
    let total = |d: usize, b: usize| hists.iter().map(|h| h[d][b]).sum::<usize>();
    let Some(top) = (0..digits)
        .rev()
        .find(|&d| (0..BUCKETS).all(|b| total(d, b) != len))
    else {
        // Every key is equal: already sorted; only the encoding (if any) must be undone and
        // the data moved to where it is expected.
        let out = if result_in_dst { dst } else { src };
        // SAFETY: contract of this function.
        unsafe {
            if encoded {
                copy_decode::<K, V, C, true>(src, out, len);
            } else {
                copy_decode::<K, V, C, false>(src, out, len);
            }
        }
        return;
    };
    // Per-chunk write offsets: bucket `b` of chunk `t` starts after bucket `b` of chunks
    // `0..t`, which keeps equal keys in input order.
    let mut bucket_start = [0usize; BUCKETS + 1];
    let mut offsets = vec![[0usize; BUCKETS]; parts];
    let mut sum = 0;
    for b in 0..BUCKETS {
        bucket_start[b] = sum;
        for (t, h) in hists.iter().enumerate() {
            offsets[t][b] = sum;
            sum += h[top][b];
        }
    }
    bucket_start[BUCKETS] = sum;
    debug_assert_eq!(sum, len);
    let scatter_chunk = |(&(a, b), offs): (&(usize, usize), &mut [usize; BUCKETS])| {
        // SAFETY: the chunk `src[a..b]` is initialised; its offsets were computed from its own
        // histogram, so its writes land in ranges of `dst` no other chunk writes.
        unsafe {
            let s = src.add(a);
            if encoded {
                scatter::<K, V, C, false, false>(s, dst, b - a, top, offs)
            } else {
                scatter::<K, V, C, true, false>(s, dst, b - a, top, offs)
            }
        }
    };
    if parallel {
        chunks
            .par_iter()
            .zip(offsets.par_iter_mut())
            .for_each(scatter_chunk);
    } else {
        chunks
            .iter()
            .zip(offsets.iter_mut())
            .for_each(scatter_chunk);
    }
    // Every bucket now sits encoded in `dst`; sort each on the digits below `top`.
    let sort_bucket = |b: usize| {
        let (a, e) = (bucket_start[b], bucket_start[b + 1]);
        let n = e - a;
        if n == 0 {
            return;
        }
        // SAFETY: `dst[a..e]` holds this bucket's initialised elements and `src[a..e]` is free
        // room; no other bucket touches these ranges.
        unsafe {
            let (s, d) = (dst.add(a), src.add(a));
            if n >= MSD_MIN_LEN && top > 1 {
                msd_lsd::<K, V, C>(s, d, n, top, true, !result_in_dst);
            } else {
                lsd::<K, V, C>(s, d, n, top, true, !result_in_dst);
            }
        }
    };
    if parallel {
        (0..BUCKETS).into_par_iter().for_each(sort_bucket);
    } else {
        (0..BUCKETS).for_each(sort_bucket);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        // xorshift64*
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn patterns(n: usize, seed: u64) -> Vec<(&'static str, Vec<u64>)> {
        let mut s = seed | 1;
        let random: Vec<u64> = (0..n).map(|_| rng(&mut s)).collect();
        let few: Vec<u64> = (0..n).map(|_| rng(&mut s) % 7).collect();
        vec![
            ("random", random),
            ("ascending", (0..n as u64).collect()),
            ("descending", (0..n as u64).rev().collect()),
            ("saw", (0..n as u64).map(|i| i % 17).collect()),
            (
                "organ",
                (0..n as u64).map(|i| i.min(n as u64 - i)).collect(),
            ),
            ("equal", vec![42; n]),
            ("few", few),
        ]
    }

    fn lengths() -> Vec<usize> {
        let mut v: Vec<usize> = (0..=300).collect();
        for k in 9..=18 {
            v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
        }
        v
    }

    fn specials_f32() -> Vec<u32> {
        [
            f32::from_bits(0xffc0_0000),
            -f32::NAN,
            f32::NEG_INFINITY,
            f32::MIN,
            -1.5,
            -f32::MIN_POSITIVE,
            -f32::from_bits(1),
            -0.0,
            0.0,
            f32::from_bits(1),
            f32::MIN_POSITIVE,
            2.5,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            f32::from_bits(0x7f80_0001),
        ]
        .iter()
        .map(|f| f.to_bits())
        .collect()
    }

    #[test]
    fn u32_patterns_and_lengths() {
        for n in lengths() {
            for (name, v) in patterns(n, n as u64) {
                let mut a: Vec<u32> = v.iter().map(|&x| x as u32 ^ (x >> 32) as u32).collect();
                let mut want = a.clone();
                want.sort_unstable();
                sort32(&mut a, KeyMap::Unsigned);
                assert_eq!(a, want, "{name} n={n}");
            }
        }
    }

    #[test]
    fn u64_patterns_and_lengths() {
        for n in lengths() {
            for (name, v) in patterns(n, n as u64 + 7) {
                let mut a = v.clone();
                let mut want = a.clone();
                want.sort_unstable();
                sort64(&mut a, KeyMap::Unsigned);
                assert_eq!(a, want, "{name} n={n}");
            }
        }
    }

    #[test]
    fn signed_extremes() {
        for n in [0, 1, 5, 47, 48, 49, 300, 1 << 16, (1 << 17) + 3] {
            let mut s = 99u64 + n as u64;
            let mut a: Vec<i32> = (0..n)
                .map(|i| match i % 5 {
                    0 => i32::MIN,
                    1 => i32::MAX,
                    2 => 0,
                    3 => -1,
                    _ => rng(&mut s) as i32,
                })
                .collect();
            let mut want = a.clone();
            want.sort_unstable();
            // SAFETY: test-only reinterpretation of i32 as u32 (same layout).
            let bits = unsafe { std::slice::from_raw_parts_mut(a.as_mut_ptr().cast(), n) };
            sort32(bits, KeyMap::Signed);
            assert_eq!(a, want, "i32 n={n}");

            let mut b: Vec<i64> = (0..n)
                .map(|i| match i % 4 {
                    0 => i64::MIN,
                    1 => i64::MAX,
                    2 => -1,
                    _ => rng(&mut s) as i64 >> (i % 40),
                })
                .collect();
            let mut want = b.clone();
            want.sort_unstable();
            // SAFETY: as above, i64 as u64.
            let bits = unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast(), n) };
            sort64(bits, KeyMap::Signed);
            assert_eq!(b, want, "i64 n={n}");
        }
    }

    #[test]
    fn floats_total_order() {
        let sp = specials_f32();
        for n in [
            0,
            2,
            16,
            48,
            49,
            255,
            256,
            257,
            4097,
            1 << 16,
            (1 << 17) + 1,
        ] {
            let mut s = 5u64 + n as u64;
            let mut a: Vec<u32> = (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        sp[rng(&mut s) as usize % sp.len()]
                    } else {
                        rng(&mut s) as u32
                    }
                })
                .collect();
            let mut want: Vec<f32> = a.iter().map(|&b| f32::from_bits(b)).collect();
            want.sort_by(f32::total_cmp);
            sort32(&mut a, KeyMap::Float);
            let got: Vec<u32> = a.clone();
            let want: Vec<u32> = want.iter().map(|f| f.to_bits()).collect();
            assert_eq!(got, want, "f32 n={n}");

            let mut b: Vec<u64> = (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        (f32::from_bits(sp[rng(&mut s) as usize % sp.len()]) as f64).to_bits()
                    } else {
                        rng(&mut s)
                    }
                })
                .collect();
            let mut want: Vec<f64> = b.iter().map(|&x| f64::from_bits(x)).collect();
            want.sort_by(f64::total_cmp);
            sort64(&mut b, KeyMap::Float);
            let want: Vec<u64> = want.iter().map(|f| f.to_bits()).collect();
            assert_eq!(b, want, "f64 n={n}");
        }
    }

    #[test]
    fn pairs_are_stable() {
        for n in [0, 1, 30, 48, 49, 300, 1000, 1 << 16, (1 << 17) + 5, 1 << 19] {
            for modulus in [1u64, 3, 256, 1 << 20] {
                let mut s = 1234 + n as u64;
                let keys: Vec<u64> = (0..n).map(|_| rng(&mut s) % modulus).collect();
                let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..n as u32).collect();
                want.sort_by_key(|p| p.0);

                let mut k64 = keys.clone();
                let mut v: Vec<u32> = (0..n as u32).collect();
                sort_pairs64(&mut k64, &mut v, KeyMap::Unsigned);
                let got: Vec<(u64, u32)> = k64.into_iter().zip(v).collect();
                assert_eq!(got, want, "u64 pairs n={n} mod={modulus}");

                // Signed 32-bit keys with negative values, still stable.
                let mut k32: Vec<u32> = keys.iter().map(|&k| (k as i32 - 100) as u32).collect();
                let mut want32: Vec<(i32, u32)> =
                    k32.iter().map(|&k| k as i32).zip(0..n as u32).collect();
                want32.sort_by_key(|p| p.0);
                let mut v: Vec<u32> = (0..n as u32).collect();
                sort_pairs32(&mut k32, &mut v, KeyMap::Signed);
                let got: Vec<(i32, u32)> = k32.into_iter().map(|k| k as i32).zip(v).collect();
                assert_eq!(got, want32, "i32 pairs n={n} mod={modulus}");
            }
        }
    }

    #[test]
    fn skewed_buckets_recurse() {
        // 90% of the keys share their top byte: one MSD bucket far above MSD_MIN_LEN.
        let n = 1 << 19;
        let mut s = 77u64;
        let mut a: Vec<u32> = (0..n)
            .map(|i| {
                let r = rng(&mut s) as u32;
                if i % 10 == 0 {
                    r
                } else {
                    0x4200_0000 | (r & 0x00ff_ffff)
                }
            })
            .collect();
        let mut want = a.clone();
        want.sort_unstable();
        sort32(&mut a, KeyMap::Unsigned);
        assert_eq!(a, want);
    }
}
