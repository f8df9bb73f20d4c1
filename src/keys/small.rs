//! Counting sort for 1- and 2-byte keys (`u8`, `i8`, `u16`, `i16`): one read counts every
//! key, one write lays the runs out, ascending or descending. No comparison sort and no
//! radix pass beats that traffic: a 2^24-key sort moves what a copy of the slice moves.
//!
//! Memory: 256 counters per thread for bytes, 65 536 for 16-bit keys (256 KiB each), nothing
//! the size of the input.

use rayon::prelude::*;

use super::key::{is_small, Key, KeyMap};

/// Slices of at least this many keys count and fill on all rayon threads, one chunk each.
/// Below it the fork/join costs more than the second core saves (a 2^16-byte count takes
/// about 20 µs on one core of the build machine).
const PARALLEL_MIN_LEN: usize = 1 << 18;

/// 16-bit slices shorter than this are sorted by comparison instead: clearing and scanning
/// the 65 536 counters costs about as much as sorting 4096 keys.
const COUNT16_MIN_LEN: usize = 1 << 12;

/// Elements one thread fills at a time in the parallel split (and counts at least).
const CHUNK: usize = 1 << 16;

/// Sorts 1- or 2-byte keys ascending (or descending) in their `Key` order. `false` (and
/// nothing done) for wider keys.
pub(crate) fn sort<K: Key>(keys: &mut [K], descending: bool) -> bool {
    if !is_small::<K>() {
        return false;
    }
    let signed = K::MAP == KeyMap::Signed;
    match std::mem::size_of::<K>() {
        1 => sort_words::<u8, 256>(bytemuck::cast_slice_mut(keys), signed, descending),
        _ => {
            let keys: &mut [u16] = bytemuck::cast_slice_mut(keys);
            if keys.len() < COUNT16_MIN_LEN {
                let flip = if signed { 1 << 15 } else { 0 };
                keys.sort_unstable_by_key(|&k| k ^ flip);
                if descending {
                    keys.reverse();
                }
            } else {
                sort_words::<u16, 65536>(keys, signed, descending);
            }
        }
    }
    true
}

/// An unsigned word used as a counter index.
trait Word: Copy + Send + Sync + bytemuck::Pod {
    const SIGN: usize;
    fn index(self) -> usize;
    fn from_index(i: usize) -> Self;
}

impl Word for u8 {
    const SIGN: usize = 1 << 7;
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn from_index(i: usize) -> Self {
        i as u8
    }
}

impl Word for u16 {
    const SIGN: usize = 1 << 15;
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn from_index(i: usize) -> Self {
        i as u16
    }
}

/// Counts `keys` into `B` counters (four interleaved tables for bytes, so that runs of equal
/// bytes do not serialise on one counter).
fn count<W: Word, const B: usize>(keys: &[W]) -> Vec<usize> {
    let mut total = vec![0usize; B];
    // u32 counters overflow past 2^32 keys: count in blocks and add up.
    for block in keys.chunks(1 << 30) {
        if B <= 256 {
            let mut t = vec![[0u32; 4]; B];
            let mut quads = block.chunks_exact(4);
            for q in &mut quads {
                t[q[0].index()][0] += 1;
                t[q[1].index()][1] += 1;
                t[q[2].index()][2] += 1;
                t[q[3].index()][3] += 1;
            }
            for k in quads.remainder() {
                t[k.index()][0] += 1;
            }
            for (sum, c) in total.iter_mut().zip(&t) {
                *sum += c.iter().map(|&x| x as usize).sum::<usize>();
            }
        } else {
            let mut t = vec![0u32; B];
            for k in block {
                t[k.index()] += 1;
            }
            for (sum, c) in total.iter_mut().zip(&t) {
                *sum += *c as usize;
            }
        }
    }
    total
}

/// The counting sort proper over unsigned words: `signed` flips the top bit for the order,
/// `descending` lays the runs out from the largest down.
fn sort_words<W: Word, const B: usize>(keys: &mut [W], signed: bool, descending: bool) {
    let n = keys.len();
    if n < 2 {
        return;
    }
    let parallel = n >= PARALLEL_MIN_LEN && rayon::current_num_threads() > 1;
    let counts = if parallel {
        // One piece per thread: every piece clears, fills and adds a table of `B` counters
        // (64 Ki for 16-bit keys), which per 64 Ki-element chunk would cost as much as
        // counting the chunk.
        let piece = n.div_ceil(rayon::current_num_threads()).max(CHUNK);
        keys.par_chunks(piece).map(count::<W, B>).reduce(
            || vec![0usize; B],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        )
    } else {
        count::<W, B>(keys)
    };
    // Runs in output order: (word, end of its run).
    let flip = if signed { W::SIGN } else { 0 };
    let mut runs: Vec<(W, usize)> = Vec::with_capacity(B.min(n));
    let mut end = 0;
    for r in 0..B {
        let image = if descending { B - 1 - r } else { r };
        let word = image ^ flip;
        let c = counts[word];
        if c > 0 {
            end += c;
            runs.push((W::from_index(word), end));
        }
    }
    if parallel {
        keys.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(i, chunk)| fill(chunk, i * CHUNK, &runs));
    } else {
        fill(keys, 0, &runs);
    }
}

/// Writes the part of the runs that falls on `out`, which starts at element `start`.
fn fill<W: Word>(out: &mut [W], start: usize, runs: &[(W, usize)]) {
    let first = runs.partition_point(|&(_, end)| end <= start);
    let mut at = 0;
    for &(word, end) in &runs[first..] {
        let to = (end - start).min(out.len());
        out[at..to].fill(word);
        at = to;
        if at == out.len() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<K: Key + std::fmt::Debug>(mut keys: Vec<K>) {
        for descending in [false, true] {
            let mut want = keys.clone();
            want.sort_by(|a, b| a.key_cmp(b));
            if descending {
                want.reverse();
            }
            let mut got = keys.clone();
            assert!(sort(&mut got, descending));
            assert!(
                got.iter().zip(&want).all(|(a, b)| a.key_cmp(b).is_eq()),
                "{} descending {descending} n {}",
                K::NAME,
                keys.len()
            );
        }
        keys.clear();
    }

    #[test]
    fn counts_every_small_type_both_ways() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut rng = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for n in [0, 1, 2, 3, 5, 100, 4095, 4096, 70_000, PARALLEL_MIN_LEN + 3] {
            let words: Vec<u64> = (0..n).map(|_| rng()).collect();
            check(words.iter().map(|&w| w as u8).collect::<Vec<u8>>());
            check(words.iter().map(|&w| w as i8).collect::<Vec<i8>>());
            check(words.iter().map(|&w| w as u16).collect::<Vec<u16>>());
            check(words.iter().map(|&w| w as i16).collect::<Vec<i16>>());
            check(
                words
                    .iter()
                    .map(|&w| (w % 3) as i16 - 1)
                    .collect::<Vec<i16>>(),
            );
        }
        assert!(!sort(&mut [1u32, 0], false));
    }
}
