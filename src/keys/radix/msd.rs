//! The MSD route for inputs larger than the cache: one most-significant-digit pass (a
//! survey, then a write-combining scatter, over all threads) and each bucket sorted in cache
//! by LSD passes, or by an MSD pass of its own when it is large; pairs of 4-byte keys and
//! values take it packed into one `u64` each.

use std::marker::PhantomData;

use rayon::prelude::*;

use super::count::*;
use super::digits::*;
use super::lsd::*;
use super::scatter::*;
use super::{wide_min_len, BUCKET_MSD_MIN_BYTES, INSERTION_MAX_LEN, PARALLEL_MIN_LEN};
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
            count_field(block, block_counts.as_mut_ptr(), 1 << W, |k| {
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

/// Runs `$body` with `$W` bound to the width of an MSD field of `$bits` bits as a constant:
/// [`NARROW`], [`WIDE_START_BITS`] or [`WIDE_MSD_BITS`] (the only widths a [`Split`] takes).
macro_rules! with_field_width {
    ($bits:expr, $W:ident => $body:expr) => {
        match $bits {
            NARROW => {
                const $W: u32 = NARROW;
                $body
            }
            WIDE_START_BITS => {
                const $W: u32 = WIDE_START_BITS;
                $body
            }
            bits => {
                debug_assert_eq!(bits, WIDE_MSD_BITS, "a field width no split takes");
                const $W: u32 = WIDE_MSD_BITS;
                $body
            }
        }
    };
}

/// Per-chunk histograms of `split`'s field over the chunks of `src` (keys `encoded` or raw),
/// with the AND and OR of the keys: one read of the keys.
///
/// # Safety
/// `src` holds initialised elements over every range of `chunks`.
unsafe fn survey_chunks<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>>(
    src: Buf<K, V>,
    split: Split,
    encoded: bool,
    parallel: bool,
    chunks: &[(usize, usize)],
) -> Vec<Survey<K>> {
    let survey_chunk = |&(a, b): &(usize, usize)| {
        // SAFETY: `src[a..b]` is initialised and only read here.
        unsafe {
            let (s, n, at) = (src.add(a), b - a, split.shift);
            with_field_width!(split.bits, W => if encoded {
                survey::<K, V, C, W, false>(s, n, at)
            } else {
                survey::<K, V, C, W, true>(s, n, at)
            })
        }
    };
    if parallel {
        chunks.par_iter().map(survey_chunk).collect()
    } else {
        chunks.iter().map(survey_chunk).collect()
    }
}

/// The MSD pass's [`Plan`] for the `len` elements at `src` (keys `encoded` or raw), sorted on
/// `digits` [`NARROW`] digits: the highest digit that varies; the [`WIDE_START_BITS`] field
/// at the top, surveyed in the same read, where narrow buckets would outgrow the cache
/// ([`wide_from_the_start`]); or the wider [`WIDE_MSD_BITS`] field at the top where the
/// narrow digit is skewed ([`wide_split`]). `None` when every key is equal.
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
    // One read: the histogram of the highest digit (or of the wide field at the top), and
    // which bits vary at all (the AND and OR of every key). Histograms of the lower digits
    // would be wasted: the buckets recount them while they are in cache.
    let guess = digits - 1;
    let top_bit = NARROW * digits as u32;
    let wide_start = top_bit >= WIDE_START_BITS && wide_from_the_start::<K, V>(len);
    let first = if wide_start {
        Split {
            shift: top_bit - WIDE_START_BITS,
            bits: WIDE_START_BITS,
        }
    } else {
        Split {
            shift: NARROW * guess as u32,
            bits: NARROW,
        }
    };
    // SAFETY: contract of this function.
    let surveys = unsafe { survey_chunks::<K, V, C>(src, first, encoded, parallel, chunks) };
    let varying = surveys.iter().fold(K::ZERO, |acc, s| acc | s.or)
        ^ surveys.iter().fold(K::ONES, |acc, s| acc & s.and);
    let top = (0..digits)
        .rev()
        .find(|&d| varying.digit::<NARROW>(d) != 0)?;
    let surveyed = || surveys.into_iter().map(|s| s.hist).collect::<Vec<_>>();
    if wide_start && top == guess {
        // The top digit varies: the surveyed wide field is the split.
        return Some(plan_offsets(first, &surveyed(), len));
    }
    // Per-chunk histograms of another field: one more read of the keys.
    let count = |split: Split| {
        // SAFETY: contract of this function.
        let surveys = unsafe { survey_chunks::<K, V, C>(src, split, encoded, parallel, chunks) };
        surveys.into_iter().map(|s| s.hist).collect::<Vec<_>>()
    };
    let narrow = Split {
        shift: NARROW * top as u32,
        bits: NARROW,
    };
    let hists = if first == narrow {
        surveyed()
    } else {
        // The highest digit is constant (small numbers in wide keys): count the digit that
        // varies.
        count(narrow)
    };
    let largest_bucket = (0..1usize << NARROW)
        .map(|b| hists.iter().map(|h| h[b]).sum::<usize>())
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

impl Plan {
    /// Buckets of the split.
    pub(super) fn buckets(&self) -> usize {
        1 << self.split.bits
    }

    /// Where bucket `b` starts and ends.
    pub(super) fn bucket(&self, b: usize) -> (usize, usize) {
        (self.bucket_start[b], self.bucket_start[b + 1])
    }

    /// [`NARROW`] digits the buckets are sorted on: those below the split (the top one may
    /// hold bits of the split, the same in every key of a bucket).
    pub(super) fn below(&self) -> usize {
        self.split.shift.div_ceil(NARROW) as usize
    }

    /// Whether a bucket of `n` of the plan's `len` elements of keys `K` and values `V`
    /// takes an MSD pass of its own (and no task buffer): when it is large for this input
    /// (skewed, [`large_bucket`]) and digits remain below.
    pub(super) fn takes_msd<K, V>(&self, n: usize, len: usize) -> bool {
        let eb = elem_bytes::<K, V>();
        large_bucket(n * eb, len * eb, self.buckets()) && self.below() > 1
    }

    /// Whether the buckets' LSD passes take [`WIDE`] digits (from `wide_min_len` elements):
    /// where the machine's widths say so (`bucket_wide`), and always after a split on the
    /// [`WIDE_START_BITS`] field, whose buckets of a few hundred KiB leave room in L2 for
    /// the larger histograms (19 bits of 2^15-key buckets: 2 passes instead of 3). Xeon
    /// host, 16 threads, 2^26 `u64`, M keys/s, best of each of 3 rounds, wide / 8-bit
    /// digits: 762-916 / 782-829 (buckets phase 41 ms; main's narrow split 62). Packed
    /// pairs lost with wide (12-bit) digits there, 804-863 / 869-916, and keep 8 bits.
    pub(super) fn wide_bucket_digits(&self, bucket_wide: bool) -> bool {
        bucket_wide || self.split.bits == WIDE_START_BITS
    }

    /// Elements of the largest bucket sorted in a task's buffer (not [`Plan::takes_msd`]):
    /// the room that buffer needs.
    pub(super) fn largest_in_cache<K, V>(&self, len: usize) -> usize {
        (0..self.buckets())
            .map(|b| self.bucket_start[b + 1] - self.bucket_start[b])
            .filter(|&n| !self.takes_msd::<K, V>(n, len))
            .max()
            .unwrap_or(0)
    }
}

/// Whether the MSD pass over `len` elements takes the [`WIDE_START_BITS`] field at the top
/// from the start, surveyed in the one read that finds the varying bits (no second count):
/// with at least [`WIDE_START_MIN_THREADS`] threads, where a bucket of the [`NARROW`] digit
/// and the buffer its LSD passes ping-pong with would not fit one core's L2
/// (`cache::l2_bytes`), so that those passes would run from L3.
///
/// On the 16-core Xeon host of the H200 machine (2 MiB L2), 16 threads, 2^26 `u64` keys
/// (narrow buckets of 2 MiB), ms: narrow digit: scatter 26-28, buckets 92-95, whole 136-142;
/// a 13-bit split counted by a second read: count 13, scatter 42, buckets 62, whole 133.
/// On the 2-core AMD EPYC (Zen 4, 1 MiB L2), both threads, a 13-bit split lost at these
/// sizes (`u64` 2^26 whole sort 923 against 620-632 ms, 2^27 2018 against 1118; see
/// [`large_bucket`]).
pub(super) fn wide_from_the_start<K, V>(len: usize) -> bool {
    #[cfg(test)]
    if tests_force::WIDE_START.with(|f| f.get()) {
        return true;
    }
    let bucket = len.saturating_mul(elem_bytes::<K, V>()) >> NARROW;
    rayon::current_num_threads() >= WIDE_START_MIN_THREADS
        && bucket.saturating_mul(2) > crate::keys::cache::l2_bytes()
}

/// Bits of the field at the top that large inputs on many threads survey and split on from
/// the start ([`wide_from_the_start`]): 2048 buckets, so that a bucket of 2^26 8-byte
/// elements (256 KiB) and its buffer stay well inside a 2 MiB L2 and take 11-bit LSD digits
/// (2 passes), while the scatter writes through 2048 write-combining blocks of two lines.
/// Xeon host, 16 threads, 2^26, M elements/s, best of each of 3 rounds alternating, against
/// IPS²Ra's parallel sort in the same run (its best 558 `u64`, 571 pairs): `u64` narrow
/// split 615-743, 13 bits 691-755, 11 bits 756-916; pairs of `u32` 643-745 / 714-799 /
/// 869-916. Phases, ms, `u64`: survey 8 / 15, scatter 20 / 23, buckets 41 / 62 (11 bits /
/// narrow).
pub(super) const WIDE_START_BITS: u32 = 11;

/// Threads from which large inputs take the wide field from the start
/// ([`wide_from_the_start`]): the 16 of the Xeon host; two threads of the AMD EPYC lost
/// with a wide split.
pub(super) const WIDE_START_MIN_THREADS: usize = 16;

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
            with_field_width!(split.bits, W => if stream {
                scatter_wc::<K, V, P, W, true>(s, dst, n, at, offs)
            } else {
                scatter_wc::<K, V, P, W, false>(s, dst, n, at, offs)
            })
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
    // Every bucket now sits encoded in `dst`; sort each on the digits below the split.
    // The buckets' passes ping-pong between their place in `dst` and a buffer of the largest
    // bucket's size, one per task, that stays in cache; only the last pass writes to `out`.
    // A bucket that takes an MSD pass of its own needs no task buffer.
    let (plan, below) = (&plan, plan.below());
    let largest = plan.largest_in_cache::<K, V>(len);
    let wide_digits = plan.wide_bucket_digits(bucket_wide);
    let new_tmp = || (Scratch::<K>::new(largest), Scratch::<V>::new(largest));
    let sort_bucket = |tmp: &mut (Scratch<K>, Scratch<V>), b: usize| {
        let (a, e) = plan.bucket(b);
        let n = e - a;
        if n == 0 {
            return;
        }
        // SAFETY: `dst[a..e]` holds this bucket's initialised elements and `src[a..e]` is free
        // room; no other bucket touches these ranges; `tmp` belongs to this task alone and
        // has room for `n` elements unless the bucket takes the MSD route.
        unsafe {
            let (s, d) = (dst.add(a), src.add(a));
            if plan.takes_msd::<K, V>(n, len) {
                msd_lsd::<K, V, C>(s, d, n, below, true, !result_in_dst, bucket_wide);
            } else {
                let out = if result_in_dst { s } else { d };
                let t = Buf {
                    k: tmp.0.as_mut_ptr(),
                    v: tmp.1.as_mut_ptr(),
                };
                if wide_digits && n >= wide_min_len::<K>() {
                    let wide_below = plan.split.shift.div_ceil(WIDE) as usize;
                    lsd::<K, V, C, WIDE>(s, t, out, n, wide_below, true, stream);
                } else {
                    lsd::<K, V, C, NARROW>(s, t, out, n, below, true, stream);
                }
            }
        }
    };
    if parallel {
        (0..plan.buckets())
            .into_par_iter()
            .for_each_init(new_tmp, sort_bucket);
    } else {
        let mut tmp = new_tmp();
        (0..plan.buckets()).for_each(|b| sort_bucket(&mut tmp, b));
    }
}

// Pairs of a 4-byte key and a 4-byte value take the route packed: the MSD pass packs each
// pair into one `u64` (the encoded key in the low half, the value's bits in the high half),
// the buckets are sorted as single words in cache, and the last step unpacks them into the
// caller's keys and values. Keys and values moved apart cost the MSD scatter two
// write-combining buffers and two streams to memory, and every bucket pass two scatters;
// packed, each element is one 8-byte store, as for `u64` keys. Only the key bits are ever
// compared (digits of the low half, never the whole word), so equal keys keep the input
// order of their values.

/// Whether elements of keys `K` and values `V` take the packed route: both 4 bytes wide.
pub(super) const fn packs<K, V>() -> bool {
    std::mem::size_of::<K>() == 4 && std::mem::size_of::<V>() == 4
}

/// Elements of scratch the packed route needs for `len` pairs, counted in keys of 4 bytes:
/// one `u64` per pair, and one key more so that the words can start on an 8-byte boundary.
pub(super) const fn packed_scratch_len(len: usize) -> usize {
    2 * len + 1
}

/// [`Pack`] of a pair into one `u64`: the key encoded by `C` in the low half, the value's
/// bits in the high half.
pub(super) struct Packed<C>(PhantomData<C>);

impl<K: RadixKey, V: Copy, C: Codec<K>> Pack<K, V> for Packed<C> {
    type Key = u64;
    type Value = ();
    #[inline(always)]
    fn pack(k: K, v: V) -> (u64, ()) {
        assert!(
            packs::<K, V>(),
            "only pairs of 4-byte keys and values are packed"
        );
        // SAFETY: `K` and `V` are 4 bytes wide (asserted above, a constant), as is `u32`, and
        // every bit pattern is a valid `u32`.
        let (key, value) = unsafe {
            (
                std::mem::transmute_copy::<K, u32>(&C::encode(k)),
                std::mem::transmute_copy::<V, u32>(&v),
            )
        };
        (u64::from(value) << 32 | u64::from(key), ())
    }
}

/// The decoded key and the value of the packed pair `w`.
#[inline(always)]
fn unpack<K: RadixKey, V: Copy, C: Codec<K>>(w: u64) -> (K, V) {
    assert!(
        packs::<K, V>(),
        "only pairs of 4-byte keys and values are packed"
    );
    let (key, value) = (w as u32, (w >> 32) as u32);
    // SAFETY: `K` and `V` are 4 bytes wide (asserted above), and their bits come from a
    // key and a value of these types ([`Packed::pack`]).
    unsafe {
        (
            C::decode(std::mem::transmute_copy::<u32, K>(&key)),
            std::mem::transmute_copy::<u32, V>(&value),
        )
    }
}

/// The encoded key of the packed pair `w` (whose key is encoded, see [`Packed`]).
#[inline(always)]
fn packed_key(w: u64) -> u32 {
    w as u32
}

/// Sorts the pairs at `src` (keys raw) by the MSD route, packed: one MSD pass into the
/// scratch `scratch` ([`packed_scratch_len`] keys of room) as `u64` words, then each bucket
/// sorted by LSD passes on its key bits in a task buffer and unpacked back into `src`.
/// `digits`: [`NARROW`] digits of the key. A skewed bucket large enough for an MSD pass of
/// its own ([`large_bucket`]) is unpacked into its place in `src` and sorted there by
/// [`msd_lsd`], its packed words' room serving as its scratch.
///
/// # Safety
/// `src` holds `len` initialised pairs; `scratch` has room for [`packed_scratch_len`]`(len)`
/// keys and does not overlap `src`; both belong to the caller alone; [`packs`]`::<K, V>()`.
pub(super) unsafe fn msd_packed<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>>(
    src: Buf<K, V>,
    scratch: *mut K,
    len: usize,
    digits: usize,
    bucket_wide: bool,
) {
    assert!(
        packs::<K, V>(),
        "only pairs of 4-byte keys and values are packed"
    );
    // The words start on the first 8-byte boundary of the scratch (one key of slack).
    let words = scratch
        .cast::<u8>()
        .wrapping_add(scratch.cast::<u8>().align_offset(8))
        .cast::<u64>();
    let (parallel, chunks) = msd_chunks(len);
    // SAFETY: contract of this function.
    let Some(mut plan) = (unsafe { plan::<K, V, C>(src, len, digits, false, parallel, &chunks) })
    else {
        // Every key is equal: the raw pairs in `src` are sorted already.
        return;
    };
    let stream = len * elem_bytes::<K, V>() >= STREAM_MIN_BYTES;
    let unit = std::ptr::NonNull::<()>::dangling().as_ptr();
    let packed = Buf { k: words, v: unit };
    // SAFETY: `words` has room for `len` words inside the scratch, 8-byte aligned, disjoint
    // from `src`; the plan was made from `src` and `chunks`.
    unsafe {
        scatter_chunks::<K, V, Packed<C>>(src, packed, &mut plan, parallel, &chunks, stream);
    }
    // The packed buckets keep 8-bit digits after the wide start too (`Plan::wide_bucket_digits`).
    let (plan, below) = (&plan, plan.below());
    let largest = plan.largest_in_cache::<K, V>(len);
    let sort_one = |tmp: &mut Scratch<u64>, b: usize| {
        let (a, e) = plan.bucket(b);
        let n = e - a;
        if n == 0 {
            return;
        }
        // SAFETY: `a < len`: inside the words.
        let bucket = unsafe { packed.add(a).k };
        // SAFETY: `bucket[..n]` holds this bucket's packed pairs and `src[a..e]` is free room
        // (its pairs were packed); no other bucket touches these ranges; `tmp` belongs to
        // this task alone and has room for `n` words unless the bucket takes the MSD route.
        unsafe {
            let out = src.add(a);
            if plan.takes_msd::<K, V>(n, len) {
                // The words' `8n` bytes serve as the bucket's scratch: `n` keys, then `n`
                // values (4-byte aligned, as are keys and values of 4 bytes).
                let keys = bucket.cast::<K>();
                let room = Buf {
                    k: keys,
                    v: keys.add(n).cast::<V>(),
                };
                unpack_keys_encoded::<K, V>(bucket, out, n);
                msd_lsd::<K, V, C>(out, room, n, below, true, false, bucket_wide);
            } else if bucket_wide {
                sort_packed_bucket::<K, V, C, PACKED_WIDE>(
                    bucket,
                    tmp.as_mut_ptr(),
                    out,
                    n,
                    plan.split.shift,
                    stream,
                );
            } else {
                sort_packed_bucket::<K, V, C, NARROW>(
                    bucket,
                    tmp.as_mut_ptr(),
                    out,
                    n,
                    plan.split.shift,
                    stream,
                );
            }
        }
    };
    let new_tmp = || Scratch::<u64>::new(largest);
    if parallel {
        (0..plan.buckets())
            .into_par_iter()
            .for_each_init(new_tmp, sort_one);
    } else {
        let mut tmp = new_tmp();
        (0..plan.buckets()).for_each(|b| sort_one(&mut tmp, b));
    }
}

/// Digit width of the packed buckets' LSD passes where the buckets take wide digits: 12 bits,
/// two passes for the 24 key bits below an 8-bit MSD digit (11-bit digits would need three,
/// and a third digit would reach into the value bits above the key).
const PACKED_WIDE: u32 = 12;

/// Sorts the `len` packed pairs at `bucket` by the key bits below `bits` (the bits above are
/// the same in every pair of the bucket), stably ([`sort_words`] with `tmp`), and unpacks the
/// result into `out` (streaming when `stream`).
///
/// # Safety
/// `bucket` holds `len` initialised packed pairs; `tmp` has room for `len`; `out` has room
/// for `len` pairs; none overlap and all belong to the caller alone; `bits <= 32` and the
/// digits covering them stay inside the key: `W * ceil(bits / W) <= 32`.
unsafe fn sort_packed_bucket<K: RadixKey, V: Copy, C: Codec<K>, const W: u32>(
    bucket: *mut u64,
    tmp: *mut u64,
    out: Buf<K, V>,
    len: usize,
    bits: u32,
    stream: bool,
) {
    // SAFETY: contract of this function.
    unsafe {
        let sorted = sort_words::<W>(bucket, tmp, len, bits);
        unpack_into::<K, V, C>(sorted, out, len, stream);
    }
}

/// Stable insertion sort of the `len` packed pairs at `words` by their keys.
///
/// # Safety
/// `words` holds `len` initialised packed pairs owned by the caller.
unsafe fn insert_words(words: *mut u64, len: usize) {
    // SAFETY: caller's contract.
    let words = unsafe { std::slice::from_raw_parts_mut(words, len) };
    for i in 1..len {
        let w = words[i];
        let mut j = i;
        while j > 0 && packed_key(words[j - 1]) > packed_key(w) {
            words[j] = words[j - 1];
            j -= 1;
        }
        words[j] = w;
    }
}

/// Sorts the `len` packed pairs at `words` by the key bits below `bits`, stably, with LSD
/// passes of `W`-bit digits that ping-pong with `tmp`; returns where the result lies
/// (`words` or `tmp`). As the LSD sorts do (`first_digit`), the passes stop at the digits
/// that tell the keys apart (`log2(len) + PREFIX_SLACK_BITS` varying bits) and the runs of
/// keys that agree on them are finished by key alone: insertion sort, or this sort on the
/// digits below for a long run. 4096-pair buckets (2^20 pairs) take 2 passes instead of 3.
///
/// # Safety
/// As [`sort_packed_bucket`], without `out`.
unsafe fn sort_words<const W: u32>(
    words: *mut u64,
    tmp: *mut u64,
    len: usize,
    bits: u32,
) -> *mut u64 {
    if len <= INSERTION_MAX_LEN {
        // SAFETY: `words` holds `len` pairs owned by the caller.
        unsafe { insert_words(words, len) };
        return words;
    }
    let digits = bits.div_ceil(W) as usize;
    debug_assert!(W * digits as u32 <= 32, "digits reach into the value bits");
    let unit = std::ptr::NonNull::<()>::dangling().as_ptr();
    let keys = Buf { k: words, v: unit };
    // SAFETY: `words` holds `len` initialised words; the values are zero-sized.
    let count = |a: usize, b: usize| unsafe {
        count_all::<u64, (), Unsigned, W, false>(keys, len, a, b).split_off(a)
    };
    let low = first_digit::<u32, W>(len, digits, || {
        // SAFETY: as above.
        let all = unsafe { std::slice::from_raw_parts(words, len) };
        let (and, or) = all.iter().fold((u32::MAX, 0u32), |(a, o), &w| {
            (a & packed_key(w), o | packed_key(w))
        });
        and ^ or
    });
    let kept = count(low, digits);
    let (low, lowered) = lower_first_digit(len, low, &kept, count);
    let hists: Vec<Vec<usize>> = lowered.into_iter().chain(kept).collect();
    let (mut cur, mut other) = (words, tmp);
    for (i, h) in hists.iter().enumerate() {
        if h.contains(&len) {
            // The digit is the same in every pair: the pass would move nothing.
            continue;
        }
        let mut offsets = exclusive_prefix(h);
        // SAFETY: `cur` holds the `len` words; the offsets are the exclusive prefix of this
        // digit's histogram over exactly them, so every write lands in `other[..len]`.
        unsafe {
            scatter::<u64, (), Unsigned, W, false, false>(
                Buf { k: cur, v: unit },
                Buf { k: other, v: unit },
                len,
                low + i,
                &mut offsets,
            )
        };
        std::mem::swap(&mut cur, &mut other);
    }
    if low > 0 {
        // SAFETY: `cur` holds the `len` words sorted by the digits from `low` up; `other`
        // is free room of `len` words.
        unsafe { finish_word_runs::<W>(cur, other, len, low) };
    }
    cur
}

/// Sorts every run of the `len` packed pairs at `words` whose keys agree above their
/// `low_digits` lowest `W`-bit digits by key alone, stably, in place: insertion sort for
/// short runs, [`sort_words`] on the low digits for long ones (through `tmp`).
///
/// # Safety
/// `words` holds `len` initialised packed pairs; `tmp` has room for `len` and does not
/// overlap it; both belong to the caller alone.
unsafe fn finish_word_runs<const W: u32>(
    words: *mut u64,
    tmp: *mut u64,
    len: usize,
    low_digits: usize,
) {
    let shift = W * low_digits as u32;
    // SAFETY: `i + 1 < len`, inside the caller's `len` words.
    let same = |i: usize| unsafe {
        (packed_key(*words.add(i)) ^ packed_key(*words.add(i + 1))) >> shift == 0
    };
    let mut i = 0;
    while i + 1 < len {
        if !same(i) {
            i += 1;
            continue;
        }
        let mut end = i + 2;
        while end < len && same(end - 1) {
            end += 1;
        }
        // SAFETY: `words[i..end]` is initialised and ours; `tmp[i..end]` is free room.
        unsafe {
            let (run, room, n) = (words.add(i), tmp.add(i), end - i);
            if n <= INSERTION_MAX_LEN {
                insert_words(run, n);
            } else if sort_words::<W>(run, room, n, shift) != run {
                std::ptr::copy_nonoverlapping(room, run, n);
            }
        }
        i = end;
    }
}

/// Unpacks `len` words at `from` into `out`, decoding the keys; with `stream`, the whole
/// cache lines of each array are written with non-temporal stores (the lines at either
/// end, which a neighbouring bucket may share, with plain ones).
///
/// # Safety
/// `from` holds `len` initialised packed pairs; `out` has room for `len` pairs and does not
/// overlap it.
unsafe fn unpack_into<K: RadixKey, V: Copy, C: Codec<K>>(
    from: *const u64,
    out: Buf<K, V>,
    len: usize,
    stream: bool,
) {
    // SAFETY: `i < len` reads initialised words (caller's contract).
    let pair = |i: usize| unsafe { unpack::<K, V, C>(*from.add(i)) };
    // SAFETY: `out.k` and `out.v` have room for `len` elements (caller's contract).
    unsafe {
        if stream {
            write_lines(out.k, len, |i| pair(i).0);
            write_lines(out.v, len, |i| pair(i).1);
            fence_streams();
        } else {
            for i in 0..len {
                let (k, v) = pair(i);
                out.k.add(i).write(k);
                out.v.add(i).write(v);
            }
        }
    }
}

/// Writes `at(i)` to `to[i]` for `i < len`, whole 64-byte lines of `to` with non-temporal
/// stores through a line in L1, the partial lines at either end with plain stores.
///
/// An array not aligned to its elements' size (a value type of 4 bytes with a smaller
/// alignment) has no whole lines to stream and is written with plain stores.
///
/// # Safety
/// `to` has room for `len` elements of 4 bytes.
#[inline(always)]
unsafe fn write_lines<T: Copy>(to: *mut T, len: usize, at: impl Fn(usize) -> T) {
    let size = std::mem::size_of::<T>();
    let per_line = LINE_BYTES / size;
    let head = if (to as usize).is_multiple_of(size) {
        ((LINE_BYTES - to as usize % LINE_BYTES) % LINE_BYTES / size).min(len)
    } else {
        len
    };
    let lines = (len - head) / per_line;
    // One line's elements, gathered in L1 (`stream_line` reads any alignment).
    let mut line = [0u32; LINE_BYTES / 4];
    let buf = line.as_mut_ptr().cast::<T>();
    // SAFETY: every write stays within `to[..len]`; the streamed lines start at
    // `to + head`, which is 64-byte aligned; `buf` holds one line of `T`s.
    unsafe {
        for i in 0..head {
            to.add(i).write(at(i));
        }
        for l in 0..lines {
            let first = head + l * per_line;
            for j in 0..per_line {
                buf.add(j).write(at(first + j));
            }
            stream_line(buf.cast::<u8>(), to.add(first).cast::<u8>());
        }
        for i in head + lines * per_line..len {
            to.add(i).write(at(i));
        }
    }
}

/// Unpacks `len` words at `from` into `out` with their keys still encoded (for
/// [`msd_lsd`] on `encoded` input).
///
/// # Safety
/// As [`unpack_into`].
unsafe fn unpack_keys_encoded<K: RadixKey, V: Copy>(from: *const u64, out: Buf<K, V>, len: usize) {
    for i in 0..len {
        // SAFETY: caller's contract; `Unsigned` decodes nothing.
        unsafe {
            let (k, v) = unpack::<K, V, EncodedAsIs>(*from.add(i));
            out.k.add(i).write(k);
            out.v.add(i).write(v);
        }
    }
}

/// The identity codec: keys that stay encoded as they are.
struct EncodedAsIs;

impl<K> Codec<K> for EncodedAsIs {
    #[inline(always)]
    fn encode(k: K) -> K {
        k
    }
    #[inline(always)]
    fn decode(k: K) -> K {
        k
    }
}

/// Test-only switches of the MSD route's choices, per thread.
#[cfg(test)]
pub(super) mod tests_force {
    thread_local! {
        /// Every MSD pass planned on this thread takes the wide field from the start.
        pub(in crate::keys::radix) static WIDE_START: std::cell::Cell<bool> =
            const { std::cell::Cell::new(false) };
    }
}
