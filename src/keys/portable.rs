//! Portable key sort: the shared vectorised sort of `keys::network` over the `wide` crate's
//! `u32x8` and `u64x4` (two SSE2 registers on x86-64 without AVX2 at compile time, NEON on
//! aarch64, plain arrays elsewhere). No intrinsics: it builds and runs on every target.
//!
//! `wide` has lane-wise min/max (64-bit keys: a compare and a blend) but no lane
//! permutations or compress, so the in-vector network stages and the partition go through
//! arrays, which the compiler turns into shuffles where the target has them.
//!
//! On x86-64 built for the baseline target (SSE2), `wide`'s unsigned 32-bit min/max need
//! SSE4.1 and its 64-bit compares SSE4.2, so they fall back to one scalar operation per
//! lane: there this sort is 2-12 times slower than `radix` (BENCHMARKS.md, "CPU key sort, one thread") and
//! `auto` does not pick it; x86-64 CPUs with AVX2 use the `avx2` backend instead.

use wide::{u32x8, u64x4};

use super::key::KeyMap;
use super::network::{self, KeyVector};

/// Sorts 32-bit keys ascending by `map.encode32(key)`.
pub fn sort32(keys: &mut [u32], map: KeyMap) {
    map.encode_slice32(keys);
    // SAFETY: `Wide32` uses only `wide`'s safe operations and plain memory accesses the
    // trait's callers keep in bounds; it needs no CPU feature beyond the compile target.
    unsafe { network::quicksort::<Wide32>(keys) };
    map.decode_slice32(keys);
}

/// Sorts 64-bit keys ascending by `map.encode64(key)`.
pub fn sort64(keys: &mut [u64], map: KeyMap) {
    map.encode_slice64(keys);
    // SAFETY: as in `sort32`.
    unsafe { network::quicksort::<Wide64>(keys) };
    map.decode_slice64(keys);
}

/// The lanes of `keys` reordered for `partition_store`: those below `pivot` first, then the
/// others, each group in lane order; and how many are below. Branch-free: each key is
/// written to the next slot of its group, a slot that a later key of that group overwrites
/// if the key was not in the group.
#[inline(always)]
fn partition_lanes<K: Copy + Ord + Default, const L: usize>(
    keys: [K; L],
    pivot: K,
) -> ([K; L], usize) {
    // One spare slot: the second pass may write one past the end after its group is full.
    const { assert!(L < 16) };
    let mut out = [K::default(); 16];
    let mut below = 0;
    for &k in &keys {
        out[below] = k;
        below += usize::from(k < pivot);
    }
    let mut rest = below;
    for &k in &keys {
        out[rest] = k;
        rest += usize::from(k >= pivot);
    }
    (std::array::from_fn(|i| out[i]), below)
}

/// Generates the memory operations shared by both widths.
macro_rules! wide_memory_ops {
    ($vec:ident, $key:ty, $lanes:expr) => {
        #[inline(always)]
        unsafe fn load(src: *const $key) -> Self {
            // SAFETY: the trait contract gives `LANES` readable keys; no alignment needed.
            Self($vec::new(unsafe {
                src.cast::<[$key; $lanes]>().read_unaligned()
            }))
        }
        #[inline(always)]
        unsafe fn store(self, dst: *mut $key) {
            // SAFETY: the trait contract gives `LANES` writable keys.
            unsafe {
                dst.cast::<[$key; $lanes]>()
                    .write_unaligned(self.0.to_array())
            }
        }
        #[inline(always)]
        unsafe fn load_padded(src: *const $key, n: usize) -> Self {
            let mut keys = [<$key>::MAX; $lanes];
            // SAFETY: the trait contract gives `n < LANES` readable keys.
            unsafe { std::ptr::copy_nonoverlapping(src, keys.as_mut_ptr(), n.min($lanes)) };
            Self($vec::new(keys))
        }
        #[inline(always)]
        unsafe fn store_first(self, dst: *mut $key, n: usize) {
            let keys = self.0.to_array();
            // SAFETY: the trait contract gives `n <= LANES` writable keys.
            unsafe { std::ptr::copy_nonoverlapping(keys.as_ptr(), dst, n.min($lanes)) };
        }
        #[inline(always)]
        unsafe fn splat(k: $key) -> Self {
            Self($vec::splat(k))
        }
        #[inline(always)]
        unsafe fn xor_permute(self, m: usize) -> Self {
            let keys = self.0.to_array();
            Self($vec::new(std::array::from_fn(|l| keys[(l ^ m) % $lanes])))
        }
        #[inline(always)]
        unsafe fn blend_bit(lo: Self, hi: Self, bit: usize) -> Self {
            let (lo, hi) = (lo.0.to_array(), hi.0.to_array());
            Self($vec::new(std::array::from_fn(|l| {
                if l & bit != 0 {
                    hi[l]
                } else {
                    lo[l]
                }
            })))
        }
        #[inline(always)]
        unsafe fn partition_store(
            self,
            pivot: Self,
            left: *mut $key,
            right_end: *mut $key,
        ) -> usize {
            let (parted, below) = partition_lanes(self.0.to_array(), pivot.0.to_array()[0]);
            // SAFETY: the trait contract gives `left[..LANES]` and `right_end[-LANES..]` to
            // write (both whole; they may coincide, where both writes leave the same keys).
            unsafe {
                left.cast::<[$key; $lanes]>().write_unaligned(parted);
                right_end
                    .sub($lanes)
                    .cast::<[$key; $lanes]>()
                    .write_unaligned(parted);
            }
            below
        }
    };
}

/// 8 `u32` keys in a `wide::u32x8`.
#[derive(Clone, Copy)]
struct Wide32(u32x8);

/// The block sort of `keys::network` for `Wide32`, out of line (see
/// `KeyVector::sort_block`).
#[inline]
fn block_wide32(keys: &mut [u32]) {
    // SAFETY: `Wide32` needs no CPU feature beyond the compile target.
    unsafe { super::bitonic::sort_block_in_registers::<Wide32>(keys) }
}

impl KeyVector for Wide32 {
    type Key = u32;
    const LANES: usize = 8;
    const MAX: u32 = u32::MAX;
    const BLOCK_VECTORS: usize = 8;

    wide_memory_ops!(u32x8, u32, 8);

    #[inline(always)]
    unsafe fn sort_block(keys: &mut [u32]) {
        block_wide32(keys);
    }

    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        Wide32(self.0.min(other.0))
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        Wide32(self.0.max(other.0))
    }
}

/// 4 `u64` keys in a `wide::u64x4` (unsigned min/max are a compare and a blend: `wide` has
/// no 64-bit min/max).
#[derive(Clone, Copy)]
struct Wide64(u64x4);

/// The block sort of `keys::network` for `Wide64`, out of line (see
/// `KeyVector::sort_block`).
#[inline]
fn block_wide64(keys: &mut [u64]) {
    // SAFETY: `Wide64` needs no CPU feature beyond the compile target.
    unsafe { super::bitonic::sort_block_in_registers::<Wide64>(keys) }
}

impl KeyVector for Wide64 {
    type Key = u64;
    const LANES: usize = 4;
    const MAX: u64 = u64::MAX;
    const BLOCK_VECTORS: usize = 8;

    wide_memory_ops!(u64x4, u64, 4);

    #[inline(always)]
    unsafe fn sort_block(keys: &mut [u64]) {
        block_wide64(keys);
    }

    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        Wide64(self.0.cmp_gt(other.0).blend(other.0, self.0))
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        Wide64(self.0.cmp_gt(other.0).blend(self.0, other.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::network::tests as shared;

    #[test]
    fn partition_lanes_on_every_mask() {
        for mask in 0..256u32 {
            let keys: [u32; 8] = std::array::from_fn(|l| {
                if mask & (1 << l) != 0 {
                    l as u32
                } else {
                    100 + l as u32
                }
            });
            let (parted, below) = partition_lanes(keys, 100);
            let want: Vec<u32> = keys
                .iter()
                .filter(|&&k| k < 100)
                .chain(keys.iter().filter(|&&k| k >= 100))
                .copied()
                .collect();
            assert_eq!(parted.to_vec(), want, "mask {mask:08b}");
            assert_eq!(below, mask.count_ones() as usize);
        }
    }

    #[test]
    fn partition_store_on_every_mask() {
        // SAFETY: the portable vectors need no CPU feature.
        unsafe {
            shared::check_partition_store32::<Wide32>();
            shared::check_partition_store64::<Wide64>();
        }
    }

    #[test]
    fn vector_operations_match_scalar() {
        // SAFETY: the portable vectors need no CPU feature.
        unsafe {
            shared::check_vector_ops::<Wide32>(|s| (s ^ (s >> 32)) as u32);
            shared::check_partition::<Wide32>(|s| (s ^ (s >> 32)) as u32);
            shared::check_vector_ops::<Wide64>(|s| s);
            shared::check_partition::<Wide64>(|s| s);
        }
    }

    #[test]
    fn u32_and_u64_against_std() {
        shared::check_sorts(sort32, sort64);
    }
}
