//! `radix`: a stable least-significant-digit radix sort on the unsigned images of the keys,
//! with one most-significant-digit pass in front for inputs larger than the cache.
//!
//! # Shape
//!
//! * Digits are 11 bits wide for plain LSD sorts from [`WIDE_DIGITS_MIN_LEN32`] /
//!   [`WIDE_DIGITS_MIN_LEN64`] keys on (3 passes for 32-bit keys, 6 for 64-bit keys at
//!   most) where this machine's [`DigitWidths`] say so (a probe of one pass of each width,
//!   once per process), and 8 bits wide below them, in the MSD route and on machines whose
//!   11-bit scatter costs more than 3/2 of an 8-bit one (4 and 8 passes), where the smaller
//!   histograms and write-combining buffers pay.
//! * One read of the input counts the histograms of every digit at once. A digit that is the
//!   same for every key moves nothing and its pass is skipped (small integers in `u64`s, data
//!   with a common prefix, all-equal slices).
//! * The [`KeyMap`] is fused into the passes: the counting pass and the first scatter encode
//!   as they read, the last scatter decodes as it writes. No separate sweep over the data.
//! * Slices of at least [`MSD_MIN_BYTES`] bytes of keys first scatter once on their highest
//!   varying digit (the "MSD pass"; one read finds it from the AND and OR of all keys and
//!   counts it), which cuts them into up to 256 buckets that each fit in the private cache;
//!   every bucket is then sorted by LSD passes on the remaining digits, ping-ponging with a
//!   bucket-sized buffer that stays in cache, and one copy writes it to the final place.
//!   Main memory sees about two reads and two writes of the data for the whole sort,
//!   instead of one of each per digit. Where the top digit is skewed (a bucket of at least
//!   [`BUCKET_MSD_MIN_BYTES`] and twice the mean, as floats over a few binades make), the
//!   MSD pass takes a 13-bit field instead, counted by one more read; uniform keys keep the
//!   8-bit digit at every size.
//! * The MSD scatter goes through software write-combining buffers (one cache line per
//!   bucket, in L1) and, for outputs of at least [`STREAM_MIN_BYTES`], writes whole lines
//!   with non-temporal stores, as does the copy that ends every bucket's sort: no
//!   read-for-ownership of lines that are about to be overwritten.
//! * The MSD route runs on rayon: the survey and the MSD scatter split the input, each
//!   thread over one contiguous chunk with its own histogram and its own prefix offsets per
//!   bucket (chunk `t` writes after chunks `0..t` in every bucket, so the order of equal keys
//!   is kept), and the buckets are sorted in parallel. A bucket that is itself large (skewed
//!   data) gets its own MSD pass on the next digit.
//! * Between [`PARALLEL_LSD_MIN_LEN`] and the MSD route, every LSD pass is split over the
//!   rayon threads the same way (per-chunk histograms, per-chunk offsets, one scatter per
//!   chunk); digits after the first are recounted per chunk, since the chunks' contents
//!   change with every pass.
//! * Runs of at most [`INSERTION_MAX_LEN`] elements (small inputs, small buckets) are sorted
//!   by insertion sort, which beats clearing and scanning 256-entry histograms.
//! * Passes below the digits that tell the keys apart are skipped: an LSD sort keeps the
//!   most significant varying digits spanning `log2(n) + 4` bits and then sorts each run of
//!   keys that agree on them (mostly runs of one for uniform keys) by the whole key
//!   (`first_digit`, `finish_runs`); the digits below are not even counted. Uniform
//!   64-bit keys need 2 or 3 passes instead of 6.
//! * Key-only sorts from [`FEW_DISTINCT_MIN_LEN`] keys first try counting the distinct keys
//!   (`few`): at most 256 distinct keys are sorted in one read and one write. Then sorted
//!   input but for a few keys (`nearly`): one scan sets those aside, only they are sorted.
//!
//! Every step is stable, so values in [`sort_pairs32`]/[`sort_pairs64`] keep the input order
//! of equal keys.
//!
//! # Memory
//!
//! One scratch buffer the size of the input (`n` keys, plus `n` values for pairs) ping-pongs
//! with the caller's slices: `4n` extra bytes for 32-bit keys, `8n` for 64-bit keys, plus `4n`
//! for the values of pairs. A call allocates it and frees it before it returns; a
//! [`CpuRadixSorter`] keeps it between calls instead. During the bucket phase every rayon thread
//! also holds one bucket-sized buffer (a few hundred KiB for uniform keys, at most
//! [`BUCKET_MSD_MIN_BYTES`]) and the histograms, a few KiB, all freed by the end of the call.
//!
//! # Files
//!
//! `digits` (keys as digits, maps, raw buffers), `count` (histograms), `scatter` (moving
//! elements, streaming stores), `runs` (inputs of a few sorted runs, merged), `lsd` (LSD
//! passes on one thread and split over threads), `msd` (the MSD route), this file (the
//! thresholds, the route by size, the entry points).

mod count;
mod digits;
mod lsd;
mod msd;
mod runs;
mod scatter;
#[cfg(test)]
mod tests;

use super::few;
use super::key::{
    as_bits128, as_bits32, as_bits64, from_small_image, is_small, small_image, Key, KeyMap,
};
use super::nearly;
use super::scratch::{Reserve, Scratch};
use crate::error::{Error, Result};
use digits::{digits, Buf, Codec, Float, RadixKey, Signed, Unsigned, NARROW, WIDE};
pub(crate) use lsd::insertion;
use lsd::{lsd, lsd_parallel, small_sort};
use msd::msd_lsd;

// The figures of the thresholds below come from a 2-core AMD EPYC Zen 4 VM (1 MiB L2 per
// core, 32 MiB L3; BENCHMARKS.md, "CPU key sort, one thread" and "CPU key sort, all
// threads"); they have not been measured again on the 2-core Intel Xeon build machine.

/// Plain LSD sorts of at least this many 32-bit keys use `WIDE` digits where the machine's
/// [`DigitWidths`] say so (its probe found them paying on the AMD EPYC, Zen 4, and on the
/// Intel Xeon host of the H200 machine, where whole sorts ran within 7% either way).
/// The length itself was measured on the AMD EPYC:
///
/// A pass costs about the same per key with 2048 buckets as with 256 while the data sit in
/// L2/L3 (the 2048 write positions, 16 KiB, and the lines they point into still mostly hit
/// L1), so one pass fewer wins once it outweighs the larger histograms (clearing and scanning
/// 3 x 2048 counters, a few microseconds). Measured with a best-of-N loop, one thread,
/// random keys, 8-bit / 11-bit digits: `u32` 2^12: 16 / 18 us, 2^13: 30 / 32 us, 2^14: 65 /
/// 61 us, 2^16: 258 / 229 us; on both cores of the idle machine 2^20: 3.19 / 2.68 ms.
pub(crate) const WIDE_DIGITS_MIN_LEN32: usize = 1 << 14;

/// Plain LSD sorts of at least this many 64-bit keys use `WIDE` digits where the machine's
/// [`DigitWidths`] say so (6 passes instead of 8; see [`WIDE_DIGITS_MIN_LEN32`]), on the
/// AMD EPYC. Measured as there, `u64`: 2^13: 68 / 107 us, 2^14:
/// 144 / 131 us, 2^16: 565 / 515 us, 2^18: 2.30 / 2.11 ms.
pub(crate) const WIDE_DIGITS_MIN_LEN64: usize = 1 << 14;

/// Key-only sorts of at least this many keys first try counting them
/// (`few::sort_if_few`), which sorts inputs of at most `few::MAX_DISTINCT` distinct keys
/// in one read and one write and gives up after about 260 keys on random ones.
///
/// Measured with a best-of-N loop, one thread, `u32` keys, radix without / with the count:
/// random keys 2^12: 15.5 / 16.0 us (giving up costs 3% at this length, less above it);
/// 64 distinct keys 2^12: 17.4 / 5.1 us, 2^16: 201 / 91 us, 2^20: 3.2 / 1.8 ms; two threads
/// 2^24: 124 / 30 ms (loaded machine).
pub(crate) const FEW_DISTINCT_MIN_LEN: usize = 1 << 12;

/// Key-only sorts try the nearly-sorted scan (`nearly`) on at most this many rayon
/// threads: the scan runs on one thread, and past a few threads the passes over all the
/// keys finish first. Xeon host of the H200 machine (16 cores), `auto`, 1% of the keys out
/// of place, M keys/s at 2^20 / 2^24, without / with the scan, two rounds: 4 threads `u32`
/// 372-418 / 405-409 against 584-595 / 401-471, `u64` 312-363 / 245-277 against 507-509 /
/// 312-326; random `u32` keys on all 16 threads take about 1000-1200 M keys/s. One thread of
/// the Xeon build machine (2.0 GHz) sorts such input in 2.5-4 ns a key.
pub(crate) const NEARLY_SORTED_MAX_THREADS: usize = 4;

/// Runs up to this length are insertion-sorted instead of radix-sorted.
///
/// An LSD sort pays a fixed cost per call (scratch, one 256-entry histogram per digit and
/// its prefix sum) of about 2 µs for `u32` and 5 µs for `u64` keys, against insertion
/// sort's quadratic moves. Measured (`cargo bench --bench keys -- keys-small`, random keys,
/// one call per fresh slice): `u32` at 48 keys 1.1 µs by insertion sort, at 49 keys 1.9 µs
/// by LSD, at 64 keys 2.3 µs by LSD; `u64` at 49 keys 5.3 µs by LSD.
pub(crate) const INSERTION_MAX_LEN: usize = 64;

/// Inputs whose keys take at least this many bytes get an MSD pass in front of the LSD passes
/// (and use more than one thread), or from half a core's L2 where that is smaller (see
/// [`use_msd`]).
///
/// Whole-input LSD passes ping-pong between the keys and a scratch copy: once the two no
/// longer fit the core's L2, every pass runs from L3 and scatters into up to 2048 lines
/// spread over megabytes (TLB and L3 misses), while the MSD route's buckets stay in L1/L2.
/// This was a fixed 16 MiB (measured on the AMD EPYC, 1 MiB L2 per core, both cores), and
/// on an Intel Xeon (2 MiB L2) one-thread `u32` fell from 88 to 38 M keys/s between 2^18 and
/// 2^20 keys before the MSD route took over at 2^22. Best of the runs, one thread, `u32`,
/// on the AMD EPYC under load (`RAYON_NUM_THREADS=1 sortnet bench --stat best`), M keys/s,
/// LSD (switch at 16 MiB) / MSD (switch at L2): 2^20: 115 / 168; 2^19: - / 184.
pub(crate) const MSD_MIN_BYTES: usize = 16 << 20;

/// Buckets of the MSD route with at least this many bytes of keys, and at least twice the
/// mean bucket (skewed keys; `msd::large_bucket`), get an MSD pass of their own on the next
/// digit instead of LSD passes.
///
/// Uniform keys make buckets of 1/256 of the input (256 KiB at 2^24 `u32` keys), whose LSD
/// passes ping-pong within L2. Skewed keys, such as floats over a few binades, whose top
/// digit takes a handful of values, make buckets of megabytes, whose LSD passes would run
/// from L3 or memory. Measured with a best-of-5 loop on both cores of the loaded machine,
/// 2^24 `f32` keys uniform in ±1e6 (the bench's floats: 4 buckets of about 2^22 keys), LSD
/// buckets / MSD buckets from 2 MiB: 250 to 261 / 209 to 241 ms; uniform `u32` unchanged
/// (173 to 189 / 184 to 188 ms). The same size decides when the MSD pass takes a wider
/// digit in the first place (`WIDE_MSD_BITS`), which leaves most such buckets below it.
pub(crate) const BUCKET_MSD_MIN_BYTES: usize = 2 << 20;

/// Inputs shorter than this stay on the LSD route even where keys and scratch outgrow half a
/// core's L2 ([`use_msd`]): the MSD pass would leave buckets of fewer than 512 elements,
/// whose fixed costs (histograms, prefix sums, the write-combining buffer) outweigh the cache
/// misses of two whole-input LSD passes. Measured with a best-of-N loop on the 2-core AMD
/// EPYC (1 MiB L2), one thread, `u64` keys, M keys/s, three rounds alternating in one run:
/// 2^15 LSD 295-300; 2^16 MSD 93-94, LSD 301-304; 2^17 MSD 126-127. On cores of 2 MiB L2
/// (the Xeon host) 8-byte elements reach the MSD route at this length anyway and 4-byte keys
/// later: nothing changes there.
pub(crate) const MSD_MIN_LEN: usize = 1 << 17;

/// MSD routes over at least this many elements split their survey and scatter over all
/// rayon threads, and sort their buckets in parallel.
///
/// Every MSD route chosen by size is above it; it matters where tests force the MSD route
/// on small inputs: below it rayon's fork/join costs more than a second core saves.
pub(crate) const PARALLEL_MIN_LEN: usize = 1 << 17;

/// Inputs from this length on (and below the MSD route) run their LSD passes on all rayon
/// threads, each pass split into one chunk per thread (`lsd_parallel`). With the MSD route
/// from half a core's L2 ([`use_msd`]) this range is empty on cores of up to 2 MiB L2 (the
/// AMD EPYC and the Intel Xeons measured); tests force the route.
///
/// Measured with the best-of-N loop of [`MSD_MIN_BYTES`] on the 2-core machine when it was
/// quieter (load about 1), plain LSD on one thread / split passes on 2 threads: `u32` 2^17:
/// 0.53 / 0.59 ms, 2^18: 1.42 / 1.28 to 1.41 ms, 2^20: 4.4 / 3.2 ms (one run in three 4.5 /
/// 4.9), 2^22: 23 / 17.6 ms; `u64` 2^18: 3.0 / 2.4 to 2.8 ms, 2^20: 10.4 to 11.7 / 8.2 to
/// 8.6 ms. At load 4 to 5 (other processes holding the second core) the split passes lost
/// at every size (see [`MSD_MIN_BYTES`]).
pub(crate) const PARALLEL_LSD_MIN_LEN: usize = 1 << 18;

/// Sorts 32-bit keys ascending by `map.encode32(key)`, with scratch allocated and freed by
/// the call.
pub(crate) fn sort32(keys: &mut [u32], map: KeyMap) {
    sort_with_map(keys, &mut unit_values(keys.len()), map, Route::BySize, None);
}

/// Sorts 64-bit keys ascending by `map.encode64(key)`, as [`sort32`].
pub(crate) fn sort64(keys: &mut [u64], map: KeyMap) {
    sort_with_map(keys, &mut unit_values(keys.len()), map, Route::BySize, None);
}

/// Sorts 32-bit keys (ascending by `map`) that are in order or in reverse order, by the
/// runs scan and reversal on all threads, and says whether they were: the check the SIMD
/// quicksorts make on several threads, where their own scan and reversal run on one (on
/// the radix route the threaded scan took ascending input from 0.54-0.90x to 0.12-0.17x
/// random keys' time, `runs::PARALLEL_SCAN_MIN_LEN`). Inputs of two to four runs (sorted
/// halves, organ pipes) stay with the quicksort: merging them measured no faster there on
/// two threads of the Xeon host (0.76-1.52x random keys' time against the partitions'
/// 0.66-1.48x, 2026-11-28). Keys sampled over the slice are looked at first
/// (`runs::find_one_run`), so such inputs are not scanned; the scan of random keys stops
/// after a few.
pub(crate) fn sort32_if_monotonic(keys: &mut [u32], map: KeyMap) -> bool {
    sort_if_monotonic(keys, map)
}

/// [`sort32_if_monotonic`] for 64-bit keys.
pub(crate) fn sort64_if_monotonic(keys: &mut [u64], map: KeyMap) -> bool {
    sort_if_monotonic(keys, map)
}

fn sort_if_monotonic<K: RadixKey>(keys: &mut [K], map: KeyMap) -> bool
where
    Unsigned: Codec<K>,
    Signed: Codec<K>,
    Float: Codec<K>,
{
    let runs = match map {
        KeyMap::Unsigned => runs::find_one_run::<K, Unsigned>(keys),
        KeyMap::Signed => runs::find_one_run::<K, Signed>(keys),
        KeyMap::Float => runs::find_one_run::<K, Float>(keys),
    };
    let Some(runs) = runs else {
        return false;
    };
    let mut units = unit_values(keys.len());
    let data = Buf {
        k: keys.as_mut_ptr(),
        v: units.as_mut_ptr(),
    };
    // SAFETY: `data` holds the elements the runs were found in (zero-sized values).
    unsafe { runs::reverse_descending(data, &runs) };
    true
}

/// Sorts 32-bit keys and moves `values[i]` with `keys[i]`; stable. The caller has checked
/// that the slices have the same length.
pub(crate) fn sort_pairs32(keys: &mut [u32], values: &mut [u32], map: KeyMap) {
    debug_assert_eq!(keys.len(), values.len(), "one value per key");
    sort_with_map(keys, values, map, Route::BySize, None);
}

/// Sorts 64-bit keys and moves `values[i]` with `keys[i]`, as [`sort_pairs32`].
pub(crate) fn sort_pairs64(keys: &mut [u64], values: &mut [u32], map: KeyMap) {
    debug_assert_eq!(keys.len(), values.len(), "one value per key");
    sort_with_map(keys, values, map, Route::BySize, None);
}

/// Sorts 32-bit keys and moves `values[i]` (any `Copy` type; the backends pass 4- and
/// 8-byte values as raw bytes) with `keys[i]`; stable. The caller has checked the lengths.
pub(crate) fn sort_pairs32_values<V: Copy + Send + Sync>(
    keys: &mut [u32],
    values: &mut [V],
    map: KeyMap,
) {
    debug_assert_eq!(keys.len(), values.len(), "one value per key");
    sort_with_map(keys, values, map, Route::BySize, None);
}

/// [`sort_pairs32_values`] for 64-bit keys.
pub(crate) fn sort_pairs64_values<V: Copy + Send + Sync>(
    keys: &mut [u64],
    values: &mut [V],
    map: KeyMap,
) {
    debug_assert_eq!(keys.len(), values.len(), "one value per key");
    sort_with_map(keys, values, map, Route::BySize, None);
}

/// Sorts 32-bit keys descending by `map.encode32(key)`: the inverted image is fused into the
/// first and last pass like the map itself, so it costs what an ascending sort costs.
pub(crate) fn sort32_descending(keys: &mut [u32], map: KeyMap) {
    let values = &mut unit_values(keys.len());
    sort_in_order(keys, values, map, true, Route::BySize, None);
}

/// [`sort32_descending`] for 64-bit keys.
pub(crate) fn sort64_descending(keys: &mut [u64], map: KeyMap) {
    let values = &mut unit_values(keys.len());
    sort_in_order(keys, values, map, true, Route::BySize, None);
}

/// A codec followed by inverting every bit: ascending order of the result is descending
/// order of the keys (floats: +NaN first).
struct Descending<C>(std::marker::PhantomData<C>);

impl<K: RadixKey, C: Codec<K>> Codec<K> for Descending<C> {
    #[inline(always)]
    fn encode(k: K) -> K {
        C::encode(k) ^ K::ONES
    }
    #[inline(always)]
    fn decode(k: K) -> K {
        C::decode(k ^ K::ONES)
    }
}

/// The `radix` backend's sort with scratch memory kept between calls, for programs that
/// sort large slices again and again.
///
/// A call through a backend ([`backend::auto`](crate::backend::auto) or `radix`)
/// allocates its scratch (the size of the input: `4n` bytes for `n` 32-bit keys, `8n` for
/// 64-bit keys, `4n` more for the values of pairs) and frees it before it returns, so the
/// process holds no more memory after the call than before. A fresh block of many megabytes
/// costs a page fault per 4 KiB page on first touch: on a 2-core VM, up to a few tens of
/// percent of a sort of 2^24 keys. A `CpuRadixSorter` keeps its scratch instead, grown to the
/// largest call, until it is dropped or [`release`](Self::release)d. The sort is the same
/// (stable, the same routes and threads); results are identical.
///
/// ```
/// use sortnet::keys::CpuRadixSorter;
/// let mut sorter = CpuRadixSorter::new();
/// for round in 0..3u32 {
///     let mut keys: Vec<u32> = (0..100_000u32).map(|i| i.wrapping_mul(2_654_435_761) ^ round).collect();
///     sorter.sort(&mut keys);
///     assert!(keys.windows(2).all(|w| w[0] <= w[1]));
/// }
/// assert!(sorter.scratch_bytes() >= 400_000);
/// sorter.release();
/// assert_eq!(sorter.scratch_bytes(), 0);
/// ```
#[derive(Default)]
pub struct CpuRadixSorter {
    keys: Reserve,
    values: Reserve,
    config: DigitWidths,
}

impl CpuRadixSorter {
    /// A sorter holding no memory yet, with this machine's digit widths
    /// ([`DigitWidths::default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// A sorter holding no memory yet that sorts with the digit widths of `config` (the
    /// results are the same whatever the widths; only the speed differs).
    ///
    /// ```
    /// use sortnet::keys::CpuRadixSorter;
    /// use sortnet::tuning::{DigitWidth, DigitWidths};
    /// let config = DigitWidths { lsd_digits: DigitWidth::Bits8, ..DigitWidths::default() };
    /// let mut keys: Vec<u64> = (0..50_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    /// CpuRadixSorter::with_config(config).sort(&mut keys);
    /// assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    /// ```
    pub fn with_config(config: DigitWidths) -> Self {
        Self {
            keys: Reserve::default(),
            values: Reserve::default(),
            config,
        }
    }

    /// The digit widths this sorter sorts with.
    pub fn config(&self) -> DigitWidths {
        self.config
    }

    /// Sorts `keys` ascending; floats in IEEE-754 total order, as [`SortBackend::sort`](
    /// crate::SortBackend) does on every backend.
    pub fn sort<K: Key>(&mut self, keys: &mut [K]) {
        self.sort_keys(keys, false);
    }

    /// Sorts `keys` descending (floats: +NaN first), the inverted image fused into the
    /// first and last pass as [`SortBackend::sort_descending`](crate::SortBackend) does.
    pub fn sort_descending<K: Key>(&mut self, keys: &mut [K]) {
        self.sort_keys(keys, true);
    }

    /// [`sort`](Self::sort) or [`sort_descending`](Self::sort_descending), for every key width.
    fn sort_keys<K: Key>(&mut self, keys: &mut [K], descending: bool) {
        if super::small::sort_by_count(keys, descending) {
            // 1- and 2-byte keys are counted, with no scratch the size of the input.
        } else if is_small::<K>() {
            let sorted = super::small::sort_widened(keys, descending, |wide| {
                let values = &mut unit_values(wide.len());
                sort_in_order(
                    wide,
                    values,
                    KeyMap::Unsigned,
                    false,
                    Route::BySize,
                    Some(self),
                );
                Ok::<(), std::convert::Infallible>(())
            });
            let Ok(()) = sorted;
        } else if let Some(bits) = as_bits128(keys) {
            // 16-byte keys take their own engine, scratch allocated by the call.
            super::keys128::sort(bits, K::MAP, descending);
        } else if let Some(bits) = as_bits32(keys) {
            let values = &mut unit_values(bits.len());
            sort_in_order(bits, values, K::MAP, descending, Route::BySize, Some(self));
        } else if let Some(bits) = as_bits64(keys) {
            let values = &mut unit_values(bits.len());
            sort_in_order(bits, values, K::MAP, descending, Route::BySize, Some(self));
        } else {
            unreachable!("every Key is 1, 2, 4, 8 or 16 bytes wide")
        }
    }

    /// Sorts `keys` ascending and moves `values[i]` with `keys[i]`; stable (equal keys keep
    /// their values in input order). Values of any `Copy` type move inside the passes (the
    /// scratch then holds `n` values as well as `n` keys).
    ///
    /// Slices of different lengths give [`Error::LengthMismatch`] and are left unchanged.
    pub fn sort_pairs<K: Key, V: Copy + Send + Sync>(
        &mut self,
        keys: &mut [K],
        values: &mut [V],
    ) -> Result<()> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        if let Some(bits) = as_bits128(keys) {
            super::keys128::sort_pairs(bits, values, K::MAP, false);
        } else if is_small::<K>() {
            // Widened to their 32-bit images, sorted, and written back.
            let mut wide: Vec<u32> = keys.iter().map(|&k| small_image(k)).collect();
            sort_with_map(
                &mut wide,
                values,
                KeyMap::Unsigned,
                Route::BySize,
                Some(self),
            );
            for (k, w) in keys.iter_mut().zip(wide) {
                *k = from_small_image(w);
            }
        } else if let Some(bits) = as_bits32(keys) {
            sort_with_map(bits, values, K::MAP, Route::BySize, Some(self));
        } else if let Some(bits) = as_bits64(keys) {
            sort_with_map(bits, values, K::MAP, Route::BySize, Some(self));
        } else {
            unreachable!("every Key is 1, 2, 4, 8 or 16 bytes wide")
        }
        Ok(())
    }

    /// Bytes of scratch memory held now.
    pub fn scratch_bytes(&self) -> usize {
        self.keys.bytes() + self.values.bytes()
    }

    /// Frees the scratch memory now (the next call allocates it again).
    pub fn release(&mut self) {
        self.keys.release();
        self.values.release();
    }
}

impl std::fmt::Debug for CpuRadixSorter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuRadixSorter")
            .field("scratch_bytes", &self.scratch_bytes())
            .field("config", &self.config)
            .finish()
    }
}

/// Bits per digit of a radix pass: how many buckets each pass scatters into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DigitWidth {
    /// 256 buckets: their histogram, write positions and write-combining lines stay in L1;
    /// 4 passes for 32-bit keys at most, 8 for 64-bit keys.
    Bits8,
    /// 2048 buckets: 3 passes for 32-bit keys at most, 6 for 64-bit keys, each scattering
    /// into 8 times as many places.
    Bits11,
}

/// Digit widths of the `radix` backend ([`CpuRadixSorter::with_config`]); every width sorts
/// the same way, stably, only the speed differs from machine to machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DigitWidths {
    /// Digits of plain LSD sorts (inputs that fit a core's L2) from 2^14 keys on; shorter
    /// inputs always take [`DigitWidth::Bits8`].
    pub lsd_digits: DigitWidth,
    /// Digits of the LSD passes that sort the MSD route's buckets in cache, for buckets of
    /// as many keys as [`lsd_digits`](Self::lsd_digits) needs (its MSD pass itself always
    /// takes 8 bits, or the 13-bit field on skewed keys).
    pub bucket_digits: DigitWidth,
}

impl Default for DigitWidths {
    /// This machine's widths ([`DigitWidths::machine`]).
    fn default() -> Self {
        Self::machine()
    }
}

impl DigitWidths {
    /// The widths chosen for the CPU this process runs on: [`DigitWidth::Bits11`] for plain
    /// LSD sorts where a short probe, run once per process (about 0.2 ms, the first time a
    /// sort of 2^14 keys or more asks), finds an 11-bit scatter pass
    /// at most 3/2 the time of an 8-bit one (those sorts take 2 wide passes or 3 narrow
    /// ones), else [`DigitWidth::Bits8`]; the MSD route's
    /// buckets take [`DigitWidth::Bits8`]. A [`CpuRadixSorter`] built
    /// [`with_config`](CpuRadixSorter::with_config) skips the probe.
    pub fn machine() -> Self {
        DigitWidths {
            lsd_digits: if scatter::wide_digits_pay() {
                DigitWidth::Bits11
            } else {
                DigitWidth::Bits8
            },
            bucket_digits: DigitWidth::Bits8,
        }
    }
}

/// Which shape a sort takes at the top.
#[derive(Clone, Copy, Debug)]
enum Route {
    /// LSD or MSD+LSD by [`use_msd`], threads and digit width by length.
    BySize,
    /// MSD+LSD whatever the size (tests exercise it below [`MSD_MIN_BYTES`]).
    Msd,
    /// LSD on one thread, whatever the size; `wide`: [`WIDE`] digits, else [`NARROW`].
    Lsd { wide: bool },
    /// LSD with every pass split over the rayon threads, whatever the size.
    ParallelLsd { wide: bool },
}

/// Values for a keys-only sort: zero-sized, so every value move compiles to nothing and one
/// code path serves keys and pairs.
fn unit_values(n: usize) -> Vec<()> {
    vec![(); n]
}

/// Sorts by the map's order, on `route`, with scratch from `sorter` (kept) or allocated for
/// the call.
fn sort_with_map<K, V>(
    keys: &mut [K],
    values: &mut [V],
    map: KeyMap,
    route: Route,
    sorter: Option<&mut CpuRadixSorter>,
) where
    K: RadixKey,
    V: Copy + Send + Sync,
    Unsigned: Codec<K>,
    Signed: Codec<K>,
    Float: Codec<K>,
{
    match map {
        KeyMap::Unsigned => sort_kv::<K, V, Unsigned>(keys, values, route, sorter),
        KeyMap::Signed => sort_kv::<K, V, Signed>(keys, values, route, sorter),
        KeyMap::Float => sort_kv::<K, V, Float>(keys, values, route, sorter),
    }
}

/// Sorts by the map's order, or its reverse if `descending` (the inverted image fused into
/// the passes, see [`Descending`]). Pairs are sorted ascending only ([`sort_with_map`]), which
/// keeps the descending instantiations to keys.
fn sort_in_order<K, V>(
    keys: &mut [K],
    values: &mut [V],
    map: KeyMap,
    descending: bool,
    route: Route,
    sorter: Option<&mut CpuRadixSorter>,
) where
    K: RadixKey,
    V: Copy + Send + Sync,
    Unsigned: Codec<K>,
    Signed: Codec<K>,
    Float: Codec<K>,
{
    let (k, v, r, s) = (keys, values, route, sorter);
    match (map, descending) {
        (_, false) => sort_with_map(k, v, map, r, s),
        (KeyMap::Unsigned, true) => sort_kv::<K, V, Descending<Unsigned>>(k, v, r, s),
        (KeyMap::Signed, true) => sort_kv::<K, V, Descending<Signed>>(k, v, r, s),
        (KeyMap::Float, true) => sort_kv::<K, V, Descending<Float>>(k, v, r, s),
    }
}

fn sort_kv<K, V, C>(
    keys: &mut [K],
    values: &mut [V],
    route: Route,
    sorter: Option<&mut CpuRadixSorter>,
) where
    K: RadixKey,
    V: Copy + Send + Sync,
    C: Codec<K>,
{
    let n = keys.len();
    debug_assert_eq!(n, values.len());
    if n < 2 {
        return;
    }
    // Input made of a few sorted runs (`runs`) takes one scan and at most two rounds of
    // merges instead of the passes: sorted data, reversed data (one scan and a reversal),
    // two sorted halves, organ pipes. Users re-sort sorted and nearly sorted data most
    // often; ascending input took 1.7x the time of random keys on an Intel Xeon, organ pipes
    // 1.1-1.2x. The scan stops at the fifth run: a few compares on random keys.
    let keys_only = std::mem::size_of::<V>() == 0;
    // A forced route (tests) still sorts inputs of two or more runs by its passes.
    let runs = runs::find_runs::<K, C>(keys, keys_only)
        .filter(|r| r.count == 1 || matches!(route, Route::BySize));
    if let Some(runs) = &runs {
        // SAFETY: `keys` and `values` hold the `n` elements the runs were found in.
        unsafe {
            runs::reverse_descending(
                Buf {
                    k: keys.as_mut_ptr(),
                    v: values.as_mut_ptr(),
                },
                runs,
            )
        };
        if runs.count == 1 {
            return;
        }
    }
    // Keys only (values are zero-sized): few distinct keys are counted, not sorted.
    if matches!(route, Route::BySize)
        && keys_only
        && runs.is_none()
        && n >= FEW_DISTINCT_MIN_LEN
        && few::sort_if_few(keys, C::encode)
    {
        return;
    }
    // Keys only: sorted input but for a few keys sorts only those (`nearly`), where the
    // scan on one thread costs less than the passes on all of them.
    if matches!(route, Route::BySize)
        && keys_only
        && runs.is_none()
        && n >= nearly::MIN_LEN
        && rayon::current_num_threads() <= NEARLY_SORTED_MAX_THREADS
    {
        if let Some(mut aside) = nearly::set_aside(keys, C::encode) {
            let len = aside.len();
            sort_kv::<K, (), C>(&mut aside, &mut unit_values(len), route, None);
            nearly::merge_back(keys, &aside, C::encode);
            return;
        }
    }
    let data = Buf {
        k: keys.as_mut_ptr(),
        v: values.as_mut_ptr(),
    };
    if n <= INSERTION_MAX_LEN {
        // Also a few runs: insertion sort finds them in order.
        // SAFETY: `data` covers `n` initialised elements owned by this call.
        unsafe { small_sort::<K, V, C>(data, n, false) };
        return;
    }
    // The scratch buffer: `n` keys and `n` values, written before they are read.
    // The machine's widths are probed only by sorts long enough to use them.
    let config = match &sorter {
        Some(sorter) => sorter.config,
        None if n >= WIDE_DIGITS_MIN_LEN32.min(WIDE_DIGITS_MIN_LEN64) => DigitWidths::machine(),
        None => DigitWidths {
            lsd_digits: DigitWidth::Bits8,
            bucket_digits: DigitWidth::Bits8,
        },
    };
    // Pairs of 4-byte keys and values on the MSD route move packed (`msd::msd_packed`): one block.
    let packed = msd::packs::<K, V>()
        && runs.is_none()
        && match route {
            Route::BySize => use_msd::<K, V>(n),
            other => matches!(other, Route::Msd),
        };
    let (nk, nv) = if packed {
        (msd::packed_scratch_len(n), 0)
    } else {
        (n, n)
    };
    let (mut scratch_k, mut scratch_v) = match sorter {
        Some(sorter) => (sorter.keys.take::<K>(nk), sorter.values.take::<V>(nv)),
        None => (Scratch::<K>::new(nk), Scratch::<V>::new(nv)),
    };
    let scratch = Buf {
        k: scratch_k.as_mut_ptr(),
        v: scratch_v.as_mut_ptr(),
    };
    if let Some(runs) = &runs {
        // SAFETY: `data` holds `n` initialised elements whose ascending runs are `runs`,
        // `scratch` has room for `n`; both are ours alone and do not overlap.
        unsafe { runs::merge_runs::<K, V, C>(data, scratch, n, runs) };
        return;
    }
    // SAFETY: `data` holds `n` initialised elements, `scratch` has room for `n`; both are
    // exclusively ours for the duration of the call and do not overlap.
    unsafe {
        let wide = n >= wide_min_len::<K>() && config.lsd_digits == DigitWidth::Bits11;
        let route = match route {
            Route::BySize if use_msd::<K, V>(n) => Route::Msd,
            Route::BySize if n >= PARALLEL_LSD_MIN_LEN && rayon::current_num_threads() > 1 => {
                Route::ParallelLsd { wide }
            }
            Route::BySize => Route::Lsd { wide },
            other => other,
        };
        debug_assert!(
            !packed || matches!(route, Route::Msd),
            "packed scratch off the MSD route"
        );
        match route {
            Route::Msd => {
                let bucket_wide = config.bucket_digits == DigitWidth::Bits11;
                let d = digits::<K, NARROW>();
                if packed {
                    msd::msd_packed::<K, V, C>(data, scratch.k, n, d, bucket_wide)
                } else {
                    msd_lsd::<K, V, C>(data, scratch, n, d, false, false, bucket_wide)
                }
            }
            Route::BySize => unreachable!("resolved above"),
            Route::ParallelLsd { wide: true } => lsd_parallel::<K, V, C, WIDE>(data, scratch, n),
            Route::ParallelLsd { wide: false } => lsd_parallel::<K, V, C, NARROW>(data, scratch, n),
            Route::Lsd { wide: true } => {
                lsd::<K, V, C, WIDE>(data, scratch, data, n, digits::<K, WIDE>(), false, false)
            }
            Route::Lsd { wide: false } => {
                let d = digits::<K, NARROW>();
                lsd::<K, V, C, NARROW>(data, scratch, data, n, d, false, false)
            }
        }
    }
}

/// The length from which an LSD sort of keys of type `K` may take [`DigitWidth::Bits11`].
fn wide_min_len<K: RadixKey>() -> usize {
    match K::BITS {
        32 => WIDE_DIGITS_MIN_LEN32,
        _ => WIDE_DIGITS_MIN_LEN64,
    }
}

/// Whether `len` elements (keys of type `K` with values of type `V`) take the MSD route
/// ([`msd_lsd`]) rather than plain LSD.
///
/// Once the elements and their scratch copy (twice their bytes) no longer fit one core's L2
/// (read at run time, `cache::l2_bytes`) and number at least [`MSD_MIN_LEN`], and from
/// [`MSD_MIN_BYTES`] at the latest, whatever the thread count: whole-input LSD passes then
/// run from L3 and, split over threads, write into each other's lines at the edges of every
/// thread's range of every bucket, while the MSD pass's buckets are sorted inside one core's
/// cache. On the 16-core Xeon host (2 MiB L2), switch at L2 times the threads / at half an
/// L2, M keys/s, best of 3+ in one run: one thread
/// `u32` 2^18 97 / 130; two threads `u32` 2^18 102 / 181, `u64` 2^17 83 / 129; 16 threads `u32`
/// 2^20 339 / 767-912 (BENCHMARKS.md, "CPU key sort, all threads"). With several threads
/// from a quarter of an L2 and [`PARALLEL_MIN_LEN`] elements, where one thread's LSD would
/// leave the other cores idle: two threads `u32` 2^17 130-139 (one thread's LSD) / 153-192
/// (split MSD route), two rounds in one call. Never below [`MSD_MIN_LEN`] elements (see
/// there), which wide elements (`u64` keys, pairs, records) crossed half an L2 below: AMD
/// EPYC (1 MiB L2), one thread, best of 9, MSD / LSD at 2^16: `u64` keys 0.72 / 0.22 ms,
/// 16-byte records by a `u32` key 0.9-2.0 / 0.39 ms.
fn use_msd<K, V>(len: usize) -> bool {
    let bytes = len.saturating_mul(digits::elem_bytes::<K, V>());
    let l2 = super::cache::l2_bytes();
    bytes >= MSD_MIN_BYTES
        || (len >= MSD_MIN_LEN && bytes.saturating_mul(2) >= l2)
        || (len >= PARALLEL_MIN_LEN
            && bytes.saturating_mul(4) >= l2
            && rayon::current_num_threads() > 1)
}
