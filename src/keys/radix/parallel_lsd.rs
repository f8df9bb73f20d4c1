//! LSD passes split over all rayon threads, each pass one chunk per thread with its own
//! histogram and offsets.

use rayon::prelude::*;

use super::count::*;
use super::digits::*;
use super::lsd::*;
use super::scatter::*;

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
