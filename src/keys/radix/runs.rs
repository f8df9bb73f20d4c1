//! Inputs made of a few sorted runs (sorted data, reversed data, two sorted halves one after
//! the other, an organ pipe, a sorted slice with a sorted tail appended): found by one scan
//! that stops early on other inputs, then reversed or merged, one read and one write per
//! round of merges, instead of the radix passes, which such inputs make slower than random
//! keys (runs of one digit serialise the counters and the bucket positions).

use rayon::prelude::*;

use super::digits::{Buf, Codec, RadixKey};
use crate::keys::sampling::{run_end, sample_is_monotonic};

/// Inputs of at most this many runs are merged (two rounds of merges at most, the traffic
/// of the MSD route's two reads and two writes with no counting).
pub(super) const MAX_RUNS: usize = 4;

/// Merges of at least this many elements are split over the rayon threads, one piece of
/// the output per thread, each piece's start found by a binary search in both runs.
const PARALLEL_MERGE_MIN_LEN: usize = 1 << 16;

/// The runs of a slice: run `r` is `bounds[r]..bounds[r + 1]`, ascending, or descending
/// where `descending[r]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Runs {
    pub(super) count: usize,
    bounds: [usize; MAX_RUNS + 1],
    descending: [bool; MAX_RUNS],
}

impl Runs {
    /// No runs yet: what the scans start from.
    const NONE: Runs = Runs {
        count: 0,
        bounds: [0; MAX_RUNS + 1],
        descending: [false; MAX_RUNS],
    };
}

/// Slices of at least this many elements are scanned for runs, and their descending runs
/// reversed, on all rayon threads, one piece each. On one thread the scan of sorted keys
/// took as long as the radix passes over random keys on the 16 threads of the Xeon host:
/// `auto`, time / random keys' time at 2^20 / 2^24, one thread -> all threads: ascending
/// 0.54-0.90 / 0.78-1.19 -> 0.12-0.17 / 0.09-0.11, descending 0.60-1.26 / 1.08-2.23 ->
/// 0.20-0.31 / 0.13-0.24, organ pipe 1.00-1.67 / 1.31-2.27 -> 0.42-0.60 / 0.49-0.64. From
/// 2^18 keys the scan on one thread (tenths of a millisecond) dwarfs handing the pieces to
/// the threads (microseconds); shorter slices were not measured.
const PARALLEL_SCAN_MIN_LEN: usize = 1 << 18;

/// The threads that scan or reverse `len` elements: all of rayon's from
/// [`PARALLEL_SCAN_MIN_LEN`], else one. The length is looked at first, because asking for
/// the thread count starts rayon's pool.
fn threads_for(len: usize) -> usize {
    if len < PARALLEL_SCAN_MIN_LEN {
        1
    } else {
        rayon::current_num_threads()
    }
}

/// The runs of `keys` in the order of `C`, if there are at most [`MAX_RUNS`]. A run is
/// non-descending, or descending: strictly, unless `keys_only` (reversing a run of equal
/// keys would swap their values). One scan, which stops at the run after the last allowed:
/// on random keys after a few elements; long slices are scanned in pieces on all threads
/// once their start has shown few runs.
pub(super) fn find_runs<K: RadixKey, C: Codec<K>>(keys: &[K], keys_only: bool) -> Option<Runs> {
    let threads = threads_for(keys.len());
    if threads == 1 {
        return find_runs_serial::<K, C>(keys, keys_only);
    }
    // Random keys give up within the first few elements, on this thread.
    find_runs_serial::<K, C>(&keys[..PARALLEL_SCAN_MIN_LEN / 64], keys_only)?;
    let piece = keys.len().div_ceil(threads);
    let pieces: Option<Vec<Runs>> = keys
        .par_chunks(piece)
        .map(|p| find_runs_serial::<K, C>(p, keys_only))
        .collect();
    join_pieces::<K, C>(keys, piece, &pieces?, keys_only)
}

/// The run of `keys` if they are one run (keys only: equal keys may stand in a descending
/// run). A sample is looked at first ([`sample_is_monotonic`]), so that inputs of a few long
/// runs are not scanned to their end.
pub(super) fn find_one_run<K: RadixKey, C: Codec<K>>(keys: &[K]) -> Option<Runs> {
    if !sample_is_monotonic(keys, C::encode) {
        return None;
    }
    find_runs::<K, C>(keys, true).filter(|r| r.count == 1)
}

/// The runs of `keys` from the runs of its pieces of `piece` elements: a piece's first run
/// continues the run before it where both go the same way across the boundary. `None` past
/// [`MAX_RUNS`] (also where a run split at a boundary in the rare way the serial scan would
/// not split it: sorting them is then the radix passes' job, which is always correct).
fn join_pieces<K: RadixKey, C: Codec<K>>(
    keys: &[K],
    piece: usize,
    pieces: &[Runs],
    keys_only: bool,
) -> Option<Runs> {
    let enc = |i: usize| C::encode(keys[i]);
    let mut runs = Runs::NONE;
    for (p, part) in pieces.iter().enumerate() {
        let start = p * piece;
        for r in 0..part.count {
            let (end, descending) = (start + part.bounds[r + 1], part.descending[r]);
            let continues =
                r == 0 && runs.count > 0 && runs.descending[runs.count - 1] == descending && {
                    let (x, y) = (enc(start - 1), enc(start));
                    if descending {
                        x > y || (keys_only && x == y)
                    } else {
                        x <= y
                    }
                };
            if continues {
                runs.bounds[runs.count] = end;
                continue;
            }
            if runs.count == MAX_RUNS {
                return None;
            }
            runs.descending[runs.count] = descending;
            runs.count += 1;
            runs.bounds[runs.count] = end;
        }
    }
    Some(runs)
}

/// [`find_runs`] on the calling thread.
fn find_runs_serial<K: RadixKey, C: Codec<K>>(keys: &[K], keys_only: bool) -> Option<Runs> {
    let n = keys.len();
    let enc = |i: usize| C::encode(keys[i]);
    let mut runs = Runs::NONE;
    let mut i = 0;
    while i < n {
        if runs.count == MAX_RUNS {
            return None;
        }
        // Keys only: equal keys at the start of a run take the direction of what follows.
        let mut first = i;
        while keys_only && first + 1 < n && enc(first) == enc(first + 1) {
            first += 1;
        }
        let descending = first + 1 < n && enc(first) > enc(first + 1);
        // Keys only: a descending run may hold equal keys (reversing them swaps no values).
        i = match (descending, keys_only) {
            (false, _) => run_end(keys, first, |a, b| C::encode(a) <= C::encode(b)),
            (true, true) => run_end(keys, first, |a, b| C::encode(a) >= C::encode(b)),
            (true, false) => run_end(keys, first, |a, b| C::encode(a) > C::encode(b)),
        };
        runs.descending[runs.count] = descending;
        runs.count += 1;
        runs.bounds[runs.count] = i;
    }
    Some(runs)
}

/// Reverses the descending runs of `data` in place; the input is sorted if it is one run.
///
/// # Safety
/// `data` must hold the initialised elements `runs` was found in, owned by the caller.
pub(super) unsafe fn reverse_descending<K: Send + Sync, V: Send + Sync>(
    data: Buf<K, V>,
    runs: &Runs,
) {
    for r in 0..runs.count {
        let (a, e) = (runs.bounds[r], runs.bounds[r + 1]);
        if runs.descending[r] {
            // SAFETY: `a..e` lies inside the caller's elements.
            unsafe {
                reverse(data.k.add(a), e - a);
                reverse(data.v.add(a), e - a);
            }
        }
    }
}

/// Reverses `len` elements at `p`; long ones on all rayon threads, each swapping a piece of
/// the first half with its mirror in the second.
///
/// # Safety
/// `p` points to `len` initialised elements owned by the caller.
unsafe fn reverse<T: Send + Sync>(p: *mut T, len: usize) {
    let threads = threads_for(len);
    if threads == 1 {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(p, len).reverse() };
        return;
    }
    let half = len / 2;
    let piece = half.div_ceil(threads);
    // SAFETY: the caller's contract; the first half and the rest do not overlap.
    let (front, back) = unsafe {
        (
            std::slice::from_raw_parts_mut(p, half),
            std::slice::from_raw_parts_mut(p.add(len - half), half),
        )
    };
    // Piece `t` of the front mirrors piece `t` of the back counted from its end.
    front
        .par_chunks_mut(piece)
        .zip(back.par_rchunks_mut(piece))
        .for_each(|(f, b)| {
            let m = f.len();
            for j in 0..m {
                std::mem::swap(&mut f[j], &mut b[m - 1 - j]);
            }
        });
}

/// Sorts `data[..n]`, whose (ascending, after [`reverse_descending`]) runs are `runs`, by
/// stable merges of neighbouring runs, ping-ponging with `scratch`; the result ends in
/// `data`.
///
/// # Safety
/// `data` holds `n` initialised elements, `scratch` room for `n`; both are exclusively the
/// caller's and do not overlap.
pub(super) unsafe fn merge_runs<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>>(
    data: Buf<K, V>,
    scratch: Buf<K, V>,
    n: usize,
    runs: &Runs,
) {
    let mut bounds: Vec<usize> = runs.bounds[..=runs.count].to_vec();
    let (mut src, mut dst) = (data, scratch);
    while bounds.len() > 2 {
        // Runs `r` and `r + 1` (bounds `r..=r + 2`) become one; a last odd run is copied.
        let mut next = vec![0];
        for r in (0..bounds.len() - 1).step_by(2) {
            let (a, m) = (bounds[r], bounds[r + 1]);
            let e = bounds.get(r + 2).copied().unwrap_or(m);
            // SAFETY: `a..m` and `m..e` are sorted runs of `src`; `dst[a..e]` is free room.
            unsafe { merge::<K, V, C>(src.add(a), m - a, src.add(m), e - m, dst.add(a)) };
            next.push(e);
        }
        bounds = next;
        std::mem::swap(&mut src, &mut dst);
    }
    if src.k != data.k {
        // SAFETY: `src` (the scratch) holds the `n` sorted elements; `data` has room.
        unsafe { merge::<K, V, C>(src, n, src.add(n), 0, data) };
    }
}

/// Merges the sorted runs `a[..la]` and `b[..lb]` into `out[..la + lb]`, stably (`a` first
/// among equal keys); over the rayon threads when long.
///
/// # Safety
/// `a` and `b` hold `la` and `lb` initialised elements, `out` room for `la + lb` elements
/// that no other thread touches and that overlaps neither.
unsafe fn merge<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>>(
    a: Buf<K, V>,
    la: usize,
    b: Buf<K, V>,
    lb: usize,
    out: Buf<K, V>,
) {
    let n = la + lb;
    let threads = rayon::current_num_threads();
    if n < PARALLEL_MERGE_MIN_LEN || threads == 1 {
        // SAFETY: the caller's contract.
        unsafe { merge_serial::<K, V, C>(a, la, b, lb, out) };
        return;
    }
    // SAFETY: the caller guarantees `la` and `lb` initialised keys.
    let (ka, kb) = unsafe {
        (
            std::slice::from_raw_parts(a.k, la),
            std::slice::from_raw_parts(b.k, lb),
        )
    };
    // How many of the first `k` outputs come from `a`: the first `i` such that `a[i]` goes
    // after `b[k - i - 1]` (ties go to `a` first).
    let split = |k: usize| {
        let (mut lo, mut hi) = (k.saturating_sub(lb), k.min(la));
        while lo < hi {
            let mid = (lo + hi) / 2;
            if C::encode(ka[mid]) <= C::encode(kb[k - mid - 1]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    (0..threads).into_par_iter().for_each(|t| {
        let (k0, k1) = (n * t / threads, n * (t + 1) / threads);
        let (i0, i1) = (split(k0), split(k1));
        let (j0, j1) = (k0 - i0, k1 - i1);
        // SAFETY: the pieces `a[i0..i1]`, `b[j0..j1]` are inside the runs, and the outputs
        // `out[k0..k1]` of different pieces do not overlap.
        unsafe {
            merge_serial::<K, V, C>(a.add(i0), i1 - i0, b.add(j0), j1 - j0, out.add(k0));
        }
    });
}

/// [`merge`] on the calling thread; branch-free selection of the next element.
///
/// # Safety
/// As [`merge`].
unsafe fn merge_serial<K: RadixKey, V: Copy, C: Codec<K>>(
    a: Buf<K, V>,
    la: usize,
    b: Buf<K, V>,
    lb: usize,
    out: Buf<K, V>,
) {
    let (mut i, mut j) = (0, 0);
    // SAFETY: `i < la` and `j < lb` inside the loop; `i + j < la + lb` outputs.
    unsafe {
        while i < la && j < lb {
            let (x, y) = (*a.k.add(i), *b.k.add(j));
            let take_b = C::encode(y) < C::encode(x);
            let (k, v) = if take_b {
                (y, *b.v.add(j))
            } else {
                (x, *a.v.add(i))
            };
            out.k.add(i + j).write(k);
            out.v.add(i + j).write(v);
            i += usize::from(!take_b);
            j += usize::from(take_b);
        }
        let o = out.add(i + j);
        std::ptr::copy_nonoverlapping(a.k.add(i), o.k, la - i);
        std::ptr::copy_nonoverlapping(a.v.add(i), o.v, la - i);
        let o = o.add(la - i);
        std::ptr::copy_nonoverlapping(b.k.add(j), o.k, lb - j);
        std::ptr::copy_nonoverlapping(b.v.add(j), o.v, lb - j);
    }
}
