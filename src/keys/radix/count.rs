//! Counting: the histograms of one or every digit in one read, the AND and OR of all keys
//! (which bits vary), and how inputs and histograms are cut into per-thread parts.

use super::digits::*;

/// Histograms of digits `first..digits` of the (encoded) keys of `src[..len]`, one read of
/// the keys for all of them; the histograms of digits below `first` are left empty. `ENC`: the keys are raw and are encoded as they are read.
///
/// # Safety
/// `src` must hold `len` initialised elements.
pub(super) unsafe fn count_all<K: RadixKey, V, C: Codec<K>, const W: u32, const ENC: bool>(
    src: Buf<K, V>,
    len: usize,
    first: usize,
    digits: usize,
) -> Vec<Vec<usize>> {
    // SAFETY: every arm only forwards the caller's guarantee.
    let counted = unsafe {
        match digits - first {
            0 => Vec::new(),
            1 => count_digits::<K, V, C, W, ENC, 1>(src, len, first),
            2 => count_digits::<K, V, C, W, ENC, 2>(src, len, first),
            3 => count_digits::<K, V, C, W, ENC, 3>(src, len, first),
            4 => count_digits::<K, V, C, W, ENC, 4>(src, len, first),
            5 => count_digits::<K, V, C, W, ENC, 5>(src, len, first),
            6 => count_digits::<K, V, C, W, ENC, 6>(src, len, first),
            7 => count_digits::<K, V, C, W, ENC, 7>(src, len, first),
            8 => count_digits::<K, V, C, W, ENC, 8>(src, len, first),
            _ => unreachable!("keys have at most 8 digits"),
        }
    };
    // Digits below `first` are not counted: empty histograms keep the indices absolute.
    let mut hist = vec![Vec::new(); first];
    hist.extend(counted);
    hist
}

/// [`count_all`] for a digit count known at compile time, so that the digit loop unrolls:
/// digits `first..first + D`, histogram `d` for digit `first + d`.
///
/// # Safety
/// `src` must hold `len` initialised elements.
pub(super) unsafe fn count_digits<
    K: RadixKey,
    V,
    C: Codec<K>,
    const W: u32,
    const ENC: bool,
    const D: usize,
>(
    src: Buf<K, V>,
    len: usize,
    first: usize,
) -> Vec<Vec<usize>> {
    let buckets = 1 << W;
    // One flat block, digit `d`'s counters at `d * buckets..`: the loop below indexes it
    // without bounds checks. The counters are `u32`s (see [`COUNT_BLOCK`]).
    let mut flat = vec![0usize; D * buckets];
    let mut block_counts = vec![0u32; D * buckets];
    let h = block_counts.as_mut_ptr();
    // SAFETY: the caller guarantees `len` initialised keys at `src.k`.
    let keys = unsafe { std::slice::from_raw_parts(src.k, len) };
    let top = (D - 1) * buckets;
    for block in keys.chunks(COUNT_BLOCK) {
        // SAFETY: the top digit is below `buckets`: inside the top digit's counters.
        unsafe {
            count_field(block, h.add(top), buckets, |k| {
                let e = if ENC { C::encode(k) } else { k };
                for d in 0..D - 1 {
                    // SAFETY: `d < D - 1` and a digit is below `buckets`: inside
                    // `block_counts`, below the top digit's counters.
                    *h.add(d * buckets + e.digit::<W>(first + d)) += 1;
                }
                e.digit::<W>(first + D - 1)
            })
        };
        add_block_counts(&mut flat, &mut block_counts);
    }
    flat.chunks(buckets).map(<[usize]>::to_vec).collect()
}

/// Adds one to `counts[field(k)]` for every key of `keys`; `field` returns values below
/// `buckets`.
///
/// Neighbouring keys that share a field would add to one counter one after another, each add
/// waiting for the last one's store (a store-to-load forward, about 5 cycles a key). Narrow
/// fields spread each four neighbours over four tables of their own ([`SPREAD_MAX_BUCKETS`]),
/// which leaves no such chain shorter than four keys apart and no branch to mispredict:
/// sawtooth input (sorted runs of `sqrt(n)` keys) has neighbours that share their top digit
/// by threes and fours, so a test for four equal fields would go either way at random. Wide
/// fields, whose four tables would not fit the first-level cache, take that test: where all
/// four land on one counter, one add of 4 replaces four adds of 1.
///
/// # Safety
/// `field` returns a value below `buckets` for every key, and `counts` holds `buckets`
/// counters.
#[inline(always)]
pub(super) unsafe fn count_field<T: Copy>(
    keys: &[T],
    counts: *mut u32,
    buckets: usize,
    mut field: impl FnMut(T) -> usize,
) {
    let mut quads = keys.chunks_exact(4);
    if buckets <= SPREAD_MAX_BUCKETS && keys.len() >= SPREAD_MIN_KEYS {
        let mut tables = [[0u32; SPREAD_MAX_BUCKETS]; 4];
        for q in &mut quads {
            // SAFETY: every field is below `buckets <= SPREAD_MAX_BUCKETS` (caller's contract).
            unsafe {
                *tables[0].get_unchecked_mut(field(q[0])) += 1;
                *tables[1].get_unchecked_mut(field(q[1])) += 1;
                *tables[2].get_unchecked_mut(field(q[2])) += 1;
                *tables[3].get_unchecked_mut(field(q[3])) += 1;
            }
        }
        for &k in quads.remainder() {
            // SAFETY: as above.
            unsafe { *tables[0].get_unchecked_mut(field(k)) += 1 };
        }
        // SAFETY: `counts` holds `buckets` counters (caller's contract).
        let counts = unsafe { std::slice::from_raw_parts_mut(counts, buckets) };
        for (b, c) in counts.iter_mut().enumerate() {
            *c += tables[0][b] + tables[1][b] + tables[2][b] + tables[3][b];
        }
        return;
    }
    for q in &mut quads {
        let f = [field(q[0]), field(q[1]), field(q[2]), field(q[3])];
        // SAFETY: every `f` is inside the counters (caller's contract).
        unsafe {
            if f[0] == f[1] && f[1] == f[2] && f[2] == f[3] {
                *counts.add(f[0]) += 4;
            } else {
                for i in f {
                    *counts.add(i) += 1;
                }
            }
        }
    }
    for &k in quads.remainder() {
        // SAFETY: as above.
        unsafe { *counts.add(field(k)) += 1 };
    }
}

/// The widest field [`count_field`] spreads over four tables: four 256-entry tables of `u32`
/// take 4 KiB of the first-level cache beside the keys' stream.
const SPREAD_MAX_BUCKETS: usize = 1 << NARROW;

/// The fewest keys [`count_field`] spreads: below this, clearing and adding up the four
/// tables (1024 counters) costs more than the chains it breaks.
const SPREAD_MIN_KEYS: usize = 1024;

/// Keys counted into `u32` counters before they are added to the `usize` totals: the
/// counters take half the cache of `usize` ones, which the 11-bit histograms need (three
/// 2048-entry histograms of `usize` are 48 KiB, more than the 32 KiB first-level cache).
/// Measured with a best-of-N loop (best of 25 to 41, both cores; whole-input LSD,
/// 11-bit digits), `usize` / `u32` counters: 2^20 random `u32` keys 2.93 / 2.64-2.68 ms,
/// `u64` 4.08-4.14 / 3.79-3.84 ms, `f32` in ±1e6 3.2 / 3.0 ms; 2^12 and 2^16 unchanged.
/// A block of at most `u32::MAX` keys cannot overflow a counter.
pub(super) const COUNT_BLOCK: usize = u32::MAX as usize;

/// Adds a block's `u32` counts to the totals and clears them for the next block.
pub(super) fn add_block_counts(totals: &mut [usize], block: &mut [u32]) {
    for (t, c) in totals.iter_mut().zip(block) {
        *t += *c as usize;
        *c = 0;
    }
}

/// The AND and the OR of the (encoded) keys of `src[..len]`; their XOR is the bits in which
/// some keys differ. `ENC`: the keys are raw and are encoded as they are read.
///
/// # Safety
/// `src` must hold `len` initialised elements.
pub(super) unsafe fn and_or<K: RadixKey, V, C: Codec<K>, const ENC: bool>(
    src: Buf<K, V>,
    len: usize,
) -> (K, K) {
    // SAFETY: the caller guarantees `len` initialised keys at `src.k`.
    let keys = unsafe { std::slice::from_raw_parts(src.k, len) };
    keys.iter().fold((K::ONES, K::ZERO), |(and, or), &k| {
        let e = if ENC { C::encode(k) } else { k };
        (and & e, or | e)
    })
}

/// The bits in which some of the (encoded) keys of `src[..len]` differ (see [`and_or`]).
///
/// # Safety
/// `src` must hold `len` initialised elements.
pub(super) unsafe fn varying_bits<K: RadixKey, V, C: Codec<K>, const ENC: bool>(
    src: Buf<K, V>,
    len: usize,
) -> K {
    // SAFETY: forwarded from the caller.
    let (and, or) = unsafe { and_or::<K, V, C, ENC>(src, len) };
    and ^ or
}

/// Histogram of digit `d` of the (already encoded) keys of `src[..len]`.
///
/// # Safety
/// `src` must hold `len` initialised elements.
pub(super) unsafe fn count_one<K: RadixKey, V, const W: u32>(
    src: Buf<K, V>,
    len: usize,
    d: usize,
) -> Vec<usize> {
    // SAFETY: the caller guarantees `len` initialised keys at `src.k`.
    let keys = unsafe { std::slice::from_raw_parts(src.k, len) };
    let mut hist = vec![0usize; 1 << W];
    let mut block_counts = vec![0u32; 1 << W];
    for block in keys.chunks(COUNT_BLOCK) {
        // SAFETY: a digit is below `1 << W`, the counters' length.
        unsafe {
            count_field(block, block_counts.as_mut_ptr(), 1 << W, |k| {
                k.digit::<W>(d)
            })
        };
        add_block_counts(&mut hist, &mut block_counts);
    }
    hist
}

pub(super) fn exclusive_prefix(h: &[usize]) -> Vec<usize> {
    let mut out = vec![0usize; h.len()];
    let mut sum = 0;
    for (o, &c) in out.iter_mut().zip(h) {
        *o = sum;
        sum += c;
    }
    out
}

/// Splits `0..n` into `parts` contiguous ranges of nearly equal length.
pub(super) fn chunk_bounds(n: usize, parts: usize) -> Vec<(usize, usize)> {
    (0..parts)
        .map(|t| (n * t / parts, n * (t + 1) / parts))
        .collect()
}
