//! Key sort: `u8` to `u128`, `i8` to `i128`, `f32`, `f64`, `usize` and `isize` keys, byte
//! strings, key/value pairs, records by key, argsort, select and partial sort, through the
//! order-preserving maps of [`KeyMap`](crate::KeyMap).
//!
//! Users sort through a [backend](crate::backend); [`CpuRadixSorter`] is the `radix` backend's
//! sort with scratch memory kept between calls. Inside: `key` (the maps), `radix/` (LSD,
//! MSD, scatter), `network` and `portable` (the vectorised quicksort over a vector trait),
//! `bitonic` (the quicksort's base case), `cache` (cache sizes read at run time),
//! `x86_64/` (its AVX2 and AVX-512 instantiations), `few` (counting few distinct keys),
//! `nearly` (sorted input but for a few keys),
//! `scratch` (the radix sort's memory), `small` (counting sort of 1- and 2-byte keys),
//! `keys128` (the MSD radix sort of 16-byte keys), `strings` (byte strings, 8 bytes a digit),
//! `select` (select and partial sort), `records` (values of any type, records by key and
//! argsort through (key, index) pairs and one gather).

pub(crate) mod bitonic;
pub(crate) mod cache;
pub(crate) mod few;
pub(crate) mod key;
pub(crate) mod keys128;
pub(crate) mod nearly;
pub(crate) mod network;
pub(crate) mod portable;
pub(crate) mod radix;
pub(crate) mod records;
pub(crate) mod sampling;
pub(crate) mod scratch;
pub(crate) mod select;
pub(crate) mod small;
pub(crate) mod strings;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

pub use radix::CpuRadixSorter;
