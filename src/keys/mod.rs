//! Key sort: `u32`, `i32`, `f32`, `u64`, `i64`, `f64` keys and key/value pairs, through the
//! order-preserving maps of [`KeyMap`](crate::KeyMap).
//!
//! Users sort through a [backend](crate::backend); [`RadixSorter`] is the `radix` backend's
//! sort with scratch memory kept between calls. Inside: `key` (the maps), `radix/` (LSD,
//! MSD, scatter), `network` and `portable` (the vectorised quicksort over a vector trait),
//! `x86_64/` (its AVX2 and AVX-512 instantiations), `few` (counting few distinct keys),
//! `scratch` (the radix sort's memory).

pub(crate) mod bitonic;
pub(crate) mod cache;
pub(crate) mod few;
pub(crate) mod key;
pub(crate) mod network;
pub(crate) mod portable;
pub(crate) mod radix;
pub(crate) mod scratch;
pub(crate) mod select;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

pub use radix::RadixSorter;
