//! The MSD route for pairs of a 4-byte key and a 4-byte value: the MSD pass packs each pair
//! into one `u64` (the encoded key in the low half, the value's bits in the high half), the
//! buckets are sorted as single words in cache, and the last step unpacks them into the
//! caller's keys and values.
//!
//! Keys and values moved apart cost the MSD scatter two write-combining buffers and two
//! streams to memory, and every bucket pass two scatters; packed, each element is one 8-byte
//! store, as for `u64` keys. Only the key bits are ever compared (digits of the low half,
//! never the whole word), so equal keys keep the input order of their values.

use std::marker::PhantomData;

use rayon::prelude::*;

use super::count::{count_all, exclusive_prefix};
use super::digits::*;
use super::lsd::{first_digit, lower_first_digit};
use super::msd::{large_bucket, msd_chunks, msd_lsd, plan, scatter_chunks, Plan};
use super::scatter::{fence_streams, scatter, stream_line, Pack, LINE_BYTES, STREAM_MIN_BYTES};
use super::INSERTION_MAX_LEN;
use crate::keys::scratch::Scratch;

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
    let Plan {
        split,
        bucket_start,
        ..
    } = plan;
    let buckets = 1usize << split.bits;
    let below = split.shift.div_ceil(NARROW) as usize;
    let total = len * elem_bytes::<K, V>();
    let takes_msd = |n: usize| large_bucket(n * elem_bytes::<K, V>(), total, buckets) && below > 1;
    let largest = (0..buckets)
        .map(|b| bucket_start[b + 1] - bucket_start[b])
        .filter(|&n| !takes_msd(n))
        .max()
        .unwrap_or(0);
    let sort_one = |tmp: &mut Scratch<u64>, b: usize| {
        let (a, e) = (bucket_start[b], bucket_start[b + 1]);
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
            if takes_msd(n) {
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
                sort_bucket::<K, V, C, PACKED_WIDE>(
                    bucket,
                    tmp.as_mut_ptr(),
                    out,
                    n,
                    split.shift,
                    stream,
                );
            } else {
                sort_bucket::<K, V, C, NARROW>(
                    bucket,
                    tmp.as_mut_ptr(),
                    out,
                    n,
                    split.shift,
                    stream,
                );
            }
        }
    };
    let new_tmp = || Scratch::<u64>::new(largest);
    if parallel {
        (0..buckets)
            .into_par_iter()
            .for_each_init(new_tmp, sort_one);
    } else {
        let mut tmp = new_tmp();
        (0..buckets).for_each(|b| sort_one(&mut tmp, b));
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
unsafe fn sort_bucket<K: RadixKey, V: Copy, C: Codec<K>, const W: u32>(
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
/// As [`sort_bucket`], without `out`.
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

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Sorts `keys` with values `0..n` on `route` (through a kept scratch when `sorter`) and
    /// checks the result against std's stable sort by `map`'s order.
    fn check(keys: &[u32], map: KeyMap, route: Route, sorter: Option<&mut RadixSorter>) {
        let n = keys.len();
        let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| map.encode32(p.0));
        let (mut k, mut v) = (keys.to_vec(), (0..n as u32).collect::<Vec<_>>());
        sort_with_map(&mut k, &mut v, map, route, sorter);
        let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
        assert!(got == want, "{map:?} {route:?} n={n}");
    }

    #[test]
    fn packed_pairs_are_sorted_stably_on_every_shape() {
        let mut s = 0x9e37_79b9u64;
        for n in [(1 << 17) - 1, 1 << 17, (1 << 18) + 13] {
            let random: Vec<u32> = (0..n).map(|_| rng(&mut s) as u32).collect();
            let shapes: Vec<Vec<u32>> = vec![
                random.clone(),
                vec![7; n],
                random.iter().map(|&r| r % 5).collect(),
                (0..n as u32).map(|i| i.min(n as u32 - i)).collect(),
                (0..n as u32)
                    .map(|i| i.wrapping_mul(0x0100_0193) & 0xff00_00ff)
                    .collect(),
                random.iter().map(|&r| r >> 24).collect(),
            ];
            for keys in &shapes {
                for map in [KeyMap::Unsigned, KeyMap::Signed, KeyMap::Float] {
                    check(keys, map, Route::Msd, None);
                }
                check(keys, KeyMap::Unsigned, Route::BySize, None);
                check(
                    keys,
                    KeyMap::Signed,
                    Route::Msd,
                    Some(&mut RadixSorter::new()),
                );
            }
        }
    }

    #[test]
    fn packed_skewed_buckets_take_an_msd_pass_of_their_own() {
        // 90% of the keys share their top 13 bits: a bucket of more than
        // BUCKET_MSD_MIN_BYTES even after the wide split, which is unpacked and sorted by
        // `msd_lsd` in its own words' room; few distinct low bits keep many equal keys.
        let n = 1 << 19;
        assert!(n * 9 / 10 * 8 >= BUCKET_MSD_MIN_BYTES);
        let mut s = 5u64;
        let keys: Vec<u32> = (0..n)
            .map(|i| {
                let r = rng(&mut s) as u32;
                if i % 10 == 0 {
                    r
                } else {
                    0x4200_0000 | (r & 0x0007_f00f)
                }
            })
            .collect();
        check(&keys, KeyMap::Unsigned, Route::Msd, None);
        check(&keys, KeyMap::Float, Route::Msd, None);
    }

    #[test]
    fn packed_streaming_sizes_with_unaligned_byte_values() {
        // Above STREAM_MIN_BYTES (the scatter and the unpacking stream), the values 4-byte
        // arrays that start one byte into an allocation, so no line of them is aligned to
        // their size: they take plain stores.
        let n = STREAM_MIN_BYTES / 8 + 21;
        let mut s = 11u64;
        let keys: Vec<u32> = (0..n).map(|_| rng(&mut s) as u32 % 1_000_003).collect();
        let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| p.0);
        let mut raw = vec![0u8; 4 * n + 1];
        for (i, chunk) in raw[1..].chunks_exact_mut(4).enumerate() {
            chunk.copy_from_slice(&(i as u32).to_le_bytes());
        }
        // SAFETY: `raw[1..]` holds `4n` bytes, which are `n` arrays of 4 bytes (align 1).
        let values: &mut [[u8; 4]] =
            unsafe { std::slice::from_raw_parts_mut(raw.as_mut_ptr().add(1).cast(), n) };
        let mut k = keys.clone();
        sort_with_map(&mut k, values, KeyMap::Unsigned, Route::BySize, None);
        let got: Vec<(u32, u32)> = k
            .into_iter()
            .zip(values.iter().map(|b| u32::from_le_bytes(*b)))
            .collect();
        assert!(got == want, "byte values n={n}");
        check(&keys, KeyMap::Signed, Route::Msd, None);
    }
}
