//! 1- and 2-byte keys (`u8`, `i8`, `u16`, `i16`): counted where the slice is long enough to
//! pay for its counters, else sorted through their 32-bit images by the caller's own 32-bit
//! sort ([`sort_widened`]).
//!
//! The counting sort reads every key once to count it and writes the runs out once,
//! ascending or descending. No comparison sort and no radix pass beats that traffic on long
//! slices: a 2^24-key sort moves what a copy of the slice moves. On short ones clearing and
//! scanning the counters costs more than the whole sort (256 counters take longer than
//! sixteen keys; 65 536 longer than a few thousand), so those widen.
//!
//! Memory: 256 counters per thread for bytes, 65 536 for 16-bit keys (256 KiB each), nothing
//! the size of the input; a widened slice holds its 32-bit images (`4n` bytes, on the stack
//! up to [`STACK_KEYS`] keys).

use rayon::prelude::*;

use super::key::{from_small_image, is_small, small_image, Key, KeyMap};

/// Slices of at least this many keys count and fill on all rayon threads, one chunk each.
/// Below it the fork/join costs more than the second core saves (a 2^16-byte count takes
/// about 20 µs on one core of the build machine).
const PARALLEL_MIN_LEN: usize = 1 << 18;

/// 1-byte slices from this many keys are counted; shorter ones widen. One thread, `u8`,
/// widened / counted: 128 keys 388 / -, 256 keys - / 2157 ns on the AMD EPYC (Zen 3, under
/// load), 182 / - and - / 347 ns on the Intel Xeon host (BENCHMARKS.md, "Every key type
/// against std").
pub(crate) const COUNT8_MIN_LEN: usize = 256;

/// 2-byte slices from this many keys are counted; shorter ones widen. The 65 536 counters
/// (256 KiB, fresh pages every call) cost a fixed 0.5 ms on the Intel Xeon host: `u16`
/// counted 2^15 / 2^16 / 2^17 / 2^18 / 2^19 keys 0.60 / 0.75 / 0.93 / 1.25 / 1.70 ms,
/// widened (3 to 4 ns a key) 2^14 0.046 ms; std 0.47 / 0.97 / 2.2 / 4.2 / 8.8 ms.
pub(crate) const COUNT16_MIN_LEN: usize = 1 << 18;

/// Elements one thread fills at a time in the parallel split (and counts at least).
const CHUNK: usize = 1 << 16;

/// Widened slices up to this many keys keep their images on the stack (256 bytes): for the
/// shortest sorts an allocation would cost as much as the sort.
pub(crate) const STACK_KEYS: usize = 64;

/// Whether a slice of `len` keys of type `K` is counted ([`sort_by_count`]) rather than
/// widened ([`sort_widened`]). Only for 1- and 2-byte keys.
pub(crate) fn counts<K: Key>(len: usize) -> bool {
    match std::mem::size_of::<K>() {
        1 => len >= COUNT8_MIN_LEN,
        _ => len >= COUNT16_MIN_LEN,
    }
}

/// Sorts 1- or 2-byte keys ascending (or descending) in their `Key` order by counting, where
/// that pays ([`counts`]). `false` (and nothing done) for shorter slices and wider keys.
pub(crate) fn sort_by_count<K: Key>(keys: &mut [K], descending: bool) -> bool {
    if !is_small::<K>() || !counts::<K>(keys.len()) {
        return false;
    }
    let signed = K::MAP == KeyMap::Signed;
    match std::mem::size_of::<K>() {
        1 => sort_words::<u8, 256>(bytemuck::cast_slice_mut(keys), signed, descending),
        _ => sort_words::<u16, 65536>(bytemuck::cast_slice_mut(keys), signed, descending),
    }
    true
}

/// Sorts 1- or 2-byte keys ascending (or descending) through their 32-bit images: `sort32`
/// sorts the images ascending as unsigned integers, and they are written back (in reverse
/// for descending). On `Err` the keys are untouched.
pub(crate) fn sort_widened<K: Key, E>(
    keys: &mut [K],
    descending: bool,
    sort32: impl FnOnce(&mut [u32]) -> Result<(), E>,
) -> Result<(), E> {
    debug_assert!(is_small::<K>());
    let mut stack = [0u32; STACK_KEYS];
    let mut heap = Vec::new();
    let wide: &mut [u32] = if keys.len() <= STACK_KEYS {
        &mut stack[..keys.len()]
    } else {
        heap.resize(keys.len(), 0);
        &mut heap
    };
    for (w, &k) in wide.iter_mut().zip(keys.iter()) {
        *w = small_image(k);
    }
    sort32(wide)?;
    if descending {
        for (k, &w) in keys.iter_mut().zip(wide.iter().rev()) {
            *k = from_small_image(w);
        }
    } else {
        for (k, &w) in keys.iter_mut().zip(wide.iter()) {
            *k = from_small_image(w);
        }
    }
    Ok(())
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

/// Counts `keys` into `B` counters.
fn count<W: Word, const B: usize>(keys: &[W]) -> Vec<usize> {
    let mut total = vec![0usize; B];
    // u32 counters overflow past 2^32 keys: count in blocks and add up.
    for block in keys.chunks(1 << 30) {
        for (sum, c) in total.iter_mut().zip(count_block::<W, B>(block)) {
            *sum += c as usize;
        }
    }
    total
}

/// Counts fewer than 2^32 `keys` into `B` `u32` counters; bytes into four interleaved
/// tables on the stack, so that runs of equal bytes do not serialise on one counter.
fn count_block<W: Word, const B: usize>(keys: &[W]) -> Vec<u32> {
    debug_assert!(keys.len() <= u32::MAX as usize);
    if B <= 256 {
        let mut bytes = [[0u32; 4]; 256];
        let mut quads = keys.chunks_exact(4);
        for q in &mut quads {
            bytes[q[0].index()][0] += 1;
            bytes[q[1].index()][1] += 1;
            bytes[q[2].index()][2] += 1;
            bytes[q[3].index()][3] += 1;
        }
        for k in quads.remainder() {
            bytes[k.index()][0] += 1;
        }
        bytes[..B]
            .iter()
            .map(|q| q[0] + q[1] + q[2] + q[3])
            .collect()
    } else {
        let mut words = vec![0u32; B];
        for k in keys {
            words[k.index()] += 1;
        }
        words
    }
}

/// The counting sort proper over unsigned words: `signed` flips the top bit for the order,
/// `descending` lays the runs out from the largest down.
fn sort_words<W: Word, const B: usize>(keys: &mut [W], signed: bool, descending: bool) {
    let n = keys.len();
    if n < 2 {
        return;
    }
    let parallel = n >= PARALLEL_MIN_LEN && rayon::current_num_threads() > 1;
    let flip = if signed { W::SIGN } else { 0 };
    if !parallel && n <= u32::MAX as usize {
        sort_serial::<W, B>(keys, flip, descending);
        return;
    }
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

/// [`sort_words`] on one thread, for fewer than 2^32 keys: one table of `u32` counters
/// ([`count_block`]), and the runs written straight from it. A
/// table of `usize` totals and a list of runs, which the parallel split needs, cost the
/// short slices more than their count: 1.3 µs of the 1.5 µs a 256-byte sort took.
fn sort_serial<W: Word, const B: usize>(keys: &mut [W], flip: usize, descending: bool) {
    let counts = count_block::<W, B>(keys);
    let mut at = 0;
    for r in 0..B {
        let word = (if descending { B - 1 - r } else { r }) ^ flip;
        let c = counts[word] as usize;
        let w = W::from_index(word);
        // Most counters of a short slice hold 0 to 2: a `fill` (a memset call) for each
        // cost more than the count itself (2 µs of a 256-byte sort, 65 536 calls for
        // 16-bit keys).
        match c {
            0 => {}
            1 => keys[at] = w,
            2 => {
                keys[at] = w;
                keys[at + 1] = w;
            }
            _ => keys[at..at + c].fill(w),
        }
        at += c;
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
            if counts::<K>(keys.len()) {
                assert!(sort_by_count(&mut got, descending));
            } else {
                assert!(!sort_by_count(&mut got, descending));
                sort_widened(&mut got, descending, |w| {
                    w.sort_unstable();
                    Ok::<(), ()>(())
                })
                .unwrap();
            }
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
    fn every_small_type_sorts_both_ways_counted_or_widened() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut rng = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for n in [
            0,
            1,
            2,
            3,
            5,
            STACK_KEYS,
            STACK_KEYS + 1,
            100,
            COUNT8_MIN_LEN - 1,
            COUNT8_MIN_LEN,
            COUNT16_MIN_LEN - 1,
            COUNT16_MIN_LEN,
            70_000,
            PARALLEL_MIN_LEN + 3,
        ] {
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
        assert!(!sort_by_count(&mut [1u32, 0], false));
    }
}
