//! Values of any type, records by key and argsort: what travels through a pair sort and how
//! it comes back.
//!
//! Values of 4 and 8 bytes move with their keys inside the sort, as raw bytes
//! ([`Values`](crate::backend::Values)). Everything else goes through (key, index) pairs:
//! the keys' images and the indices `0..n` are sorted as pairs, then one gather moves the
//! values (or records) to their places.
//!
//! Memory of the index route, for `n` elements of `b` bytes with `w`-byte keys: the key
//! images (`w * n`), the indices (`4n`, `8n` past 2^32 elements), the pair sort's scratch
//! (the same again for `radix`) and the gather's copy of the elements (`b * n`), all freed
//! before the call returns.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::key::{is_small, small_image, Key, KeyMap, KeyWidth};

/// Gathers (and key extractions) of more than this many elements split over the rayon
/// threads (random reads of the source; each thread writes its own part of the output).
/// At 2^16 16-byte records the extraction takes 14 us on one thread and the gather about
/// as long as waking the other thread (AMD build machine, two threads, under load: packed
/// route with a serial gather 0.33 ms against 0.39 ms with the parallel one, records driver
/// of [`PACKED_MAX_LEN`]).
const PARALLEL_GATHER_MIN_LEN: usize = (1 << 16) + 1;

/// Elements per rayon task of the gather and the key extraction.
const CHUNK: usize = 1 << 14;

/// The unsigned images of a slice of keys, for a pair sort that leaves the keys themselves
/// alone (argsort) or never had them in a slice (records by key).
pub(crate) enum Image {
    /// 32-bit images, to be sorted by the map (1- and 2-byte keys are already mapped and
    /// widened, with [`KeyMap::Unsigned`]).
    W32(Vec<u32>, KeyMap),
    /// 64-bit images.
    W64(Vec<u64>, KeyMap),
}

impl Image {
    /// The images of the keys `key(0) .. key(n - 1)`, computed in parallel for long inputs.
    pub(crate) fn of<K: Key>(n: usize, key: impl Fn(usize) -> K + Sync) -> Image {
        fn collect<X: Send>(n: usize, f: impl Fn(usize) -> X + Sync) -> Vec<X> {
            if n >= PARALLEL_GATHER_MIN_LEN {
                (0..n).into_par_iter().with_min_len(CHUNK).map(&f).collect()
            } else {
                (0..n).map(f).collect()
            }
        }
        if is_small::<K>() {
            Image::W32(collect(n, |i| small_image(key(i))), KeyMap::Unsigned)
        } else {
            match K::WIDTH {
                KeyWidth::W32 => {
                    Image::W32(collect(n, |i| bytemuck::cast::<K, u32>(key(i))), K::MAP)
                }
                KeyWidth::W64 => {
                    Image::W64(collect(n, |i| bytemuck::cast::<K, u64>(key(i))), K::MAP)
                }
            }
        }
    }
}

/// Records of at most this many elements, keyed by keys of 32 bits or fewer, are sorted as
/// packed words: the key's image in the high half and the element's index in the low half,
/// sorted as 64-bit keys (unique, so the order is stable), then moved by one gather.
///
/// Such a slice sits in the core's L2, where the cost is the passes' work, not memory: the
/// route that moves the records inside the radix sort scatters 20-byte elements to 2048
/// buckets, the gather route moves each record once. AMD build machine, two threads, 2^16
/// 16-byte records by a `u32` key, medians of 31 (`small` in the records driver, under load):
/// moved inside the sort 0.39-0.75 ms, packed words and gather 0.34-0.35 ms, rdst 0.36 ms;
/// at 2^17 and 2^18 the gather's random reads leave the L2 and the packed route loses
/// (BENCHMARKS.md, "Calls").
pub(crate) const PACKED_MAX_LEN: usize = 1 << 16;

/// The packed words `image << 32 | i` of the keys `key(0) .. key(n - 1)` (see
/// [`PACKED_MAX_LEN`]), if the keys are 32 bits wide or narrower and `n` is at most that;
/// the image is the unsigned image of the key's map, so the words sort as unsigned keys.
pub(crate) fn packed32<K: Key>(n: usize, key: impl Fn(usize) -> K) -> Option<Vec<u64>> {
    if n > PACKED_MAX_LEN {
        return None;
    }
    let pack = |i: usize, image: u32| (u64::from(image) << 32) | i as u64;
    if is_small::<K>() {
        Some((0..n).map(|i| pack(i, small_image(key(i)))).collect())
    } else if K::WIDTH == KeyWidth::W32 {
        let map = K::MAP;
        Some(
            (0..n)
                .map(|i| pack(i, map.encode32(bytemuck::cast::<K, u32>(key(i)))))
                .collect(),
        )
    } else {
        None
    }
}

/// The index in the low half of a packed word ([`packed32`]).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Low32(u64);

impl Index for Low32 {
    #[inline(always)]
    fn at(self) -> usize {
        self.0 as u32 as usize
    }
}

/// Moves `items` by sorted packed words ([`packed32`]): `items[i]` becomes the old
/// `items[packed[i] as u32]`.
///
/// # Safety
/// The low halves of `packed` are a permutation of `0..items.len()`.
pub(crate) unsafe fn gather_packed<T: Send + Sync>(items: &mut [T], packed: &[u64]) {
    // SAFETY: `Low32` is a transparent `u64`: same size, alignment and bits.
    let order =
        unsafe { std::slice::from_raw_parts(packed.as_ptr().cast::<Low32>(), packed.len()) };
    // SAFETY: the caller's contract: `order` is a permutation of `0..items.len()`.
    unsafe { gather_records(items, order) };
}

/// The positions `0..n` as `u32` indices (the caller has checked that `n` fits), for a pair
/// sort.
pub(crate) fn iota32(n: usize) -> Vec<u32> {
    debug_assert!(u32::try_from(n).is_ok());
    (0..n as u32).collect()
}

/// Widens sorted `u32` indices to `usize`.
pub(crate) fn widen(order: &[u32]) -> Vec<usize> {
    if order.len() >= PARALLEL_GATHER_MIN_LEN {
        order
            .par_iter()
            .with_min_len(CHUNK)
            .map(|&i| i as usize)
            .collect()
    } else {
        order.iter().map(|&i| i as usize).collect()
    }
}

/// An index into the source of a gather.
pub(crate) trait Index: Copy + Send + Sync {
    fn at(self) -> usize;
}

impl Index for u32 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

impl Index for u64 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

impl Index for usize {
    #[inline(always)]
    fn at(self) -> usize {
        self
    }
}

/// Reorders `values` of a `Copy` type so that `values[i]` becomes the old `values[order[i]]`.
/// `order` holds indices below `values.len()` (duplicates only copy a value twice).
pub(crate) fn gather_copy<V: Copy + Send + Sync, I: Index>(values: &mut [V], order: &[I]) {
    debug_assert_eq!(values.len(), order.len());
    let source = values.to_vec();
    let fill = |(out, idx): (&mut [V], &[I])| {
        for (o, &i) in out.iter_mut().zip(idx) {
            *o = source[i.at()];
        }
    };
    if values.len() >= PARALLEL_GATHER_MIN_LEN {
        values
            .par_chunks_mut(CHUNK)
            .zip(order.par_chunks(CHUNK))
            .for_each(fill);
    } else {
        fill((values, order));
    }
}

/// Whether `order` is a permutation of `0..order.len()`, for orders that come from a backend
/// outside the crate (see [`gather_records`]).
pub(crate) fn is_permutation<I: Index>(order: &[I]) -> bool {
    let mut seen = vec![false; order.len()];
    order.iter().all(|&i| {
        let i = i.at();
        i < seen.len() && !std::mem::replace(&mut seen[i], true)
    })
}

/// Moves `items` so that `items[i]` becomes the old `items[order[i]]`, through one copy of
/// the items (`size_of::<T>() * n` bytes).
///
/// # Safety
/// `order` is a permutation of `0..items.len()` (every index exactly once); otherwise an
/// item would be moved twice and another lost.
pub(crate) unsafe fn gather_records<T: Send + Sync, I: Index>(items: &mut [T], order: &[I]) {
    let n = items.len();
    debug_assert_eq!(n, order.len());
    let mut out: Vec<MaybeUninit<T>> = Vec::with_capacity(n);
    // SAFETY: `MaybeUninit` needs no initialisation; the capacity is `n`.
    unsafe { out.set_len(n) };
    /// The source as an address that rayon tasks may share.
    struct Source<T>(*const T);
    impl<T> Clone for Source<T> {
        fn clone(&self) -> Self {
            *self
        }
    }
    impl<T> Copy for Source<T> {}
    impl<T> Source<T> {
        /// Moves element `i` out.
        ///
        /// # Safety
        /// `i` is in bounds and the element is read only once.
        unsafe fn take(self, i: usize) -> T {
            // SAFETY: the caller's contract.
            unsafe { self.0.add(i).read() }
        }
    }
    // SAFETY: tasks only read distinct elements through it (the order is a permutation)
    // while the slice it points into is not otherwise touched; `T: Send` lets the values
    // move to the reading thread.
    unsafe impl<T: Send> Send for Source<T> {}
    // SAFETY: as above.
    unsafe impl<T: Send> Sync for Source<T> {}
    let source = Source(items.as_ptr());
    let fill = move |(out, idx): (&mut [MaybeUninit<T>], &[I])| {
        for (o, &i) in out.iter_mut().zip(idx) {
            // SAFETY: `i < n` and every index appears once (the caller's contract), so each
            // item is read (moved out) exactly once; nothing reads it again before the copy
            // below overwrites the whole slice.
            o.write(unsafe { source.take(i.at()) });
        }
    };
    if n >= PARALLEL_GATHER_MIN_LEN {
        out.par_chunks_mut(CHUNK)
            .zip(order.par_chunks(CHUNK))
            .for_each(fill);
    } else {
        fill((&mut out, order));
    }
    // SAFETY: `out` holds `n` initialised items (every position written once above), the
    // items in `items` were all moved out, so overwriting them bitwise drops nothing twice;
    // `out`'s buffer is then freed without dropping its (moved) contents.
    unsafe {
        std::ptr::copy_nonoverlapping(out.as_ptr().cast::<T>(), items.as_mut_ptr(), n);
        out.set_len(0);
    }
}

/// A stable sorting order: `order[i]` is the position, in the input, of the `i`-th element
/// of the sorted output.
pub(crate) enum Order {
    /// Up to 2^32 elements.
    U32(Vec<u32>),
    /// More.
    U64(Vec<u64>),
}

impl Order {
    /// Reorders `values` by the order.
    pub(crate) fn gather_copy<V: Copy + Send + Sync>(&self, values: &mut [V]) {
        match self {
            Order::U32(o) => gather_copy(values, o),
            Order::U64(o) => gather_copy(values, o),
        }
    }

    /// Whether the order is a permutation of `0..n`.
    pub(crate) fn is_permutation(&self) -> bool {
        match self {
            Order::U32(o) => is_permutation(o),
            Order::U64(o) => is_permutation(o),
        }
    }

    /// Moves `items` by the order ([`gather_records`]).
    ///
    /// # Safety
    /// The order is a permutation of `0..items.len()`.
    pub(crate) unsafe fn gather_records<T: Send + Sync>(&self, items: &mut [T]) {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            match self {
                Order::U32(o) => gather_records(items, o),
                Order::U64(o) => gather_records(items, o),
            }
        }
    }

    /// The order as `usize` indices.
    pub(crate) fn into_usize(self) -> Vec<usize> {
        match self {
            Order::U32(o) => widen(&o),
            Order::U64(o) => o.into_iter().map(|i| i as usize).collect(),
        }
    }
}
