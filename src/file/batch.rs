//! The merge's inner work, on keys in memory: choosing how many keys of each sorted
//! segment make up the first `rank` keys of their merge (by bisecting the keys' unsigned
//! images), and merging segments into a slice, split over the rayon threads by those cuts
//! so that every thread writes its own part of the output.
//!
//! A single loser tree merges about one key per 10 ns on the build machine: one core could
//! not keep up with the disk, so each batch of the merge is cut by rank into one piece per
//! thread, and the pieces are merged at once.

use rayon::prelude::*;

use super::codec::FileKey;
use super::merge::{before, sentinel};
use crate::KeyWidth;

/// Below this many keys a batch is merged on the calling thread: splitting it costs more
/// than the threads save.
const MIN_PIECE_KEYS: usize = 1 << 12;

/// The key's order-preserving unsigned image, inverted for a descending merge, so that the
/// merge's order is the images' ascending order.
#[inline(always)]
pub(crate) fn image<K: FileKey, const DESC: bool>(key: K) -> u64 {
    let bits = match K::WIDTH {
        KeyWidth::W32 => u64::from(K::MAP.encode32(bytemuck::cast::<K, u32>(key))),
        KeyWidth::W64 => K::MAP.encode64(bytemuck::cast::<K, u64>(key)),
    };
    if DESC {
        !bits
    } else {
        bits
    }
}

/// How many keys of each segment have an image `<= v`.
fn count_le<K: FileKey, const DESC: bool>(segs: &[&[K]], v: u64) -> usize {
    segs.iter()
        .map(|s| s.partition_point(|&k| image::<K, DESC>(k) <= v))
        .sum()
}

/// Cuts `segs` (each sorted in the merge's order) so that the prefixes `segs[i][..cut[i]]`
/// hold `rank` keys and none of them goes after a key left behind: the first `rank` keys of
/// the merge. Equal keys at the boundary are taken from the first segments first.
pub(crate) fn select<K: FileKey, const DESC: bool>(segs: &[&[K]], rank: usize) -> Vec<usize> {
    let total: usize = segs.iter().map(|s| s.len()).sum();
    assert!(rank <= total, "rank {rank} beyond {total} keys");
    if rank == 0 {
        return vec![0; segs.len()];
    }
    if rank == total {
        return segs.iter().map(|s| s.len()).collect();
    }
    // The smallest image v with at least `rank` keys <= v, between the smallest first key
    // and the largest last key (where the count is `total` >= rank).
    let ends = |end: fn(&[K]) -> Option<&K>| {
        segs.iter()
            .filter_map(move |s| end(s))
            .map(|&k| image::<K, DESC>(k))
    };
    let mut lo = ends(<[K]>::first).min().unwrap_or(0);
    let mut hi = ends(<[K]>::last).max().unwrap_or(0);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if count_le::<K, DESC>(segs, mid) >= rank {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    // Every key below `lo`, then as many keys equal to it as the rank still needs (equal
    // keys are the same bits, so which segment gives them does not change the output).
    let mut cuts: Vec<usize> = segs
        .iter()
        .map(|s| s.partition_point(|&k| image::<K, DESC>(k) < lo))
        .collect();
    let mut need = rank - cuts.iter().sum::<usize>();
    for (cut, s) in cuts.iter_mut().zip(segs) {
        if need == 0 {
            break;
        }
        let equal = s.partition_point(|&k| image::<K, DESC>(k) <= lo) - *cut;
        let take = equal.min(need);
        *cut += take;
        need -= take;
    }
    debug_assert_eq!(need, 0, "count_le(lo) >= rank");
    cuts
}

/// Merges `segs` (each sorted in the merge's order, `out.len()` keys in all) into `out`,
/// in `pieces` pieces merged at once on the rayon threads (the pool installed, if any).
pub(crate) fn merge_into<K: FileKey, const DESC: bool>(
    segs: &[&[K]],
    out: &mut [K],
    pieces: usize,
) {
    let n = out.len();
    let pieces = pieces.min(n / MIN_PIECE_KEYS).max(1);
    if pieces == 1 {
        merge_slices::<K, DESC>(segs, out);
        return;
    }
    // Piece p takes the keys of rank [n*p/pieces, n*(p+1)/pieces): cut every segment at
    // each boundary, and hand each piece its own part of `out`.
    let mut bounds = vec![vec![0; segs.len()]];
    for p in 1..pieces {
        bounds.push(select::<K, DESC>(segs, n * p / pieces));
    }
    bounds.push(segs.iter().map(|s| s.len()).collect());
    let mut work = Vec::with_capacity(pieces);
    let mut rest = out;
    for p in 0..pieces {
        let parts: Vec<&[K]> = segs
            .iter()
            .enumerate()
            .map(|(i, s)| &s[bounds[p][i]..bounds[p + 1][i]])
            .collect();
        let len: usize = parts.iter().map(|s| s.len()).sum();
        let (mine, others) = rest.split_at_mut(len);
        rest = others;
        work.push((parts, mine));
    }
    work.into_par_iter()
        .for_each(|(parts, mine)| merge_slices::<K, DESC>(&parts, mine));
}

/// Merges `segs` into `out` (`out.len()` keys in all) on this thread.
fn merge_slices<K: FileKey, const DESC: bool>(segs: &[&[K]], out: &mut [K]) {
    let live: Vec<&[K]> = segs.iter().copied().filter(|s| !s.is_empty()).collect();
    match live.len() {
        0 => debug_assert!(out.is_empty()),
        1 => out.copy_from_slice(live[0]),
        2 => merge_two::<K, DESC>(live[0], live[1], out),
        _ => merge_tree::<K, DESC>(&live, out),
    }
}

/// Two segments: a compare and a select per key, no branch on the keys.
fn merge_two<K: FileKey, const DESC: bool>(a: &[K], b: &[K], out: &mut [K]) {
    let (mut i, mut j) = (0, 0);
    for slot in out.iter_mut() {
        // Exhausted sides compare as never first; both cannot be exhausted while a slot is
        // left, since out.len() == a.len() + b.len().
        let take_b = i == a.len() || (j < b.len() && before::<K, DESC>(&b[j], &a[i]));
        *slot = if take_b { b[j] } else { a[i] };
        j += usize::from(take_b);
        i += usize::from(!take_b);
    }
}

/// A loser tree over the segments (as the disk merge had: node `n` holds the loser of its
/// match as (key, segment), exhausted segments show the [`sentinel`]).
fn merge_tree<K: FileKey, const DESC: bool>(segs: &[&[K]], out: &mut [K]) {
    let k = segs.len();
    let last = sentinel::<K, DESC>();
    let mut pos = vec![0usize; k];
    let mut wins = vec![(last, 0u32); 2 * k];
    for (i, s) in segs.iter().enumerate() {
        wins[k + i] = (s[0], i as u32);
    }
    let mut tree = vec![(last, 0u32); k];
    for n in (1..k).rev() {
        let (a, b) = (wins[2 * n], wins[2 * n + 1]);
        let b_wins = before::<K, DESC>(&b.0, &a.0);
        tree[n] = if b_wins { a } else { b };
        wins[n] = if b_wins { b } else { a };
    }
    let mut winner = wins[1];
    for slot in out.iter_mut() {
        let (key, run) = winner;
        *slot = key;
        let run = run as usize;
        let p = &mut pos[run];
        *p += 1;
        let s = segs[run];
        let next = if *p < s.len() { s[*p] } else { last };
        let mut cur = (next, run as u32);
        let mut node = (run + k) >> 1;
        while node > 0 {
            let other = tree[node];
            let other_wins = before::<K, DESC>(&other.0, &cur.0);
            tree[node] = if other_wins { cur } else { other };
            cur = if other_wins { other } else { cur };
            node >>= 1;
        }
        winner = cur;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<K: FileKey + PartialEq, const DESC: bool>(segs: &[Vec<K>], pieces: usize) {
        let refs: Vec<&[K]> = segs.iter().map(|s| s.as_slice()).collect();
        let mut want: Vec<K> = segs.concat();
        want.sort_by(|a, b| if DESC { b.key_cmp(a) } else { a.key_cmp(b) });
        let mut got = vec![K::default(); want.len()];
        merge_into::<K, DESC>(&refs, &mut got, pieces);
        let same = got.iter().zip(&want).all(|(a, b)| a.key_cmp(b).is_eq());
        assert!(same, "merge of {} segments in {pieces} pieces", segs.len());
        // Every rank cuts to a prefix of the merge.
        for rank in [0, 1, want.len() / 3, want.len() / 2, want.len()] {
            let cuts = select::<K, DESC>(&refs, rank);
            assert_eq!(cuts.iter().sum::<usize>(), rank);
            for (i, &c) in cuts.iter().enumerate() {
                for (j, &d) in cuts.iter().enumerate() {
                    if c > 0 && d < segs[j].len() {
                        assert!(!before::<K, DESC>(&segs[j][d], &segs[i][c - 1]));
                    }
                }
            }
        }
    }

    fn sorted<K: FileKey>(mut v: Vec<K>, desc: bool) -> Vec<K> {
        v.sort_by(|a, b| if desc { b.key_cmp(a) } else { a.key_cmp(b) });
        v
    }

    #[test]
    fn merges_match_a_sort_in_every_split() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for k in [1usize, 2, 3, 5, 8] {
            let lens: Vec<usize> = (0..k).map(|i| 40_000 + i * 7_919).collect();
            let u: Vec<Vec<u64>> = lens
                .iter()
                .map(|&n| sorted((0..n).map(|_| next() % 1000).collect(), false))
                .collect();
            check::<u64, false>(&u, 1);
            check::<u64, false>(&u, 3);
            let f: Vec<Vec<f32>> = lens
                .iter()
                .map(|&n| {
                    let keys = (0..n).map(|_| f32::from_bits(next() as u32)).collect();
                    sorted(keys, true)
                })
                .collect();
            check::<f32, true>(&f, 4);
            let i: Vec<Vec<i32>> = lens
                .iter()
                .map(|&n| sorted((0..n).map(|_| next() as i32).collect(), true))
                .collect();
            check::<i32, true>(&i, 2);
        }
        // All keys equal, and segments of which some are empty.
        check::<u32, false>(&[vec![7; 70_000], vec![], vec![7; 5]], 2);
    }
}
