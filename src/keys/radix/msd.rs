//! The MSD route for inputs larger than the cache: one most-significant-digit pass (a
//! survey, then a write-combining scatter, over all threads) and each bucket sorted in cache
//! by LSD passes, or by an MSD pass of its own when it is large.

use rayon::prelude::*;

use super::count::*;
use super::digits::*;
use super::lsd::*;
use super::scatter::*;
use super::{wide_min_len, BUCKET_MSD_MIN_BYTES, PARALLEL_MIN_LEN};
use crate::keys::scratch::Scratch;

/// What one read of a chunk tells the MSD pass.
pub(super) struct Survey<K> {
    /// Histogram of one field of the keys (see [`survey`]).
    hist: Vec<usize>,
    /// AND of every (encoded) key: bits set in all keys.
    and: K,
    /// OR of every (encoded) key: bits set in some key.
    or: K,
}

/// The AND and OR of the keys of `src[..len]` and the histogram of their `W`-bit field at
/// bit `shift`, in one read. The counters are `u32`s ([`COUNT_BLOCK`]): half the cache
/// footprint of `usize` ones, which matters for the wide field (a 12-bit histogram: 0.95-1.2
/// ns per key against 1.3-1.5 with `usize` counters, one thread, 2^23 keys). `ENC`: the keys
/// are raw and are encoded as they are read.
///
/// # Safety
/// `src` must hold `len` initialised elements.
pub(super) unsafe fn survey<K: RadixKey, V, C: Codec<K>, const W: u32, const ENC: bool>(
    src: Buf<K, V>,
    len: usize,
    shift: u32,
) -> Survey<K> {
    // SAFETY: the caller guarantees `len` initialised keys at `src.k`.
    let keys = unsafe { std::slice::from_raw_parts(src.k, len) };
    let mut hist = vec![0usize; 1 << W];
    let mut block_counts = vec![0u32; 1 << W];
    let (mut and, mut or) = (K::ONES, K::ZERO);
    for block in keys.chunks(COUNT_BLOCK) {
        // SAFETY: a `W`-bit field is below `1 << W`, the counters' length.
        unsafe {
            count_field(block, block_counts.as_mut_ptr(), |k| {
                let e = if ENC { C::encode(k) } else { k };
                and = and & e;
                or = or | e;
                e.field::<W>(shift)
            })
        };
        add_block_counts(&mut hist, &mut block_counts);
    }
    Survey { hist, and, or }
}

/// The [`WIDE_MSD_BITS`] split at the top of [`NARROW`] digit `top`, where that digit leaves
/// a bucket of `largest_bucket` of the `len` keys that is [`large_bucket`] (and the field
/// fits below the digit's top); `None` keeps the narrow digit.
pub(super) fn wide_split<K, V>(top: usize, largest_bucket: usize, len: usize) -> Option<Split> {
    let top_bit = NARROW * (top as u32 + 1);
    let bytes = elem_bytes::<K, V>();
    let skewed = large_bucket(
        largest_bucket.saturating_mul(bytes),
        len.saturating_mul(bytes),
        1 << NARROW,
    );
    (skewed && top_bit >= WIDE_MSD_BITS).then(|| Split {
        shift: top_bit - WIDE_MSD_BITS,
        bits: WIDE_MSD_BITS,
    })
}

/// A bucket is at least this many times the mean bucket before it counts as skewed
/// ([`large_bucket`]). Uniform keys leave every bucket within a fraction of a percent of
/// the mean at the sizes where buckets reach [`BUCKET_MSD_MIN_BYTES`]; the skew the wide
/// split is for (floats over a few binades) leaves buckets of tens of times the mean.
const SKEW_MIN: usize = 2;

/// Whether a bucket of `bytes`, one of `buckets` that share `total_bytes`, is large enough
/// for a pass of its own (the wide split at the top, an MSD pass on a bucket): at least
/// [`BUCKET_MSD_MIN_BYTES`] and at least [`SKEW_MIN`] times the mean bucket.
///
/// Uniform keys never qualify, whatever their number: their buckets all grow with the
/// input, and at 2^26 8-byte elements (buckets of 2 MiB) the wide split cost its extra
/// count and a scatter into 8192 buckets for what it saved in the buckets' passes. Phase
/// times of the MSD route, ms, wide split / buckets sorted by LSD passes, medians of 3: the
/// 16-core Xeon host of the H200 machine, 16 threads, `u64`: count 13 / 0, scatter 42 /
/// 26-28, buckets 62 / 92-95, whole route 133 / 136-142; pairs of `u32`: scatter 101 / 46,
/// buckets 71 / 132, whole 191 / 188-192 (a tie). The 2-core AMD EPYC (Zen 4), both threads:
/// `u64` 2^26 whole sort 923 / 620-632 ms, pairs 1237 / 758-771 ms; 2^27 `u64` 2018 / 1118,
/// pairs 4204 / 2840 (there the split's 8192 write-combining lines of keys and values, 1 MiB,
/// outgrow the core's L2).
pub(super) fn large_bucket(bytes: usize, total_bytes: usize, buckets: usize) -> bool {
    bytes >= BUCKET_MSD_MIN_BYTES && bytes >= (total_bytes / buckets).saturating_mul(SKEW_MIN)
}

/// The digit an MSD pass scatters on: the `bits` bits from bit `shift` up. The buckets are
/// then sorted on the `shift` bits below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Split {
    pub(super) shift: u32,
    pub(super) bits: u32,
}

/// Bits of the wide MSD digit, taken where the top [`NARROW`] digit leaves a bucket of at
/// least [`BUCKET_MSD_MIN_BYTES`] (skewed keys, such as floats over a few binades, whose top
/// digit holds the sign and the high exponent bits): 16 times as many buckets, most of them
/// small enough for LSD passes in cache, instead of a second MSD pass over every large
/// bucket (a second read and write-combining scatter of most keys). Counting the wide field
/// costs one more read of the keys, so the survey counts the narrow digit and the wide
/// field is counted only where the narrow one is skewed (a 12-bit histogram in the survey
/// cost 1.2-1.5 ns per key against 0.65-0.7 for 8 bits, one thread, 2^23 keys).
/// Measured with a best-of-N loop (best of 12 to 15, both cores, the shared machine
/// noisy), 2^24 `f32` keys uniform in ±1e6: a second MSD pass 73-76 ms; wide splits of 12 /
/// 13 / 14 bits 70-75 / 64-72 / 66-68 ms; 13 bits with `u32` counters 64 ms where
/// `voracious_mt_sort` took 72-78 in the same runs. Uniform `u32` / `u64` keys never take it.
pub(super) const WIDE_MSD_BITS: u32 = 13;

/// Where the MSD pass sends every element: the digit it scatters on, where each bucket
/// starts (and, last, the length), and each chunk's write offset in every bucket.
pub(super) struct Plan {
    pub(super) split: Split,
    pub(super) bucket_start: Vec<usize>,
    offsets: Vec<Vec<usize>>,
}

/// The input cut into one chunk per rayon thread when the MSD route runs in parallel
/// (from [`PARALLEL_MIN_LEN`] elements on more than one thread), else one chunk.
pub(super) fn msd_chunks(len: usize) -> (bool, Vec<(usize, usize)>) {
    let parallel = len >= PARALLEL_MIN_LEN && rayon::current_num_threads() > 1;
    let parts = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    (parallel, chunk_bounds(len, parts))
}

/// The MSD pass's [`Plan`] for the `len` elements at `src` (keys `encoded` or raw), sorted on
/// `digits` [`NARROW`] digits: the highest digit that varies, or the wider
/// [`WIDE_MSD_BITS`] field at the top where that digit is skewed ([`wide_split`]); `None`
/// when every key is equal.
///
/// # Safety
/// `src` holds `len` initialised elements; `chunks` cut `0..len`.
pub(super) unsafe fn plan<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>>(
    src: Buf<K, V>,
    len: usize,
    digits: usize,
    encoded: bool,
    parallel: bool,
    chunks: &[(usize, usize)],
) -> Option<Plan> {
    // One read: the histogram of the highest digit, and which bits vary at all (the AND and
    // OR of every key). Histograms of the lower digits would be wasted: the buckets recount
    // them while they are in cache.
    let guess = digits - 1;
    let survey_chunk = |&(a, b): &(usize, usize)| {
        // SAFETY: `src[a..b]` is initialised and only read here.
        unsafe {
            let (s, shift) = (src.add(a), NARROW * guess as u32);
            if encoded {
                survey::<K, V, C, NARROW, false>(s, b - a, shift)
            } else {
                survey::<K, V, C, NARROW, true>(s, b - a, shift)
            }
        }
    };
    let surveys: Vec<Survey<K>> = if parallel {
        chunks.par_iter().map(survey_chunk).collect()
    } else {
        chunks.iter().map(survey_chunk).collect()
    };
    let varying = surveys.iter().fold(K::ZERO, |acc, s| acc | s.or)
        ^ surveys.iter().fold(K::ONES, |acc, s| acc & s.and);
    let top = (0..digits)
        .rev()
        .find(|&d| varying.digit::<NARROW>(d) != 0)?;
    // Per-chunk histograms of a split's digit: one more read of the keys.
    let count = |split: Split| -> Vec<Vec<usize>> {
        let count_chunk = |&(a, b): &(usize, usize)| {
            // SAFETY: `src[a..b]` is initialised and only read here.
            unsafe {
                let (s, n, at) = (src.add(a), b - a, split.shift);
                match (split.bits == WIDE_MSD_BITS, encoded) {
                    (true, true) => survey::<K, V, C, WIDE_MSD_BITS, false>(s, n, at).hist,
                    (true, false) => survey::<K, V, C, WIDE_MSD_BITS, true>(s, n, at).hist,
                    (false, true) => survey::<K, V, C, NARROW, false>(s, n, at).hist,
                    (false, false) => survey::<K, V, C, NARROW, true>(s, n, at).hist,
                }
            }
        };
        if parallel {
            chunks.par_iter().map(count_chunk).collect()
        } else {
            chunks.iter().map(count_chunk).collect()
        }
    };
    let narrow = Split {
        shift: NARROW * top as u32,
        bits: NARROW,
    };
    let hists = if top == guess {
        surveys.into_iter().map(|s| s.hist).collect()
    } else {
        // The highest digit is constant (small numbers in wide keys): count the digit that
        // varies.
        count(narrow)
    };
    let largest_bucket = (0..1usize << NARROW)
        .map(|b| hists.iter().map(|h: &Vec<usize>| h[b]).sum::<usize>())
        .max()
        .unwrap_or(0);
    let (split, hists) = match wide_split::<K, V>(top, largest_bucket, len) {
        Some(wide) => (wide, count(wide)),
        None => (narrow, hists),
    };
    Some(plan_offsets(split, &hists, len))
}

/// The [`Plan`] of `split` from the chunks' histograms `hists` of its field over `len`
/// elements.
fn plan_offsets(split: Split, hists: &[Vec<usize>], len: usize) -> Plan {
    // Per-chunk write offsets: bucket `b` of chunk `t` starts after bucket `b` of chunks
    // `0..t`, which keeps equal keys in input order.
    let buckets = 1usize << split.bits;
    let mut bucket_start = vec![0usize; buckets + 1];
    let mut offsets = vec![vec![0usize; buckets]; hists.len()];
    let mut sum = 0;
    for b in 0..buckets {
        bucket_start[b] = sum;
        for (t, h) in hists.iter().enumerate() {
            offsets[t][b] = sum;
            sum += h[b];
        }
    }
    bucket_start[buckets] = sum;
    debug_assert_eq!(sum, len);
    Plan {
        split,
        bucket_start,
        offsets,
    }
}

/// The MSD pass: every chunk of `src` scattered by `plan` into `dst`, each element as `P`
/// makes it, with streaming stores when `stream` is set.
///
/// # Safety
/// `src` holds the elements `plan` was made from, cut into `chunks`; `dst` has room for them,
/// its keys aligned to their size, and does not overlap `src`.
pub(super) unsafe fn scatter_chunks<K, V, P>(
    src: Buf<K, V>,
    dst: Buf<P::Key, P::Value>,
    plan: &mut Plan,
    parallel: bool,
    chunks: &[(usize, usize)],
    stream: bool,
) where
    K: RadixKey,
    V: Copy + Send + Sync,
    P: Pack<K, V>,
    P::Key: Send,
    P::Value: Send,
{
    let split = plan.split;
    let scatter_chunk = |(&(a, b), offs): (&(usize, usize), &mut Vec<usize>)| {
        // SAFETY: the chunk `src[a..b]` is initialised; its offsets were computed from its own
        // histogram, so its writes land in ranges of `dst` no other chunk writes.
        unsafe {
            let (s, n, at) = (src.add(a), b - a, split.shift);
            match (split.bits == WIDE_MSD_BITS, stream) {
                (true, true) => scatter_wc::<K, V, P, WIDE_MSD_BITS, true>(s, dst, n, at, offs),
                (true, false) => scatter_wc::<K, V, P, WIDE_MSD_BITS, false>(s, dst, n, at, offs),
                (false, true) => scatter_wc::<K, V, P, NARROW, true>(s, dst, n, at, offs),
                (false, false) => scatter_wc::<K, V, P, NARROW, false>(s, dst, n, at, offs),
            }
        }
    };
    if parallel {
        chunks
            .par_iter()
            .zip(plan.offsets.par_iter_mut())
            .for_each(scatter_chunk);
    } else {
        chunks
            .iter()
            .zip(plan.offsets.iter_mut())
            .for_each(scatter_chunk);
    }
}

/// One MSD pass on the highest [`NARROW`] digit (below `digits`) that varies, or on the
/// wider [`WIDE_MSD_BITS`] field at the top where that digit is skewed ([`plan`]), then each
/// bucket sorted on the digits below it. Input at `src` (`encoded` or raw), scratch at
/// `dst`; the decoded result ends in `dst` if `result_in_dst`, else in `src`.
///
/// # Safety
/// As [`lsd`].
pub(super) unsafe fn msd_lsd<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
    digits: usize,
    encoded: bool,
    result_in_dst: bool,
    bucket_wide: bool,
) {
    let (parallel, chunks) = msd_chunks(len);
    // SAFETY: contract of this function.
    let Some(mut plan) = (unsafe { plan::<K, V, C>(src, len, digits, encoded, parallel, &chunks) })
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
    let stream = len * elem_bytes::<K, V>() >= STREAM_MIN_BYTES;
    // SAFETY: contract of this function; the plan was made from `src` and `chunks`.
    unsafe {
        if encoded {
            scatter_chunks::<K, V, Plain<C, false>>(src, dst, &mut plan, parallel, &chunks, stream);
        } else {
            scatter_chunks::<K, V, Plain<C, true>>(src, dst, &mut plan, parallel, &chunks, stream);
        }
    }
    let Plan {
        split,
        bucket_start,
        ..
    } = plan;
    let buckets = 1usize << split.bits;
    // Every bucket now sits encoded in `dst`; sort each on the digits below the split (the
    // top one of them may hold bits of the split, the same in every key of the bucket).
    // The buckets' passes ping-pong between their place in `dst` and a buffer of the largest
    // bucket's size, one per task, that stays in cache; only the last pass writes to `out`.
    let below = split.shift.div_ceil(NARROW) as usize;
    // A bucket of `n` elements takes an MSD pass of its own (and no task buffer) when it is
    // large for this input (skewed) and digits remain below; every other one is sorted in
    // the task's buffer, which must hold the largest of them.
    let eb = elem_bytes::<K, V>();
    let takes_msd = |n: usize| large_bucket(n * eb, len * eb, buckets) && below > 1;
    let largest = (0..buckets)
        .map(|b| bucket_start[b + 1] - bucket_start[b])
        .filter(|&n| !takes_msd(n))
        .max()
        .unwrap_or(0);
    let new_tmp = || (Scratch::<K>::new(largest), Scratch::<V>::new(largest));
    let sort_bucket = |tmp: &mut (Scratch<K>, Scratch<V>), b: usize| {
        let (a, e) = (bucket_start[b], bucket_start[b + 1]);
        let n = e - a;
        if n == 0 {
            return;
        }
        // SAFETY: `dst[a..e]` holds this bucket's initialised elements and `src[a..e]` is free
        // room; no other bucket touches these ranges; `tmp` belongs to this task alone and
        // has room for `n` elements unless the bucket takes the MSD route.
        unsafe {
            let (s, d) = (dst.add(a), src.add(a));
            if takes_msd(n) {
                msd_lsd::<K, V, C>(s, d, n, below, true, !result_in_dst, bucket_wide);
            } else {
                let out = if result_in_dst { s } else { d };
                let t = Buf {
                    k: tmp.0.as_mut_ptr(),
                    v: tmp.1.as_mut_ptr(),
                };
                if bucket_wide && n >= wide_min_len::<K>() {
                    let wide_below = split.shift.div_ceil(WIDE) as usize;
                    lsd::<K, V, C, WIDE>(s, t, out, n, wide_below, true, stream);
                } else {
                    lsd::<K, V, C, NARROW>(s, t, out, n, below, true, stream);
                }
            }
        }
    };
    if parallel {
        (0..buckets)
            .into_par_iter()
            .for_each_init(new_tmp, sort_bucket);
    } else {
        let mut tmp = new_tmp();
        (0..buckets).for_each(|b| sort_bucket(&mut tmp, b));
    }
}
