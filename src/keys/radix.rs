//! `radix`: a stable least-significant-digit radix sort on the unsigned images of the keys,
//! with one most-significant-digit pass in front for inputs larger than the cache.
//!
//! # Shape
//!
//! * Digits are 11 bits wide for plain LSD sorts from [`WIDE_DIGITS_MIN_LEN32`] /
//!   [`WIDE_DIGITS_MIN_LEN64`] keys on (3 passes for 32-bit keys, 6 for 64-bit keys at
//!   most) and 8 bits wide below them and in the MSD route (4 and 8 passes), where the
//!   smaller histograms and write-combining buffers pay.
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
//!   [`BUCKET_MSD_MIN_BYTES`], as floats over a few binades make), the MSD pass takes a
//!   13-bit field instead, counted by one more read.
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
//!   (`few`): at most 256 distinct keys are sorted in one read and one write.
//!
//! Every step is stable, so values in [`sort_pairs32`]/[`sort_pairs64`] keep the input order
//! of equal keys.
//!
//! # Memory
//!
//! One scratch buffer the size of the input (`n` keys, plus `n` values for pairs) ping-pongs
//! with the caller's slices: `4n` extra bytes for 32-bit keys, `8n` for 64-bit keys, plus `4n`
//! for the values of pairs. Large scratch blocks are kept for the next call (at most
//! `KEEP_MAX_BYTES` bytes stay allocated between calls;
//! see the `scratch` module for why). During the bucket phase every rayon thread also holds
//! one bucket-sized buffer (a few hundred KiB for uniform keys) and the histograms, a few KiB.

use rayon::prelude::*;

use super::few;
use super::key::KeyMap;
use super::scratch::Scratch;

/// Bits per digit of the MSD route (its MSD pass and its buckets' LSD passes), and of plain
/// LSD sorts below [`WIDE_DIGITS_MIN_LEN32`] / [`WIDE_DIGITS_MIN_LEN64`]: 256 buckets, whose
/// histograms, write positions and write-combining lines stay in L1.
const NARROW: u32 = 8;
/// Bits per digit of plain LSD sorts from [`WIDE_DIGITS_MIN_LEN32`] /
/// [`WIDE_DIGITS_MIN_LEN64`] keys on: 2048 buckets, 3 passes instead of 4 for 32-bit keys and
/// 6 instead of 8 for 64-bit keys.
const WIDE: u32 = 11;

/// Plain LSD sorts of at least this many 32-bit keys use `WIDE` digits.
///
/// A pass costs about the same per key with 2048 buckets as with 256 while the data sit in
/// L2/L3 (the 2048 write positions, 16 KiB, and the lines they point into still mostly hit
/// L1), so one pass fewer wins once it outweighs the larger histograms (clearing and scanning
/// 3 x 2048 counters, a few microseconds). Measured with a best-of-N loop, one thread,
/// random keys, 8-bit / 11-bit digits: `u32` 2^12: 16 / 18 us, 2^13: 30 / 32 us, 2^14: 65 /
/// 61 us, 2^16: 258 / 229 us; on both cores of the idle machine 2^20: 3.19 / 2.68 ms.
pub const WIDE_DIGITS_MIN_LEN32: usize = 1 << 14;

/// Plain LSD sorts of at least this many 64-bit keys use `WIDE` digits (6 passes instead
/// of 8; see [`WIDE_DIGITS_MIN_LEN32`]). Measured as there, `u64`: 2^13: 68 / 107 us, 2^14:
/// 144 / 131 us, 2^16: 565 / 515 us, 2^18: 2.30 / 2.11 ms.
pub const WIDE_DIGITS_MIN_LEN64: usize = 1 << 14;

/// Key-only sorts of at least this many keys first try counting them
/// (`few::sort_if_few`), which sorts inputs of at most `few::MAX_DISTINCT` distinct keys
/// in one read and one write and gives up after about 260 keys on random ones.
///
/// Measured with a best-of-N loop, one thread, `u32` keys, radix without / with the count:
/// random keys 2^12: 15.5 / 16.0 us (giving up costs 3% at this length, less above it);
/// 64 distinct keys 2^12: 17.4 / 5.1 us, 2^16: 201 / 91 us, 2^20: 3.2 / 1.8 ms; two threads
/// 2^24: 124 / 30 ms (loaded machine).
pub const FEW_DISTINCT_MIN_LEN: usize = 1 << 12;

/// Runs up to this length are insertion-sorted instead of radix-sorted.
///
/// An LSD sort pays a fixed cost per call (scratch, one 256-entry histogram per digit and
/// its prefix sum) of about 2 µs for `u32` and 5 µs for `u64` keys, against insertion
/// sort's quadratic moves. Measured (`cargo bench --bench keys -- keys-small`, random keys,
/// one call per fresh slice): `u32` at 48 keys 1.1 µs by insertion sort, at 49 keys 1.9 µs
/// by LSD, at 64 keys 2.3 µs by LSD; `u64` at 49 keys 5.3 µs by LSD.
pub const INSERTION_MAX_LEN: usize = 64;

/// Inputs whose keys take at least this many bytes get an MSD pass in front of the LSD passes
/// (and use more than one thread): 2^22 `u32` keys, 2^21 `u64` keys.
///
/// From there on the keys and their scratch fill the 32 MiB L3 of the test machine (AMD EPYC,
/// Zen 4, 1 MiB L2 per core), and whole-input LSD passes run from memory while the MSD
/// route's buckets stay in cache. Measured with `examples/radix_timing` (best of 15 to 21,
/// both cores, random keys), whole-input LSD (`lsd_parallel`) / MSD route, ms: `u32` 2^20
/// (4 MiB): 2.9 / 3.5, 2^21: 6.6-7.8 / 8.0-8.5, 2^22 (16 MiB): 22.5 / 12.7; `u64` 2^20
/// (8 MiB): 4.2-5.5 / 4.3-4.5, 2^21 (16 MiB): 13.9-15.1 / 8.6-9.0; `f32` in ±1e6 2^21:
/// 7.2-12.1 / 7.5-7.8, 2^22: 22.5-23.7 / 16.0-16.2. (Session 1 put the step at 32 MiB,
/// when the buckets' last pass still went through the write-combining scatter: 2^22 `u32`
/// 23 / 35 ms at load 4 to 5.)
pub const MSD_MIN_BYTES: usize = 16 << 20;

/// Buckets of the MSD route with at least this many bytes of keys get an MSD pass of their
/// own on the next digit instead of LSD passes.
///
/// Uniform keys make buckets of 1/256 of the input (256 KiB at 2^24 `u32` keys), whose LSD
/// passes ping-pong within L2. Skewed keys, such as floats over a few binades, whose top
/// digit takes a handful of values, make buckets of megabytes, whose LSD passes would run
/// from L3 or memory. Measured with a best-of-5 loop on both cores of the loaded machine,
/// 2^24 `f32` keys uniform in ±1e6 (the bench's floats: 4 buckets of about 2^22 keys), LSD
/// buckets / MSD buckets from 2 MiB: 250 to 261 / 209 to 241 ms; uniform `u32` unchanged
/// (173 to 189 / 184 to 188 ms). The same size decides when the MSD pass takes a wider
/// digit in the first place (`WIDE_MSD_BITS`), which leaves most such buckets below it.
pub const BUCKET_MSD_MIN_BYTES: usize = 2 << 20;

/// MSD routes over at least this many elements split their survey and scatter over all
/// rayon threads, and sort their buckets in parallel.
///
/// Every MSD route chosen by size is above it; it matters where tests force the MSD route
/// on small inputs: below it rayon's fork/join costs more than a second core saves.
pub const PARALLEL_MIN_LEN: usize = 1 << 17;

/// Inputs from this length on (and below the MSD route) run their LSD passes on all rayon
/// threads, each pass split into one chunk per thread (`lsd_parallel`).
///
/// Measured with the best-of-N loop of [`MSD_MIN_BYTES`] on the 2-core machine when it was
/// quieter (load about 1), plain LSD on one thread / split passes on 2 threads: `u32` 2^17:
/// 0.53 / 0.59 ms, 2^18: 1.42 / 1.28 to 1.41 ms, 2^20: 4.4 / 3.2 ms (one run in three 4.5 /
/// 4.9), 2^22: 23 / 17.6 ms; `u64` 2^18: 3.0 / 2.4 to 2.8 ms, 2^20: 10.4 to 11.7 / 8.2 to
/// 8.6 ms. At load 4 to 5 (other processes holding the second core) the split passes lost
/// at every size (see [`MSD_MIN_BYTES`]).
pub const PARALLEL_LSD_MIN_LEN: usize = 1 << 18;

/// An unsigned key as a sequence of `W`-bit digits, least significant first.
pub(crate) trait RadixKey:
    super::few::CountKey
    + Copy
    + Ord
    + Send
    + Sync
    + 'static
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Shr<u32, Output = Self>
{
    /// Bits in the key.
    const BITS: u32;
    /// All bits set.
    const ONES: Self;
    /// No bit set.
    const ZERO: Self;
    /// The `W` bits of the key from bit `shift` up.
    fn field<const W: u32>(self, shift: u32) -> usize;
    /// Digit `i` (0 = least significant) of the key, digits being `W` bits wide.
    #[inline(always)]
    fn digit<const W: u32>(self, i: usize) -> usize {
        self.field::<W>(W * i as u32)
    }
}

/// Digits of `W` bits in a key of type `K` (the last one may be narrower).
const fn digits<K: RadixKey, const W: u32>() -> usize {
    K::BITS.div_ceil(W) as usize
}

impl RadixKey for u32 {
    const BITS: u32 = u32::BITS;
    const ONES: Self = u32::MAX;
    const ZERO: Self = 0;
    #[inline(always)]
    fn field<const W: u32>(self, shift: u32) -> usize {
        ((self >> shift) & ((1 << W) - 1)) as usize
    }
}

impl RadixKey for u64 {
    const BITS: u32 = u64::BITS;
    const ONES: Self = u64::MAX;
    const ZERO: Self = 0;
    #[inline(always)]
    fn field<const W: u32>(self, shift: u32) -> usize {
        ((self >> shift) & ((1 << W) - 1)) as usize
    }
}

/// A [`KeyMap`] lifted to the type level, so that the inner loops are compiled once per map
/// and hold no branch on it.
trait Codec<K>: Send + Sync {
    fn encode(k: K) -> K;
    fn decode(k: K) -> K;
}

struct Unsigned;
struct Signed;
struct Float;

macro_rules! codec {
    ($ty:ident, $variant:ident) => {
        impl Codec<u32> for $ty {
            #[inline(always)]
            fn encode(k: u32) -> u32 {
                KeyMap::$variant.encode32(k)
            }
            #[inline(always)]
            fn decode(k: u32) -> u32 {
                KeyMap::$variant.decode32(k)
            }
        }
        impl Codec<u64> for $ty {
            #[inline(always)]
            fn encode(k: u64) -> u64 {
                KeyMap::$variant.encode64(k)
            }
            #[inline(always)]
            fn decode(k: u64) -> u64 {
                KeyMap::$variant.decode64(k)
            }
        }
    };
}
codec!(Unsigned, Unsigned);
codec!(Signed, Signed);
codec!(Float, Float);

/// Sorts 32-bit keys ascending by `map.encode32(key)`.
pub fn sort32(keys: &mut [u32], map: KeyMap) {
    sort_with_map(keys, &mut unit_values(keys.len()), map, Route::BySize);
}

/// Sorts 64-bit keys ascending by `map.encode64(key)`.
pub fn sort64(keys: &mut [u64], map: KeyMap) {
    sort_with_map(keys, &mut unit_values(keys.len()), map, Route::BySize);
}

/// Sorts 32-bit keys and moves `values[i]` with `keys[i]`; stable.
///
/// # Panics
/// If the slices differ in length (the public API checks this first).
pub fn sort_pairs32(keys: &mut [u32], values: &mut [u32], map: KeyMap) {
    assert_eq!(keys.len(), values.len(), "one value per key");
    sort_with_map(keys, values, map, Route::BySize);
}

/// Sorts 64-bit keys and moves `values[i]` with `keys[i]`; stable.
///
/// # Panics
/// If the slices differ in length (the public API checks this first).
pub fn sort_pairs64(keys: &mut [u64], values: &mut [u32], map: KeyMap) {
    assert_eq!(keys.len(), values.len(), "one value per key");
    sort_with_map(keys, values, map, Route::BySize);
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

fn sort_with_map<K, V>(keys: &mut [K], values: &mut [V], map: KeyMap, route: Route)
where
    K: RadixKey,
    V: Copy + Send + Sync,
    Unsigned: Codec<K>,
    Signed: Codec<K>,
    Float: Codec<K>,
{
    match map {
        KeyMap::Unsigned => sort_kv::<K, V, Unsigned>(keys, values, route),
        KeyMap::Signed => sort_kv::<K, V, Signed>(keys, values, route),
        KeyMap::Float => sort_kv::<K, V, Float>(keys, values, route),
    }
}

/// Key and value arrays seen through raw pointers, so that disjoint ranges can be handed to
/// rayon threads and so that the scratch buffer can be used before it is initialised.
struct Buf<K, V> {
    k: *mut K,
    v: *mut V,
}

impl<K, V> Clone for Buf<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, V> Copy for Buf<K, V> {}

// SAFETY: a `Buf` is only a pair of addresses; every function that dereferences it is
// `unsafe` and its callers guarantee that threads touch disjoint ranges (each chunk or bucket
// is owned by exactly one task), which is what moving `&mut [K]` to a thread guarantees too.
unsafe impl<K: Send, V: Send> Send for Buf<K, V> {}
// SAFETY: as above; shared references to a `Buf` only read the two addresses.
unsafe impl<K: Send, V: Send> Sync for Buf<K, V> {}

impl<K, V> Buf<K, V> {
    /// The buffer starting `i` elements later.
    ///
    /// # Safety
    /// `i` must stay within (or one past) the allocation of both arrays.
    #[inline(always)]
    unsafe fn add(self, i: usize) -> Self {
        // SAFETY: the caller keeps `i` inside the allocations.
        unsafe {
            Buf {
                k: self.k.add(i),
                v: self.v.add(i),
            }
        }
    }
}

fn sort_kv<K, V, C>(keys: &mut [K], values: &mut [V], route: Route)
where
    K: RadixKey,
    V: Copy + Send + Sync,
    C: Codec<K>,
{
    let n = keys.len();
    debug_assert_eq!(n, values.len());
    if n < 2 {
        return;
    }
    // Keys only (values are zero-sized): few distinct keys are counted, not sorted.
    if matches!(route, Route::BySize)
        && std::mem::size_of::<V>() == 0
        && n >= FEW_DISTINCT_MIN_LEN
        && few::sort_if_few(keys, C::encode)
    {
        return;
    }
    let data = Buf {
        k: keys.as_mut_ptr(),
        v: values.as_mut_ptr(),
    };
    if n <= INSERTION_MAX_LEN {
        // SAFETY: `data` covers `n` initialised elements owned by this call.
        unsafe { small_sort::<K, V, C>(data, n, false) };
        return;
    }
    // The scratch buffer: `n` keys and `n` values, written before they are read.
    let mut scratch_k = Scratch::<K>::new(n);
    let mut scratch_v = Scratch::<V>::new(n);
    let scratch = Buf {
        k: scratch_k.as_mut_ptr(),
        v: scratch_v.as_mut_ptr(),
    };
    // SAFETY: `data` holds `n` initialised elements, `scratch` has room for `n`; both are
    // exclusively ours for the duration of the call and do not overlap.
    unsafe {
        let wide_min = match K::BITS {
            32 => WIDE_DIGITS_MIN_LEN32,
            _ => WIDE_DIGITS_MIN_LEN64,
        };
        let wide = n >= wide_min;
        let route = match route {
            Route::BySize if use_msd::<K>(n) => Route::Msd,
            Route::BySize if n >= PARALLEL_LSD_MIN_LEN && rayon::current_num_threads() > 1 => {
                Route::ParallelLsd { wide }
            }
            Route::BySize => Route::Lsd { wide },
            other => other,
        };
        match route {
            Route::Msd => msd_lsd::<K, V, C>(data, scratch, n, digits::<K, NARROW>(), false, false),
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

/// Histograms of digits `first..digits` of the (encoded) keys of `src[..len]`, one read of
/// the keys for all of them; the histograms of digits below `first` are left empty. `ENC`: the keys are raw and are encoded as they are read.
///
/// # Safety
/// `src` must hold `len` initialised elements.
unsafe fn count_all<K: RadixKey, V, C: Codec<K>, const W: u32, const ENC: bool>(
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
unsafe fn count_digits<
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
    for block in keys.chunks(COUNT_BLOCK) {
        for &k in block {
            let e = if ENC { C::encode(k) } else { k };
            for d in 0..D {
                // SAFETY: `d < D` and a digit is below `buckets`: inside `block_counts`.
                unsafe { *h.add(d * buckets + e.digit::<W>(first + d)) += 1 };
            }
        }
        add_block_counts(&mut flat, &mut block_counts);
    }
    flat.chunks(buckets).map(<[usize]>::to_vec).collect()
}

/// Keys counted into `u32` counters before they are added to the `usize` totals: the
/// counters take half the cache of `usize` ones, which the 11-bit histograms need (three
/// 2048-entry histograms of `usize` are 48 KiB, more than the 32 KiB first-level cache).
/// Measured with `examples/radix_timing` (best of 25 to 41, both cores; whole-input LSD,
/// 11-bit digits), `usize` / `u32` counters: 2^20 random `u32` keys 2.93 / 2.64-2.68 ms,
/// `u64` 4.08-4.14 / 3.79-3.84 ms, `f32` in ±1e6 3.2 / 3.0 ms; 2^12 and 2^16 unchanged.
/// A block of at most `u32::MAX` keys cannot overflow a counter.
const COUNT_BLOCK: usize = u32::MAX as usize;

/// Adds a block's `u32` counts to the totals and clears them for the next block.
fn add_block_counts(totals: &mut [usize], block: &mut [u32]) {
    for (t, c) in totals.iter_mut().zip(block) {
        *t += *c as usize;
        *c = 0;
    }
}

/// Moves `src[..len]` to `dst` ordered by digit `d`, keeping the order of equal digits.
/// `offsets[b]` is where the first element with digit `b` goes; it is advanced as elements
/// are written. `ENC`: the source is raw and is encoded as it is read. `DEC`: the
/// destination receives decoded keys.
///
/// # Safety
/// `src` holds `len` initialised elements; every `offsets[b]` plus the number of elements
/// with digit `b` stays within `dst`, and `src` and `dst` do not overlap.
#[inline(always)]
unsafe fn scatter<
    K: RadixKey,
    V: Copy,
    C: Codec<K>,
    const W: u32,
    const ENC: bool,
    const DEC: bool,
>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
    d: usize,
    offsets: &mut [usize],
) {
    debug_assert_eq!(offsets.len(), 1 << W);
    for i in 0..len {
        // SAFETY: `i < len` and the caller guarantees `len` initialised elements at `src`;
        // the offsets keep the write inside `dst` (see the function's contract).
        unsafe {
            let k = *src.k.add(i);
            let v = *src.v.add(i);
            let e = if ENC { C::encode(k) } else { k };
            let b = e.digit::<W>(d);
            let p = *offsets.get_unchecked(b);
            *offsets.get_unchecked_mut(b) = p + 1;
            let w = match (ENC, DEC) {
                (true, true) => k,
                (false, true) => C::decode(e),
                _ => e,
            };
            dst.k.add(p).write(w);
            dst.v.add(p).write(v);
        }
    }
}

/// Bytes in a cache line: the unit of the write-combining scatter.
const LINE_BYTES: usize = 64;

/// Destinations of at least this many bytes get non-temporal stores: from the
/// write-combining scatter of the MSD pass, and from the copy that ends each bucket's sort.
///
/// Far above the last-level cache the scattered data will be read from main memory anyway,
/// and streaming stores save the read-for-ownership of every destination line (a third of
/// the scatter's traffic). Below, the next pass finds the lines in cache. 16 MiB is half the
/// L3 of the test machine.
pub const STREAM_MIN_BYTES: usize = 16 << 20;

/// Lines of 64 bytes, aligned for streaming stores.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; LINE_BYTES]);

/// Bytes of write-combining buffer the MSD scatter gives all its buckets together: each
/// bucket's buffer is this divided by the number of buckets, at most 1 KiB and at least a
/// cache line (256 buckets: 1 KiB each; the wide split's 8192: one line each).
///
/// A full buffer goes out as one run of whole lines. Measured with a microbenchmark of the
/// scatter loop (one thread, 2^24 random `u32` keys into 256 buckets, not committed):
/// 64-byte buffers 24-26 ms, 256-byte 21-22 ms, 1 KiB 18-21 ms, against 8.2 ms for filling
/// the buffers without writing them out and 3.4-4.5 ms for a non-temporal copy of the same
/// 64 MiB; in the sort (`examples/radix_timing`, best of 12, both cores), 2^24 `u32`:
/// 52-56 ms with 64-byte buffers, 46.6-48 ms with 1 KiB (`u64`: 73 -> 65-67 ms; 2^22 `u32`
/// 12.6 -> 11.6-12, `u64` 17.7 -> 15.9).
const WC_BUFFER_BYTES: usize = 256 << 10;

/// [`scatter`] on the `W`-bit field of the keys at bit `shift` (a digit of the MSD route's
/// [`Split`]) through write-combining buffers: each bucket collects a block of keys (up to
/// 1 KiB: [`WC_BUFFER_BYTES`]) in cache and writes it out whole, so main memory sees runs of
/// full lines instead of 256 interleaved streams of single keys. Blocks that lie entirely
/// inside the bucket go out with non-temporal stores when `STREAM` is set; the partial
/// blocks at a bucket's two ends (shared with the neighbouring buckets, which another thread
/// may be writing) always take plain stores of exactly this bucket's elements. Values travel
/// in step with their keys through a second buffer. The keys are written encoded (the buckets'
/// sorts decode them).
///
/// # Safety
/// As [`scatter`]; additionally the keys at `dst.k` are aligned to their size.
unsafe fn scatter_wc<
    K: RadixKey,
    V: Copy,
    C: Codec<K>,
    const W: u32,
    const ENC: bool,
    const STREAM: bool,
>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
    shift: u32,
    offsets: &mut [usize],
) {
    let buckets = 1 << W;
    debug_assert_eq!(offsets.len(), buckets);
    let size = std::mem::size_of::<K>();
    debug_assert!((LINE_BYTES / size).is_power_of_two() && size >= 4);
    let block_bytes = (WC_BUFFER_BYTES / buckets).clamp(LINE_BYTES, 1 << 10);
    let per_block = block_bytes / size;
    // Element index `i` of `dst` starts a block iff `(i + phase) % per_block == 0`; blocks
    // then start on `block_bytes` boundaries, which are cache-line boundaries.
    let phase = (dst.k as usize / size) % per_block;
    let mask = per_block - 1;
    let mut kbuf = vec![Line([0; LINE_BYTES]); buckets * block_bytes / LINE_BYTES];
    let mut vbuf: Vec<V> = Vec::with_capacity(buckets * per_block);
    let kb = kbuf.as_mut_ptr().cast::<K>();
    let vb = vbuf.as_mut_ptr();
    let start = offsets.to_vec();
    let pos = offsets;
    for i in 0..len {
        // SAFETY: `i < len` reads initialised input; `slot < per_block` stays inside bucket
        // `b`'s block of `kbuf`/`vbuf` (capacity `buckets * per_block`); flushed ranges lie
        // in `start[b]..pos[b]`, which this chunk owns in `dst` (caller's contract).
        unsafe {
            let k = *src.k.add(i);
            let v = *src.v.add(i);
            let e = if ENC { C::encode(k) } else { k };
            let b = e.field::<W>(shift);
            let p = *pos.get_unchecked(b);
            *pos.get_unchecked_mut(b) = p + 1;
            let slot = (p + phase) & mask;
            kb.add(b * per_block + slot).write(e);
            vb.add(b * per_block + slot).write(v);
            if slot == mask {
                // The block ending at `p` is complete in the buffer unless the bucket started
                // inside it. In phased coordinates (`+ phase`) blocks start at multiples of
                // `per_block`, and the block's start is never negative there.
                let block_q = p + phase + 1 - per_block;
                let from_q = block_q.max(*start.get_unchecked(b) + phase);
                let skip = from_q - block_q;
                // `from_q - phase` is this bucket's first element in the block.
                let at = from_q - phase;
                flush::<K, V, STREAM>(kb, vb, b * per_block, skip, per_block, dst, at);
            }
        }
    }
    for b in 0..buckets {
        let p = pos[b];
        // Elements of bucket `b` still in the buffer: from the last block start (or the
        // bucket's start) to `p`.
        let block_q = (p + phase) & !mask;
        let from_q = block_q.max(start[b] + phase);
        let end_q = p + phase;
        if from_q < end_q {
            // SAFETY: as in the loop; a partial block never streams.
            unsafe {
                flush::<K, V, false>(
                    kb,
                    vb,
                    b * per_block,
                    from_q - block_q,
                    end_q - block_q,
                    dst,
                    from_q - phase,
                );
            }
        }
    }
    if STREAM {
        fence_streams();
    }
}

/// Writes buffer slots `skip..end` of the block at `base` in the buffers to `dst` from
/// element `first` on; a whole block (`skip == 0`, `end` a multiple of a line's elements)
/// streams line by line when `STREAM` is set.
///
/// # Safety
/// The slots are initialised; `dst[first..first + end - skip]` is writable and owned by the
/// caller; when streaming, `kb + base` and `dst.k + first` are 64-byte aligned.
#[inline(always)]
unsafe fn flush<K: Copy, V: Copy, const STREAM: bool>(
    kb: *mut K,
    vb: *mut V,
    base: usize,
    skip: usize,
    end: usize,
    dst: Buf<K, V>,
    first: usize,
) {
    let per_line = LINE_BYTES / std::mem::size_of::<K>();
    // SAFETY: the caller's contract covers every read and write below.
    unsafe {
        if STREAM && skip == 0 && end.is_multiple_of(per_line) {
            for l in (0..end).step_by(per_line) {
                stream_line(kb.add(base + l).cast(), dst.k.add(first + l).cast());
            }
        } else {
            std::ptr::copy_nonoverlapping(kb.add(base + skip), dst.k.add(first), end - skip);
        }
        std::ptr::copy_nonoverlapping(vb.add(base + skip), dst.v.add(first), end - skip);
    }
}

/// Copies one 64-byte line with non-temporal stores, from a source of any alignment.
///
/// # Safety
/// `from` is readable for 64 bytes; `to` is writable for 64 bytes and 64-byte aligned.
#[inline(always)]
unsafe fn stream_line(from: *const u8, to: *mut u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        // SAFETY: SSE2 is part of x86-64; `to` is 64-byte aligned and both pointers are valid
        // for 64 bytes (caller's contract), so each 16-byte store is aligned and in bounds.
        unsafe {
            let (f, t) = (from.cast::<__m128i>(), to.cast::<__m128i>());
            for j in 0..4 {
                _mm_stream_si128(t.add(j), _mm_loadu_si128(f.add(j)));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(from, to, LINE_BYTES)
    }
}

/// Orders the non-temporal stores before everything after (they are weakly ordered).
fn fence_streams() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Copies `len` elements from `src` to `dst`, the keys' whole cache lines with streaming
/// stores (the lines at either end, which a neighbouring range may share, with plain ones).
///
/// # Safety
/// `src` holds `len` initialised elements; `dst` has room for `len` and does not overlap it;
/// the keys at `dst.k` are aligned to their size.
unsafe fn copy_streaming<K: Copy, V: Copy>(src: Buf<K, V>, dst: Buf<K, V>, len: usize) {
    let size = std::mem::size_of::<K>();
    let per_line = LINE_BYTES / size;
    // Elements before `dst.k`'s first line boundary, then whole lines.
    let head = ((LINE_BYTES - dst.k as usize % LINE_BYTES) % LINE_BYTES / size).min(len);
    let lines = (len - head) / per_line;
    // SAFETY: every access stays within the `len` elements of the caller's contract; the
    // streamed lines start at `dst.k + head`, which is 64-byte aligned.
    unsafe {
        std::ptr::copy_nonoverlapping(src.v, dst.v, len);
        std::ptr::copy_nonoverlapping(src.k, dst.k, head);
        for l in 0..lines {
            let at = head + l * per_line;
            stream_line(src.k.add(at).cast(), dst.k.add(at).cast());
        }
        let done = head + lines * per_line;
        std::ptr::copy_nonoverlapping(src.k.add(done), dst.k.add(done), len - done);
    }
    fence_streams();
}

/// Copies `len` elements from `src` to `dst` (which may be the same), decoding the keys when
/// `DEC` is set.
///
/// # Safety
/// `src` holds `len` initialised elements; `dst` has room for `len`; the ranges are either
/// identical or disjoint.
unsafe fn copy_decode<K: RadixKey, V: Copy, C: Codec<K>, const DEC: bool>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
) {
    if src.k == dst.k {
        if DEC {
            for i in 0..len {
                // SAFETY: `i < len`, initialised by the caller's contract.
                unsafe { *dst.k.add(i) = C::decode(*dst.k.add(i)) };
            }
        }
        return;
    }
    // SAFETY: disjoint ranges of `len` elements (caller's contract).
    unsafe {
        std::ptr::copy_nonoverlapping(src.v, dst.v, len);
        if DEC {
            for i in 0..len {
                dst.k.add(i).write(C::decode(*src.k.add(i)));
            }
        } else {
            std::ptr::copy_nonoverlapping(src.k, dst.k, len);
        }
    }
}

/// Stable insertion sort of `buf[..len]` by encoded key. `encoded`: the keys are already
/// encoded (they are decoded on the way out either way).
///
/// # Safety
/// `buf` holds `len` initialised elements owned by the caller.
unsafe fn small_sort<K: RadixKey, V: Copy, C: Codec<K>>(buf: Buf<K, V>, len: usize, encoded: bool) {
    // SAFETY: `len` initialised elements at each pointer (caller's contract).
    let (keys, vals) = unsafe {
        (
            std::slice::from_raw_parts_mut(buf.k, len),
            std::slice::from_raw_parts_mut(buf.v, len),
        )
    };
    if !encoded {
        keys.iter_mut().for_each(|k| *k = C::encode(*k));
    }
    for i in 1..len {
        let (k, v) = (keys[i], vals[i]);
        let mut j = i;
        while j > 0 && keys[j - 1] > k {
            keys[j] = keys[j - 1];
            vals[j] = vals[j - 1];
            j -= 1;
        }
        keys[j] = k;
        vals[j] = v;
    }
    keys.iter_mut().for_each(|k| *k = C::decode(*k));
}

/// LSD radix sort of the `len` elements at `src` on `W`-bit digits `0..digits`. Passes alternate
/// between `src` and `tmp`; the last one writes to `out`, where the decoded result ends.
/// `out` may be `src` (then the passes are arranged to end there, with a final copy when
/// their number is odd) or a third buffer. `encoded`: the keys at `src` are already
/// encoded. `stream` (for outputs far larger than the cache, with `out` a third buffer): the
/// last pass stays in cache and one streaming copy ([`copy_streaming`]) writes the result out.
/// Measured on the MSD route, 2^24 random keys on both cores, best of 7
/// (`examples/radix_timing`): the buckets' phase took 41 ms for `u32` with a write-combining
/// last pass and takes 30 ms this way; the whole sort 65 -> 53 ms (`u32`), 93 -> 75 ms
/// (`u64`, whose buckets also finish their runs in cache now).
///
/// # Safety
/// `src` holds `len` initialised elements; `tmp` and `out` have room for `len`; `src`,
/// `tmp` and `out` (unless it is `src`) do not overlap; all belong to the caller alone.
unsafe fn lsd<K: RadixKey, V: Copy, C: Codec<K>, const W: u32>(
    src: Buf<K, V>,
    tmp: Buf<K, V>,
    out: Buf<K, V>,
    len: usize,
    digits: usize,
    encoded: bool,
    stream: bool,
) {
    if len <= INSERTION_MAX_LEN {
        // SAFETY: contract of `lsd`; `copy_decode` without DEC is a plain copy (or nothing),
        // then the small sort works in place on `out`.
        unsafe {
            copy_decode::<K, V, C, false>(src, out, len);
            small_sort::<K, V, C>(out, len, encoded);
        }
        return;
    }
    // SAFETY: `src` holds `len` initialised elements.
    let (mut low_digits, mut hist) = unsafe {
        if encoded {
            let first =
                first_digit::<K, W>(len, digits, || varying_bits::<K, V, C, false>(src, len));
            (
                first,
                count_all::<K, V, C, W, false>(src, len, first, digits),
            )
        } else {
            let first =
                first_digit::<K, W>(len, digits, || varying_bits::<K, V, C, true>(src, len));
            (
                first,
                count_all::<K, V, C, W, true>(src, len, first, digits),
            )
        }
    };
    let (lowered, counted) = lower_first_digit(len, low_digits, &hist[low_digits..], |a, b| {
        // SAFETY: as above.
        let mut h = unsafe {
            if encoded {
                count_all::<K, V, C, W, false>(src, len, a, b)
            } else {
                count_all::<K, V, C, W, true>(src, len, a, b)
            }
        };
        h.split_off(a)
    });
    for (h, c) in hist[lowered..].iter_mut().zip(counted) {
        *h = c;
    }
    low_digits = lowered;
    let passes: Vec<usize> = (low_digits..digits)
        .filter(|&d| hist[d].iter().all(|&c| c != len))
        .collect();
    // With `stream` and a third buffer for the output, the last pass stays in cache (plain
    // scatter into the ping-pong buffer), the runs are finished there, and one streaming copy
    // writes the result out: cheaper than a write-combining last pass, and the finishing walk
    // reads cache instead of the lines just streamed to memory.
    let via_cache = stream && out.k != src.k && out.k != tmp.k;
    let mut cur = src;
    for (i, &d) in passes.iter().enumerate() {
        let mut offsets = exclusive_prefix(&hist[d]);
        let first = i == 0 && !encoded;
        let last = i + 1 == passes.len();
        let other = if cur.k == src.k { tmp } else { src };
        let target = if last && out.k != cur.k && !via_cache {
            out
        } else {
            other
        };
        // SAFETY: `cur` holds `len` initialised elements (the input, or the previous pass's
        // output); `offsets` is the exclusive prefix of this digit's histogram over exactly
        // these elements, so every write lands in `target[..len]`, which is not `cur`.
        unsafe {
            let offs = &mut offsets[..];
            match (first, last) {
                (true, true) => scatter::<K, V, C, W, true, true>(cur, target, len, d, offs),
                (true, false) => scatter::<K, V, C, W, true, false>(cur, target, len, d, offs),
                (false, true) => scatter::<K, V, C, W, false, true>(cur, target, len, d, offs),
                (false, false) => scatter::<K, V, C, W, false, false>(cur, target, len, d, offs),
            }
        }
        cur = target;
    }
    // SAFETY: `cur` holds the `len` sorted elements; `out` is `cur` or a disjoint buffer; the
    // buffer of `src` and `tmp` that is not `cur` is free (its elements were moved on).
    unsafe {
        if via_cache {
            if passes.is_empty() && encoded {
                copy_decode::<K, V, C, true>(cur, cur, len);
            }
            if low_digits > 0 {
                let free = if cur.k == src.k { tmp } else { src };
                finish_runs::<K, V, C, W>(cur, free, len, low_digits);
            }
            copy_streaming(cur, out, len);
            return;
        }
        if passes.is_empty() && encoded {
            copy_decode::<K, V, C, true>(cur, out, len);
        } else {
            // Already decoded: by the last scatter, or never encoded (no pass ran on raw keys).
            copy_decode::<K, V, C, false>(cur, out, len);
        }
        if low_digits > 0 {
            // `tmp` is free again and disjoint from `out` (contract of `lsd`).
            finish_runs::<K, V, C, W>(out, tmp, len, low_digits);
        }
    }
}

/// Varying bits an LSD sort keeps above the digits it leaves to [`finish_runs`], beyond
/// log2 of the length: with 4 more bits than needed to tell the keys apart, about one uniform
/// key in 16 shares its prefix with another, and those short runs cost the finishing walk
/// less than a pass. Measured with a best-of-N loop (one thread below 2^18 keys, random
/// keys), 8 / 4 / 0 slack bits: `u64` 2^12 21.5 / 14.3 us, 2^16 343 / 242 / 248 us; `u32`
/// 2^12 18.3 / 13.7 / 13.2 us, 2^14 62.8 / 59.3 us, 2^16 245 / 234 us; 2^24 `u32` (MSD route,
/// both cores) 64 / 63 / 110 ms (no slack: long runs); 2^20 unchanged (the same passes).
const PREFIX_SLACK_BITS: u32 = 4;

/// The lowest digit an LSD sort of `len` keys runs a pass on: the digits below the most
/// significant varying ones that span `log2(len) + PREFIX_SLACK_BITS` bits are left to
/// [`finish_runs`], and need not even be counted. `varying` gives the bits in which some keys
/// differ; it costs a read of the keys, so it is asked for only where skipping is possible
/// (where the digits above the lowest span enough bits).
///
/// This is where 64-bit keys gain most: 2^20 uniform `u64` keys are told apart by their top
/// 24 bits, 3 [`WIDE`] passes of 6 (2^16 keys: 2 passes).
fn first_digit<K: RadixKey, const W: u32>(
    len: usize,
    digits: usize,
    varying: impl FnOnce() -> K,
) -> usize {
    let need = len.ilog2() + PREFIX_SLACK_BITS;
    if digits < 2 || K::BITS.min(W * digits as u32) - W < need {
        return 0;
    }
    let varying = varying();
    let mut bits = 0;
    for d in (0..digits).rev() {
        if varying.digit::<W>(d) != 0 {
            bits += W.min(K::BITS - W * d as u32);
            if bits >= need {
                return d;
            }
        }
    }
    0
}

/// Whether keys whose digits have the histograms `hists` (all digits above the ones an LSD
/// sort skips) rarely share all of them: the expected number of key pairs that agree on
/// every digit, taking the digits as independent, is at most `len / 8`. Uniform keys with
/// [`PREFIX_SLACK_BITS`] of slack expect about `len / 32`.
fn prefixes_tell_apart(len: usize, hists: &[Vec<usize>]) -> bool {
    let n = len as f64;
    let collision: f64 = hists
        .iter()
        .map(|h| h.iter().map(|&c| (c as f64 / n).powi(2)).sum::<f64>())
        .product();
    n * n / 2.0 * collision <= n / 8.0
}

/// Where the prefixes above `low` (histograms `kept`, digits `low..`) do not tell the keys
/// apart ([`prefixes_tell_apart`]), the lowest digit to sort on instead, and the histograms
/// of the digits added below `low`, lowest first. `count(a, b)` counts digits `a..b` (one
/// read of the keys) and returns their histograms.
///
/// One digit lower first: skewed keys such as floats over a few binades, whose top digits
/// take few values, are told apart by the next digit, which holds mantissa bits (2^12 `f32`
/// uniform in ±1e6: 3 passes instead of 4). Where that is still not enough, every digit.
fn lower_first_digit(
    len: usize,
    low: usize,
    kept: &[Vec<usize>],
    mut count: impl FnMut(usize, usize) -> Vec<Vec<usize>>,
) -> (usize, Vec<Vec<usize>>) {
    if low == 0 || prefixes_tell_apart(len, kept) {
        return (low, Vec::new());
    }
    let next = count(low - 1, low);
    let widened: Vec<Vec<usize>> = next.iter().chain(kept).cloned().collect();
    if low == 1 || prefixes_tell_apart(len, &widened) {
        return (low - 1, next);
    }
    let mut all = count(0, low - 1);
    all.extend(next);
    (0, all)
}

/// The AND and the OR of the (encoded) keys of `src[..len]`; their XOR is the bits in which
/// some keys differ. `ENC`: the keys are raw and are encoded as they are read.
///
/// # Safety
/// `src` must hold `len` initialised elements.
unsafe fn and_or<K: RadixKey, V, C: Codec<K>, const ENC: bool>(
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
unsafe fn varying_bits<K: RadixKey, V, C: Codec<K>, const ENC: bool>(
    src: Buf<K, V>,
    len: usize,
) -> K {
    // SAFETY: forwarded from the caller.
    let (and, or) = unsafe { and_or::<K, V, C, ENC>(src, len) };
    and ^ or
}

/// Finishes an LSD sort that skipped the `low_digits` lowest digits: `out[..len]` (decoded)
/// is sorted by the bits above them, and every run of keys that agree there is sorted by
/// the whole key, stably (insertion sort for short runs, an LSD sort of the low digits for
/// long ones, which skewed data can produce).
///
/// # Safety
/// `out` holds `len` initialised elements; `tmp` has room for `len` and does not overlap it.
unsafe fn finish_runs<K: RadixKey, V: Copy, C: Codec<K>, const W: u32>(
    out: Buf<K, V>,
    tmp: Buf<K, V>,
    len: usize,
    low_digits: usize,
) {
    /// Neighbour pairs tested at once where the test vectorises.
    const BLOCK: usize = 16;
    let shift = W * low_digits as u32;
    // Two raw keys agree on their encoded prefix iff their raw bits do: the maps flip either
    // nothing, the sign bit alone, or all bits below a sign bit that is part of the prefix
    // (so keys of different signs differ there both ways). No decoding needed.
    // SAFETY: `i + 1 < len`, and `out` holds `len` initialised elements (caller's contract).
    let same = |i: usize| unsafe { (*out.k.add(i) ^ *out.k.add(i + 1)) >> shift == K::ZERO };
    let mut i = 0;
    while i + 1 < len {
        // Most neighbours differ (about one uniform key in 16 has a twin): for 32-bit keys
        // one branch-free, vectorised test of a whole block first (the baseline x86-64
        // target has no 64-bit vector compare: there the test per pair is as fast).
        if K::BITS == 32 && i + BLOCK < len {
            // SAFETY: `i + BLOCK < len` elements are initialised; the view ends with this
            // block, before any run is sorted in place.
            let block = unsafe { std::slice::from_raw_parts(out.k.add(i).cast_const(), BLOCK + 1) };
            let any = block[..BLOCK]
                .iter()
                .zip(&block[1..])
                .fold(false, |acc, (&x, &y)| acc | ((x ^ y) >> shift == K::ZERO));
            if !any {
                i += BLOCK;
                continue;
            }
        }
        if !same(i) {
            i += 1;
            continue;
        }
        let mut end = i + 2;
        while end < len && same(end - 1) {
            end += 1;
        }
        // SAFETY: `out[i..end]` is initialised and `tmp` has room for it; the run is sorted
        // in place (the input is raw, decoded keys).
        unsafe {
            lsd::<K, V, C, W>(
                out.add(i),
                tmp,
                out.add(i),
                end - i,
                low_digits,
                false,
                false,
            )
        };
        i = end;
    }
}

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
unsafe fn lsd_parallel<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>, const W: u32>(
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

/// Histogram of digit `d` of the (already encoded) keys of `src[..len]`.
///
/// # Safety
/// `src` must hold `len` initialised elements.
unsafe fn count_one<K: RadixKey, V, const W: u32>(
    src: Buf<K, V>,
    len: usize,
    d: usize,
) -> Vec<usize> {
    // SAFETY: the caller guarantees `len` initialised keys at `src.k`.
    let keys = unsafe { std::slice::from_raw_parts(src.k, len) };
    let mut hist = vec![0usize; 1 << W];
    let mut block_counts = vec![0u32; 1 << W];
    for block in keys.chunks(COUNT_BLOCK) {
        for &k in block {
            // SAFETY: a digit is below `1 << W`, the counters' length.
            unsafe { *block_counts.get_unchecked_mut(k.digit::<W>(d)) += 1 };
        }
        add_block_counts(&mut hist, &mut block_counts);
    }
    hist
}

/// What one read of a chunk tells the MSD pass.
struct Survey<K> {
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
unsafe fn survey<K: RadixKey, V, C: Codec<K>, const W: u32, const ENC: bool>(
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
        for &k in block {
            let e = if ENC { C::encode(k) } else { k };
            and = and & e;
            or = or | e;
            // SAFETY: a `W`-bit field is below `1 << W`, the counters' length.
            unsafe { *block_counts.get_unchecked_mut(e.field::<W>(shift)) += 1 };
        }
        add_block_counts(&mut hist, &mut block_counts);
    }
    Survey { hist, and, or }
}

/// The [`WIDE_MSD_BITS`] split at the top of [`NARROW`] digit `top`, where that digit leaves
/// a bucket of `largest_bucket` keys that takes [`BUCKET_MSD_MIN_BYTES`] or more (and the
/// field fits below the digit's top); `None` keeps the narrow digit.
fn wide_split<K>(top: usize, largest_bucket: usize) -> Option<Split> {
    let top_bit = NARROW * (top as u32 + 1);
    let skewed = largest_bucket.saturating_mul(std::mem::size_of::<K>()) >= BUCKET_MSD_MIN_BYTES;
    (skewed && top_bit >= WIDE_MSD_BITS).then(|| Split {
        shift: top_bit - WIDE_MSD_BITS,
        bits: WIDE_MSD_BITS,
    })
}

/// The digit an MSD pass scatters on: the `bits` bits from bit `shift` up. The buckets are
/// then sorted on the `shift` bits below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Split {
    shift: u32,
    bits: u32,
}

/// Bits of the wide MSD digit, taken where the top [`NARROW`] digit leaves a bucket of at
/// least [`BUCKET_MSD_MIN_BYTES`] (skewed keys, such as floats over a few binades, whose top
/// digit holds the sign and the high exponent bits): 16 times as many buckets, most of them
/// small enough for LSD passes in cache, instead of a second MSD pass over every large
/// bucket (a second read and write-combining scatter of most keys). Counting the wide field
/// costs one more read of the keys, so the survey counts the narrow digit and the wide
/// field is counted only where the narrow one is skewed (a 12-bit histogram in the survey
/// cost 1.2-1.5 ns per key against 0.65-0.7 for 8 bits, one thread, 2^23 keys).
/// Measured with `examples/radix_timing` (best of 12 to 15, both cores, the shared machine
/// noisy), 2^24 `f32` keys uniform in ±1e6: a second MSD pass 73-76 ms; wide splits of 12 /
/// 13 / 14 bits 70-75 / 64-72 / 66-68 ms; 13 bits with `u32` counters 64 ms where
/// `voracious_mt_sort` took 72-78 in the same runs. Uniform `u32` / `u64` keys never take it.
const WIDE_MSD_BITS: u32 = 13;

fn exclusive_prefix(h: &[usize]) -> Vec<usize> {
    let mut out = vec![0usize; h.len()];
    let mut sum = 0;
    for (o, &c) in out.iter_mut().zip(h) {
        *o = sum;
        sum += c;
    }
    out
}

/// Splits `0..n` into `parts` contiguous ranges of nearly equal length.
fn chunk_bounds(n: usize, parts: usize) -> Vec<(usize, usize)> {
    (0..parts)
        .map(|t| (n * t / parts, n * (t + 1) / parts))
        .collect()
}

/// One MSD pass on the highest [`NARROW`] digit (below `digits`) that varies, or on the
/// wider [`WIDE_MSD_BITS`] field at the top where that digit is skewed ([`choose_split`]),
/// then each bucket sorted on the digits below it. Input at `src` (`encoded` or raw), scratch at `dst`; the decoded
/// result ends in `dst` if `result_in_dst`, else in `src`.
///
/// # Safety
/// As [`lsd`].
unsafe fn msd_lsd<K: RadixKey, V: Copy + Send + Sync, C: Codec<K>>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
    digits: usize,
    encoded: bool,
    result_in_dst: bool,
) {
    let parallel = len >= PARALLEL_MIN_LEN && rayon::current_num_threads() > 1;
    let parts = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    let chunks = chunk_bounds(len, parts);
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
    let Some(top) = (0..digits).rev().find(|&d| varying.digit::<NARROW>(d) != 0) else {
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
    let (split, hists) = match wide_split::<K>(top, largest_bucket) {
        Some(wide) => (wide, count(wide)),
        None => (narrow, hists),
    };
    // Per-chunk write offsets: bucket `b` of chunk `t` starts after bucket `b` of chunks
    // `0..t`, which keeps equal keys in input order.
    let buckets = 1usize << split.bits;
    let mut bucket_start = vec![0usize; buckets + 1];
    let mut offsets = vec![vec![0usize; buckets]; parts];
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
    let stream = len * std::mem::size_of::<K>() >= STREAM_MIN_BYTES;
    let scatter_chunk = |(&(a, b), offs): (&(usize, usize), &mut Vec<usize>)| {
        // SAFETY: the chunk `src[a..b]` is initialised; its offsets were computed from its own
        // histogram, so its writes land in ranges of `dst` no other chunk writes.
        unsafe {
            let (s, n, at) = (src.add(a), b - a, split.shift);
            match (split.bits == WIDE_MSD_BITS, encoded, stream) {
                (true, true, true) => {
                    scatter_wc::<K, V, C, WIDE_MSD_BITS, false, true>(s, dst, n, at, offs)
                }
                (true, true, false) => {
                    scatter_wc::<K, V, C, WIDE_MSD_BITS, false, false>(s, dst, n, at, offs)
                }
                (true, false, true) => {
                    scatter_wc::<K, V, C, WIDE_MSD_BITS, true, true>(s, dst, n, at, offs)
                }
                (true, false, false) => {
                    scatter_wc::<K, V, C, WIDE_MSD_BITS, true, false>(s, dst, n, at, offs)
                }
                (false, true, true) => {
                    scatter_wc::<K, V, C, NARROW, false, true>(s, dst, n, at, offs)
                }
                (false, true, false) => {
                    scatter_wc::<K, V, C, NARROW, false, false>(s, dst, n, at, offs)
                }
                (false, false, true) => {
                    scatter_wc::<K, V, C, NARROW, true, true>(s, dst, n, at, offs)
                }
                (false, false, false) => {
                    scatter_wc::<K, V, C, NARROW, true, false>(s, dst, n, at, offs)
                }
            }
        }
    };
    if parallel {
        chunks
            .par_iter()
            .zip(offsets.par_iter_mut())
            .for_each(scatter_chunk);
    } else {
        chunks
            .iter()
            .zip(offsets.iter_mut())
            .for_each(scatter_chunk);
    }
    // Every bucket now sits encoded in `dst`; sort each on the digits below the split (the
    // top one of them may hold bits of the split, the same in every key of the bucket).
    // The buckets' passes ping-pong between their place in `dst` and a buffer of the largest
    // bucket's size, one per task, that stays in cache; only the last pass writes to `out`.
    let below = split.shift.div_ceil(NARROW) as usize;
    let largest = (0..buckets)
        .map(|b| bucket_start[b + 1] - bucket_start[b])
        .filter(|&n| n * std::mem::size_of::<K>() < BUCKET_MSD_MIN_BYTES)
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
            if n * std::mem::size_of::<K>() >= BUCKET_MSD_MIN_BYTES && below > 1 {
                msd_lsd::<K, V, C>(s, d, n, below, true, !result_in_dst);
            } else {
                let out = if result_in_dst { s } else { d };
                let t = Buf {
                    k: tmp.0.as_mut_ptr(),
                    v: tmp.1.as_mut_ptr(),
                };
                lsd::<K, V, C, NARROW>(s, t, out, n, below, true, stream);
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

/// Whether `len` keys of type `K` take the MSD route ([`msd_lsd`]) rather than plain LSD.
fn use_msd<K>(len: usize) -> bool {
    len.saturating_mul(std::mem::size_of::<K>()) >= MSD_MIN_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        // xorshift64*
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn patterns(n: usize, seed: u64) -> Vec<(&'static str, Vec<u64>)> {
        let mut s = seed | 1;
        let random: Vec<u64> = (0..n).map(|_| rng(&mut s)).collect();
        let few: Vec<u64> = (0..n).map(|_| rng(&mut s) % 7).collect();
        vec![
            ("random", random),
            ("ascending", (0..n as u64).collect()),
            ("descending", (0..n as u64).rev().collect()),
            ("saw", (0..n as u64).map(|i| i % 17).collect()),
            (
                "organ",
                (0..n as u64).map(|i| i.min(n as u64 - i)).collect(),
            ),
            ("equal", vec![42; n]),
            ("few", few),
        ]
    }

    /// Every forced route, for tests that must cover each shape at every length.
    const ROUTES: [Route; 5] = [
        Route::Msd,
        Route::Lsd { wide: false },
        Route::Lsd { wide: true },
        Route::ParallelLsd { wide: false },
        Route::ParallelLsd { wide: true },
    ];

    fn lengths() -> Vec<usize> {
        let mut v: Vec<usize> = (0..=300).collect();
        // The MSD shape starts at 2^16 and the parallel one at 2^17; the shared harness
        // (tests/backends.rs) goes on to 2^20.
        for k in 9..=18 {
            v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
        }
        v
    }

    fn specials_f32() -> Vec<u32> {
        [
            f32::from_bits(0xffc0_0000),
            -f32::NAN,
            f32::NEG_INFINITY,
            f32::MIN,
            -1.5,
            -f32::MIN_POSITIVE,
            -f32::from_bits(1),
            -0.0,
            0.0,
            f32::from_bits(1),
            f32::MIN_POSITIVE,
            2.5,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            f32::from_bits(0x7f80_0001),
        ]
        .iter()
        .map(|f| f.to_bits())
        .collect()
    }

    #[test]
    fn u32_patterns_and_lengths() {
        for n in lengths() {
            for (name, v) in patterns(n, n as u64) {
                let a: Vec<u32> = v.iter().map(|&x| x as u32 ^ (x >> 32) as u32).collect();
                let mut want = a.clone();
                want.sort_unstable();
                let mut b = a.clone();
                sort32(&mut b, KeyMap::Unsigned);
                assert_eq!(b, want, "{name} n={n}");
                for route in ROUTES {
                    let mut b = a.clone();
                    sort_with_map(&mut b, &mut unit_values(n), KeyMap::Unsigned, route);
                    assert_eq!(b, want, "{route:?} {name} n={n}");
                }
            }
        }
    }

    #[test]
    fn u64_patterns_and_lengths() {
        for n in lengths() {
            for (name, a) in patterns(n, n as u64 + 7) {
                let mut want = a.clone();
                want.sort_unstable();
                let mut b = a.clone();
                sort64(&mut b, KeyMap::Unsigned);
                assert_eq!(b, want, "{name} n={n}");
                for route in ROUTES {
                    let mut b = a.clone();
                    sort_with_map(&mut b, &mut unit_values(n), KeyMap::Unsigned, route);
                    assert_eq!(b, want, "{route:?} {name} n={n}");
                }
            }
        }
    }

    #[test]
    fn signed_extremes() {
        for n in [0, 1, 5, 47, 48, 49, 300, 1 << 16, (1 << 17) + 3] {
            let mut s = 99u64 + n as u64;
            let mut a: Vec<i32> = (0..n)
                .map(|i| match i % 5 {
                    0 => i32::MIN,
                    1 => i32::MAX,
                    2 => 0,
                    3 => -1,
                    _ => rng(&mut s) as i32,
                })
                .collect();
            let mut want = a.clone();
            want.sort_unstable();
            // SAFETY: test-only reinterpretation of i32 as u32 (same layout).
            let bits = unsafe { std::slice::from_raw_parts_mut(a.as_mut_ptr().cast(), n) };
            sort32(bits, KeyMap::Signed);
            assert_eq!(a, want, "i32 n={n}");

            let mut b: Vec<i64> = (0..n)
                .map(|i| match i % 4 {
                    0 => i64::MIN,
                    1 => i64::MAX,
                    2 => -1,
                    _ => rng(&mut s) as i64 >> (i % 40),
                })
                .collect();
            let mut want = b.clone();
            want.sort_unstable();
            // SAFETY: as above, i64 as u64.
            let bits = unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast(), n) };
            sort64(bits, KeyMap::Signed);
            assert_eq!(b, want, "i64 n={n}");
        }
    }

    #[test]
    fn floats_total_order() {
        let sp = specials_f32();
        for n in [
            0,
            2,
            16,
            48,
            49,
            255,
            256,
            257,
            4097,
            1 << 16,
            (1 << 17) + 1,
        ] {
            let mut s = 5u64 + n as u64;
            let mut a: Vec<u32> = (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        sp[rng(&mut s) as usize % sp.len()]
                    } else {
                        rng(&mut s) as u32
                    }
                })
                .collect();
            let mut want: Vec<f32> = a.iter().map(|&b| f32::from_bits(b)).collect();
            want.sort_by(f32::total_cmp);
            sort32(&mut a, KeyMap::Float);
            let got: Vec<u32> = a.clone();
            let want: Vec<u32> = want.iter().map(|f| f.to_bits()).collect();
            assert_eq!(got, want, "f32 n={n}");
            for route in ROUTES {
                let mut c: Vec<u32> = a.iter().rev().copied().collect();
                sort_with_map(&mut c, &mut unit_values(n), KeyMap::Float, route);
                assert_eq!(c, want, "{route:?} f32 n={n}");
            }

            let mut b: Vec<u64> = (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        (f32::from_bits(sp[rng(&mut s) as usize % sp.len()]) as f64).to_bits()
                    } else {
                        rng(&mut s)
                    }
                })
                .collect();
            let mut want: Vec<f64> = b.iter().map(|&x| f64::from_bits(x)).collect();
            want.sort_by(f64::total_cmp);
            sort64(&mut b, KeyMap::Float);
            let want: Vec<u64> = want.iter().map(|f| f.to_bits()).collect();
            assert_eq!(b, want, "f64 n={n}");
        }
    }

    #[test]
    fn pairs_are_stable() {
        for n in [0, 1, 30, 48, 49, 300, 1000, 1 << 16, (1 << 17) + 5, 1 << 19] {
            for modulus in [1u64, 3, 256, 1 << 20] {
                let mut s = 1234 + n as u64;
                let keys: Vec<u64> = (0..n).map(|_| rng(&mut s) % modulus).collect();
                let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..n as u32).collect();
                want.sort_by_key(|p| p.0);

                for route in std::iter::once(Route::BySize).chain(ROUTES) {
                    let mut k64 = keys.clone();
                    let mut v: Vec<u32> = (0..n as u32).collect();
                    sort_with_map(&mut k64, &mut v, KeyMap::Unsigned, route);
                    let got: Vec<(u64, u32)> = k64.into_iter().zip(v).collect();
                    assert_eq!(got, want, "u64 pairs n={n} mod={modulus}");
                }

                // Signed 32-bit keys with negative values, still stable.
                let k32: Vec<u32> = keys.iter().map(|&k| (k as i32 - 100) as u32).collect();
                let mut want32: Vec<(i32, u32)> =
                    k32.iter().map(|&k| k as i32).zip(0..n as u32).collect();
                want32.sort_by_key(|p| p.0);
                for route in std::iter::once(Route::BySize).chain(ROUTES) {
                    let mut k = k32.clone();
                    let mut v: Vec<u32> = (0..n as u32).collect();
                    sort_with_map(&mut k, &mut v, KeyMap::Signed, route);
                    let got: Vec<(i32, u32)> = k.into_iter().map(|k| k as i32).zip(v).collect();
                    assert_eq!(got, want32, "i32 pairs n={n} mod={modulus}");
                }
            }
        }
    }

    #[test]
    fn streaming_sizes() {
        // Above STREAM_MIN_BYTES: the MSD scatter and the buckets' last passes stream.
        let n = (STREAM_MIN_BYTES / 4) + 77;
        let mut s = 4242u64;
        let mut a: Vec<u32> = (0..n).map(|_| rng(&mut s) as u32).collect();
        let mut want = a.clone();
        want.sort_unstable();
        // Forced MSD route: the size alone takes it only from MSD_MIN_BYTES.
        sort_with_map(&mut a, &mut unit_values(n), KeyMap::Unsigned, Route::Msd);
        assert!(a == want, "u32 n={n}");

        let n = (STREAM_MIN_BYTES / 8) + 5;
        let mut k: Vec<u64> = (0..n).map(|_| rng(&mut s) % (1 << 40)).collect();
        let mut want: Vec<(u64, u32)> = k.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| p.0);
        let mut v: Vec<u32> = (0..n as u32).collect();
        sort_with_map(&mut k, &mut v, KeyMap::Unsigned, Route::Msd);
        assert!(k.iter().copied().zip(v).eq(want), "u64 pairs n={n}");

        // Buckets far smaller than a write-combining block (odd top bytes, about 8 keys
        // each) between large ones (even top bytes): blocks that start and end inside a
        // bucket, partial blocks at both ends of the large ones.
        let n = (STREAM_MIN_BYTES / 4) + 11;
        let mut a: Vec<u32> = (0..n)
            .map(|i| {
                let low = rng(&mut s) as u32 & 0x00ff_ffff;
                let top = if i % 4096 == 7 {
                    1 + 2 * (i % 128)
                } else {
                    2 * (i % 128)
                };
                (top as u32) << 24 | low
            })
            .collect();
        let mut want = a.clone();
        want.sort_unstable();
        sort_with_map(&mut a, &mut unit_values(n), KeyMap::Unsigned, Route::Msd);
        assert!(a == want, "tiny buckets n={n}");

        // Sixteen distinct signed keys, each with a top byte of its own: every bucket (1 MiB,
        // below BUCKET_MSD_MIN_BYTES) is constant below its top digit, so its LSD sort runs
        // no pass and only decodes before the streaming copy.
        let n = (STREAM_MIN_BYTES / 4) + 3;
        let distinct: Vec<i32> = (0..16).map(|i| ((i - 8) << 27) | 0x123).collect();
        let mut a: Vec<u32> = (0..n).map(|i| distinct[(i * 7) % 16] as u32).collect();
        let mut want = a.clone();
        want.sort_unstable_by_key(|&b| b as i32);
        sort_with_map(&mut a, &mut unit_values(n), KeyMap::Signed, Route::Msd);
        assert!(a == want, "sixteen signed keys n={n}");
    }

    #[test]
    fn prefix_split_finishes_long_runs() {
        // The top three wide digits each hold one varying bit: the LSD sort keeps them (they
        // span enough nominal bits) and leaves runs of about n / 8 keys that agree on all
        // three to `finish_runs`, which sorts them on the 32 low bits.
        let mut s = 31u64;
        for n in [5000usize, 1 << 16, (1 << 18) + 9] {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    let r = rng(&mut s);
                    (r & 1) << 63 | (r >> 1 & 1) << 50 | (r >> 2 & 1) << 40 | (r >> 32)
                })
                .collect();
            let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..n as u32).collect();
            want.sort_by_key(|p| p.0);
            for route in ROUTES {
                let mut k = keys.clone();
                let mut v: Vec<u32> = (0..n as u32).collect();
                sort_with_map(&mut k, &mut v, KeyMap::Unsigned, route);
                assert!(
                    k.iter().copied().zip(v).eq(want.iter().copied()),
                    "{route:?} n={n}"
                );
            }
        }
    }

    #[test]
    fn skewed_prefixes_sort_on_every_digit() {
        // Floats over a few binades: their top digits span many bits but take few values,
        // so `prefixes_tell_apart` refuses the skip and the LSD sorts sort one digit more
        // (2^12 keys, 8-bit digits) or every digit (11-bit digits).
        let mut s = 3u64;
        for n in [1usize << 12, 1 << 14, 1 << 16, (1 << 18) + 5] {
            let keys: Vec<u32> = (0..n)
                .map(|_| ((rng(&mut s) >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6) as f32)
                .map(f32::to_bits)
                .collect();
            let mut want: Vec<f32> = keys.iter().map(|&b| f32::from_bits(b)).collect();
            want.sort_by(f32::total_cmp);
            let want: Vec<u32> = want.into_iter().map(f32::to_bits).collect();
            for route in std::iter::once(Route::BySize).chain(ROUTES) {
                let mut k = keys.clone();
                sort_with_map(&mut k, &mut unit_values(n), KeyMap::Float, route);
                assert!(k == want, "{route:?} n={n}");
            }
        }
    }

    #[test]
    fn lower_first_digit_steps_down_once_then_to_every_digit() {
        let n = 4096;
        let uniform = vec![n / 256; 256];
        let mut skewed = vec![0; 256];
        (skewed[0], skewed[1]) = (n / 2, n / 2);
        let mut asked = Vec::new();
        let count_as = |h: &Vec<usize>, a: usize, b: usize, asked: &mut Vec<(usize, usize)>| {
            asked.push((a, b));
            vec![h.clone(); b - a]
        };
        // Two uniform digits tell 4096 keys apart: nothing more is counted.
        let kept = [uniform.clone(), uniform.clone()];
        let got = lower_first_digit(n, 2, &kept, |a, b| count_as(&uniform, a, b, &mut asked));
        assert_eq!((got.0, asked.len()), (2, 0));
        // A skewed top digit: one uniform digit more is enough.
        let kept = [uniform.clone(), skewed.clone()];
        let got = lower_first_digit(n, 2, &kept, |a, b| count_as(&uniform, a, b, &mut asked));
        assert_eq!(
            (got, &asked[..]),
            ((1, vec![uniform.clone()]), &[(1, 2)][..])
        );
        // Skewed everywhere: every digit, the one below first.
        asked.clear();
        let kept = [skewed.clone(), skewed.clone()];
        let got = lower_first_digit(n, 3, &kept, |a, b| count_as(&skewed, a, b, &mut asked));
        assert_eq!(
            (got, &asked[..]),
            ((0, vec![skewed.clone(); 3]), &[(2, 3), (0, 2)][..])
        );
    }

    #[test]
    fn skewed_buckets_recurse() {
        // 90% of the keys share their top 13 bits: one MSD bucket of over
        // BUCKET_MSD_MIN_BYTES even after the wide split, which takes the MSD route again.
        let n = 1 << 20;
        assert!(n * 9 / 10 * 4 >= BUCKET_MSD_MIN_BYTES);
        assert!(0x0007_ffff_u32.leading_zeros() >= WIDE_MSD_BITS);
        let mut s = 77u64;
        let mut a: Vec<u32> = (0..n)
            .map(|i| {
                let r = rng(&mut s) as u32;
                if i % 10 == 0 {
                    r
                } else {
                    0x4200_0000 | (r & 0x0007_ffff)
                }
            })
            .collect();
        let mut want = a.clone();
        want.sort_unstable();
        sort_with_map(&mut a, &mut unit_values(n), KeyMap::Unsigned, Route::Msd);
        assert_eq!(a, want);
    }

    #[test]
    fn wide_split_only_for_skewed_top_digits() {
        // u32 keys whose top digit (24..32) leaves a bucket of 2 MiB: the 13 bits from 19 up.
        let big = BUCKET_MSD_MIN_BYTES / 4;
        assert_eq!(
            wide_split::<u32>(3, big),
            Some(Split {
                shift: 32 - WIDE_MSD_BITS,
                bits: WIDE_MSD_BITS
            })
        );
        assert_eq!(wide_split::<u32>(3, big - 1), None);
        // u64 keys count 8 bytes each; a top digit of 1 (bits 8..16) is wide enough.
        assert_eq!(
            wide_split::<u64>(1, big / 2),
            Some(Split {
                shift: 16 - WIDE_MSD_BITS,
                bits: WIDE_MSD_BITS
            })
        );
        // The lowest digit has only 8 bits: no wide field fits.
        assert_eq!(wide_split::<u64>(0, big), None);
    }

    #[test]
    fn floats_over_few_binades_take_the_wide_split_stably() {
        // f32 uniform in ±1e6: the top digit (sign and high exponent bits) takes a handful
        // of values, and the largest bucket (about a quarter of the keys) is over
        // BUCKET_MSD_MIN_BYTES, so the MSD pass takes the wide split. Pairs stay stable:
        // the keys are rounded to few distinct values, each repeated many times.
        let n = 1 << 22;
        assert!(n / 4 * 4 >= BUCKET_MSD_MIN_BYTES);
        let mut s = 99u64;
        let keys: Vec<u32> = (0..n)
            .map(|_| {
                let u = (rng(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
                (((u * 2e6 - 1e6) as f32 / 64.0).round() * 64.0).to_bits()
            })
            .collect();
        let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..n as u32).collect();
        want.sort_by(|a, b| f32::from_bits(a.0).total_cmp(&f32::from_bits(b.0)));
        let mut k = keys.clone();
        let mut v: Vec<u32> = (0..n as u32).collect();
        sort_with_map(&mut k, &mut v, KeyMap::Float, Route::Msd);
        let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
        assert!(got == want, "f32 pairs n={n}");
    }
}
