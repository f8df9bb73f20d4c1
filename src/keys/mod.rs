//! Key sort: `u32`, `i32`, `f32`, `u64`, `i64`, `f64` keys and key/value pairs, through the
//! order-preserving maps of [`key`].

pub(crate) mod few;
pub mod key;
pub(crate) mod network;
pub mod portable;
pub mod radix;
pub(crate) mod scratch;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;
