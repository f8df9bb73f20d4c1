//! AVX2 key sort: 8 `u32` or 4 `u64` keys per 256-bit vector, the shared vectorised sort of
//! `keys::network` instantiated for AVX2.
//!
//! AVX2 lacks three things the AVX-512 vectors use, and this module makes up for them:
//!
//! * **Unsigned 64-bit compares, min and max.** The keys get their sign bit flipped in the
//!   encoding pass (fused with the [`KeyMap`]), which turns the unsigned order into the
//!   signed one `vpcmpgtq` compares; min and max are a blend on that compare (32-bit keys
//!   have `vpminud`/`vpmaxud`).
//! * **Compress.** `KeyVector::partition_store` looks the below-pivot lane mask up in a
//!   permutation table (`PARTITION8`, 256 entries for 8 lanes; `PARTITION64`, 16 entries
//!   for 4 lanes) that moves the lanes below the pivot to the
//!   front and the others behind them, permutes with `vpermd`, and stores the whole vector
//!   at both ends, as the trait's contract allows (the in-place partition keeps a vector's
//!   worth of free slots on each side).
//! * **Masked stores with mask registers.** Short tails use `vpmaskmovd`/`vpmaskmovq`
//!   with a lane mask built by one compare.
//! * **64-bit min and max.** A 64-bit compare-exchange is a `vpcmpgtq` and two blends.
//!   `f64` slices with no NaN and no -0.0 (one read finds out) sort as floats instead, by
//!   `vminpd`/`vmaxpd` (`F64x4Value`).
//!
//! The 8-lane table's entries pack eight 3-bit lane indices into the low 4 bits of each
//! nibble of a `u32` (1 KiB, not 8), expanded by one variable shift: `vpermd` reads only the
//! low 3 bits of each index. The 4-lane table holds whole vectors (512 bytes).

use std::arch::x86_64::*;

use crate::keys::key::KeyMap;
use crate::keys::network::{KeyVector, VecKey};

/// Proof that the CPU runs AVX2 (and POPCNT, which every AVX2 CPU has); the only way to
/// reach the AVX2 key kernels.
#[derive(Clone, Copy, Debug)]
pub struct Avx2KeysToken(());

impl Avx2KeysToken {
    /// The CPU features the kernels use, for `status()`.
    pub const FEATURES: &'static str = "avx2,popcnt";

    /// The token, if this CPU has AVX2 and POPCNT (`is_x86_feature_detected!` caches its
    /// answer, so this is cheap after the first call).
    pub fn new() -> Option<Self> {
        (is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt"))
            .then_some(Avx2KeysToken(()))
    }

    /// Sorts `keys` by the shared quicksort over `V`.
    #[inline]
    fn quicksort<V: KeyVector>(self, keys: &mut [V::Key])
    where
        V::Key: VecKey,
    {
        // SAFETY: the token exists only where the CPU has AVX2 and POPCNT.
        unsafe { quicksort_kernel::<V>(keys) }
    }
}

key_token!(
    Avx2KeysToken,
    "avx2,popcnt",
    U32x8,
    I64x4,
    i64,
    encoded64,
    I32x8;
    floats F32x8,
    F64x4,
    values F64x4Value where floats_compare_as_values
);

/// The sign bit the 64-bit kernels flip (they compare signed).
const SIGN64: u64 = 1 << 63;

/// Runs `kernel` on 64-bit keys encoded by `map` with the sign bit flipped (the vectors
/// compare signed, see `I64x4`), then decodes them (for `i64` keys the two flips cancel).
fn encoded64(keys: &mut [u64], map: KeyMap, kernel: impl FnOnce(&mut [i64])) {
    if map == KeyMap::Signed {
        kernel(bytemuck::cast_slice_mut(keys));
        return;
    }
    keys.iter_mut().for_each(|k| *k = map.encode64(*k) ^ SIGN64);
    kernel(bytemuck::cast_slice_mut(keys));
    keys.iter_mut().for_each(|k| *k = map.decode64(*k ^ SIGN64));
}

/// The partition permutation for `lanes` lanes and below-pivot mask `mask`: the lanes whose
/// mask bit is set in lane order, then the others in lane order.
const fn partition_order<const L: usize>(mask: usize) -> [usize; L] {
    let mut order = [0usize; L];
    let mut at = 0;
    let mut l = 0;
    while l < L {
        if mask & (1 << l) != 0 {
            order[at] = l;
            at += 1;
        }
        l += 1;
    }
    l = 0;
    while l < L {
        if mask & (1 << l) == 0 {
            order[at] = l;
            at += 1;
        }
        l += 1;
    }
    order
}

/// [`PARTITION8`]: for each 8-bit mask, the `vpermd` indices of [`partition_order`], one
/// per nibble (lane 0's index in the lowest).
const fn partition_table8() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut mask = 0;
    while mask < 256 {
        let order = partition_order::<8>(mask);
        let mut k = 0;
        while k < 8 {
            table[mask] |= (order[k] as u32) << (4 * k);
            k += 1;
        }
        mask += 1;
    }
    table
}

/// [`PARTITION64`]: for each 4-bit mask, the eight 32-bit `vpermd` indices that move 64-bit
/// lanes (lane `l` is 32-bit lanes `2l` and `2l + 1`).
const fn partition_table64() -> Lanes64Table {
    let mut table = [[0u32; 8]; 16];
    let mut mask = 0;
    while mask < 16 {
        let order = partition_order::<4>(mask);
        let mut k = 0;
        while k < 4 {
            table[mask][2 * k] = 2 * order[k] as u32;
            table[mask][2 * k + 1] = 2 * order[k] as u32 + 1;
            k += 1;
        }
        mask += 1;
    }
    Lanes64Table(table)
}

/// Whole `vpermd` index vectors, one aligned load each.
#[repr(align(32))]
struct Lanes64Table([[u32; 8]; 16]);

/// Packed lane indices that partition 8 lanes, by below-pivot mask: the `vpermd` indices
/// of 8 `u32` lanes here, the `vpermq` indices of AVX-512's 8 `u64` lanes.
pub(super) static PARTITION8: [u32; 256] = partition_table8();
/// `vpermd` indices that partition 4 `u64` lanes, by below-pivot mask: whole vectors (512
/// bytes), not packed as [`PARTITION8`] is, which saves the partition loop a broadcast and
/// a shift per vector.
static PARTITION64: Lanes64Table = partition_table64();

/// The eight `vpermd` indices packed in `packed`, one per lane.
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn unpack_indices(packed: u32) -> __m256i {
    // SAFETY: caller's guarantee; register-only intrinsics.
    unsafe {
        _mm256_srlv_epi32(
            _mm256_set1_epi32(packed as i32),
            _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28),
        )
    }
}

/// All ones in the 32-bit lanes below `n`, zero above (`n <= 8`).
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn first_lanes32(n: usize) -> __m256i {
    // SAFETY: caller's guarantee; register-only intrinsics.
    unsafe {
        _mm256_cmpgt_epi32(
            _mm256_set1_epi32(n as i32),
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        )
    }
}

/// All ones in the 64-bit lanes below `n`, zero above (`n <= 4`).
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn first_lanes64(n: usize) -> __m256i {
    // SAFETY: caller's guarantee; register-only intrinsics.
    unsafe { _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), _mm256_setr_epi64x(0, 1, 2, 3)) }
}

/// 8 `u32` keys.
#[derive(Clone, Copy)]
struct U32x8(__m256i);

/// 8 `i32` keys: as [`U32x8`] with signed compares, so that `i32` slices sort as they are.
#[derive(Clone, Copy)]
struct I32x8(__m256i);

/// 8 `f32` keys as their bits (`i32`), compared by their signed image
/// ([`KeyVector::flip`]): `f32` slices sort in total order as they are, without the two
/// passes of the key map (which made `f32` cost more than `i32`).
#[derive(Clone, Copy)]
struct F32x8(__m256i);

/// The `KeyVector` impl of an 8-lane 32-bit vector `$t` of key `$k`, whose lane-wise minimum
/// and maximum are `$min` and `$max` (unsigned or signed), whose block sort is `$block` and
/// which compares float images where `$image`.
macro_rules! vector32 {
    ($t:ident, $k:ty, $block:ident, $min:ident, $max:ident, $image:literal) => {
        block_kernel!($block, "avx2,popcnt", $t, $k);

        // SAFETY (for every method): the trait contract makes callers guarantee AVX2 (and POPCNT)
        // and pointers valid for the lanes touched; the intrinsics need nothing else (loads and
        // stores are the unaligned forms, and `vpmaskmov` does not touch masked-off lanes).
        impl KeyVector for $t {
            type Key = $k;
            const LANES: usize = 8;
            const MAX: $k = <$k>::MAX;
            const BLOCK_VECTORS: usize = 16;
            const IMAGE: bool = $image;

            #[inline(always)]
            unsafe fn flip(self) -> Self {
                if !$image {
                    return self;
                }
                // x ^ (sign smeared >> 1): the bits other than the sign flipped in negative keys.
                // SAFETY: see the impl comment.
                $t(unsafe {
                    let sign = _mm256_srai_epi32::<31>(self.0);
                    _mm256_xor_si256(self.0, _mm256_srli_epi32::<1>(sign))
                })
            }
            #[inline(always)]
            fn flip_key(k: $k) -> $k {
                if $image {
                    k ^ (((k >> 31) as u32 >> 1) as $k)
                } else {
                    k
                }
            }
            #[inline(always)]
            unsafe fn against_pivot(self, pivot: Self) -> Self {
                if !$image {
                    return self;
                }
                // SAFETY: see the impl comment.
                $t(unsafe {
                    let mask = _mm256_srli_epi32::<1>(_mm256_srai_epi32::<31>(pivot.0));
                    _mm256_xor_si256(self.0, mask)
                })
            }

            #[inline(always)]
            unsafe fn load(src: *const $k) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm256_loadu_si256(src.cast()) })
            }
            #[inline(always)]
            unsafe fn store(self, dst: *mut $k) {
                // SAFETY: see the impl comment.
                unsafe { _mm256_storeu_si256(dst.cast(), self.0) }
            }
            #[inline(always)]
            unsafe fn load_padded(src: *const $k, n: usize) -> Self {
                // SAFETY: see the impl comment; only the first `n` lanes are read, the others are
                // zero from the load and `MAX` from the OR.
                $t(unsafe {
                    let mask = first_lanes32(n);
                    let keys = _mm256_maskload_epi32(src.cast(), mask);
                    _mm256_or_si256(
                        keys,
                        _mm256_andnot_si256(mask, _mm256_set1_epi32(<$k>::MAX as i32)),
                    )
                })
            }
            #[inline(always)]
            unsafe fn store_first(self, dst: *mut $k, n: usize) {
                // SAFETY: see the impl comment; only the first `n` lanes are written.
                unsafe { _mm256_maskstore_epi32(dst.cast(), first_lanes32(n), self.0) }
            }
            #[inline(always)]
            unsafe fn splat(k: $k) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm256_set1_epi32(k as i32) })
            }
            #[inline(always)]
            unsafe fn min(self, other: Self) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { $min(self.0, other.0) })
            }
            #[inline(always)]
            unsafe fn max(self, other: Self) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { $max(self.0, other.0) })
            }
            #[inline(always)]
            unsafe fn xor_permute(self, m: usize) -> Self {
                // In-lane shuffles (`vpshufd`) where the permutation stays inside 128-bit halves;
                // after inlining `m` is a constant and the match folds away.
                // SAFETY: see the impl comment.
                $t(unsafe {
                    let v = self.0;
                    match m {
                        0 => v,
                        1 => _mm256_shuffle_epi32::<0b10_11_00_01>(v),
                        2 => _mm256_shuffle_epi32::<0b01_00_11_10>(v),
                        3 => _mm256_shuffle_epi32::<0b00_01_10_11>(v),
                        4 => _mm256_permute4x64_epi64::<0b01_00_11_10>(v),
                        _ => {
                            let m = m as i32 & 7;
                            let idx = _mm256_xor_si256(
                                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                _mm256_set1_epi32(m),
                            );
                            _mm256_permutevar8x32_epi32(v, idx)
                        }
                    }
                })
            }
            #[inline(always)]
            unsafe fn blend_bit(lo: Self, hi: Self, bit: usize) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe {
                    match bit {
                        1 => _mm256_blend_epi32::<0b1010_1010>(lo.0, hi.0),
                        2 => _mm256_blend_epi32::<0b1100_1100>(lo.0, hi.0),
                        _ => {
                            debug_assert_eq!(bit, 4);
                            _mm256_blend_epi32::<0b1111_0000>(lo.0, hi.0)
                        }
                    }
                })
            }
            #[inline(always)]
            unsafe fn sort_block(keys: &mut [$k]) {
                // SAFETY: see the impl comment.
                unsafe { $block(keys) }
            }
            #[inline(always)]
            unsafe fn partition_store(
                self,
                pivot: Self,
                left: *mut $k,
                right_end: *mut $k,
            ) -> usize {
                // SAFETY: see the impl comment; the contract gives `left[..8]` and
                // `right_end[-8..]` to write.
                unsafe {
                    // Lanes at or above the pivot are those where max(key, pivot) == key (key's
                    // image for float keys; the keys move as they are).
                    let key = self.against_pivot(pivot).0;
                    let at_or_above = _mm256_cmpeq_epi32($max(key, pivot.0), key);
                    let below = !_mm256_movemask_ps(_mm256_castsi256_ps(at_or_above)) as u32 & 0xff;
                    let order = unpack_indices(PARTITION8[below as usize]);
                    let parted = _mm256_permutevar8x32_epi32(self.0, order);
                    _mm256_storeu_si256(left.cast(), parted);
                    _mm256_storeu_si256(right_end.sub(8).cast(), parted);
                    below.count_ones() as usize
                }
            }
        }
    };
}

vector32!(
    U32x8,
    u32,
    block_u32x8,
    _mm256_min_epu32,
    _mm256_max_epu32,
    false
);
vector32!(
    I32x8,
    i32,
    block_i32x8,
    _mm256_min_epi32,
    _mm256_max_epi32,
    false
);
vector32!(
    F32x8,
    i32,
    block_f32x8,
    _mm256_min_epi32,
    _mm256_max_epi32,
    true
);

/// 4 64-bit keys, stored with their sign bit flipped so that AVX2's signed `vpcmpgtq`
/// orders them as the unsigned keys they stand for (flipping inside every min, max and
/// partition compare instead cost two more instructions per compare).
#[derive(Clone, Copy)]
struct I64x4(__m256i);

/// 4 `f64` keys as their bits (`i64`), compared by their signed image (see [`F32x8`]).
#[derive(Clone, Copy)]
struct F64x4(__m256i);

/// 4 `f64` keys as their bits (`i64`), compared as floats (`vminpd`, `vmaxpd`, `vcmppd`):
/// only for slices with no NaN and no -0.0 ([`floats_compare_as_values`]), where the float
/// order is `total_cmp`'s. A compare-exchange is then two instructions, where the image's is
/// a `vpcmpgtq` and two blends: AVX2 has no 64-bit integer min or max, and numpy's
/// x86-simd-sort sorts `f64` 2.3x faster than `i64` with AVX2 for that reason (Xeon build
/// machine, AVX-512 off, 2^12 keys). Scalar code still orders keys by their image
/// ([`KeyVector::IMAGE`]), which agrees; the vectors hold the floats as they are, so
/// [`KeyVector::flip`] is the identity here and [`KeyVector::splat`] turns the image it is
/// given (a pivot, or `MAX`) back into the float's bits.
#[derive(Clone, Copy)]
struct F64x4Value(__m256i);

/// Whether `keys` (`f64` bits) hold no NaN and no -0.0, so that [`F64x4Value`] may sort
/// them: one read of the slice, stopping at the first such key.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
unsafe fn floats_compare_as_values(keys: &[i64]) -> bool {
    const INFINITY: i64 = f64::INFINITY.to_bits() as i64;
    // NaN: above infinity once the sign is cleared; -0.0: the sign bit alone. Blocks of 64
    // keys, each one vectorised OR, so that the loop stops early without a branch per key.
    keys.chunks(64).all(|block| {
        !block.iter().fold(false, |bad, &k| {
            bad | ((k & i64::MAX) > INFINITY) | (k == i64::MIN)
        })
    })
}

/// The `KeyVector` impl of a 4-lane 64-bit vector `$t` (signed compares), whose block sort is
/// `$block`, which compares float images where `$image` and the floats themselves where
/// `$values` (see [`F64x4Value`]).
macro_rules! vector64 {
    ($t:ident, $block:ident, $image:literal, $values:literal) => {
        block_kernel!($block, "avx2,popcnt", $t, i64);

        // SAFETY (for every method): as for `U32x8`.
        impl KeyVector for $t {
            type Key = i64;
            const LANES: usize = 4;
            // Float compares need a float as the largest key: `i64::MAX` is a NaN.
            const MAX: i64 = if $values {
                f64::INFINITY.to_bits() as i64
            } else {
                i64::MAX
            };
            const BLOCK_VECTORS: usize = 16;
            const IMAGE: bool = $image;

            #[inline(always)]
            unsafe fn flip(self) -> Self {
                if !$image || $values {
                    return self;
                }
                // x ^ (sign smeared >> 1), the sign smeared by a compare (AVX2 has no 64-bit
                // arithmetic shift).
                // SAFETY: see the impl comment.
                $t(unsafe {
                    let sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), self.0);
                    _mm256_xor_si256(self.0, _mm256_srli_epi64::<1>(sign))
                })
            }
            #[inline(always)]
            fn flip_key(k: i64) -> i64 {
                if $image {
                    k ^ ((k >> 63) as u64 >> 1) as i64
                } else {
                    k
                }
            }

            #[inline(always)]
            unsafe fn load(src: *const i64) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm256_loadu_si256(src.cast()) })
            }
            #[inline(always)]
            unsafe fn store(self, dst: *mut i64) {
                // SAFETY: see the impl comment.
                unsafe { _mm256_storeu_si256(dst.cast(), self.0) }
            }
            #[inline(always)]
            unsafe fn load_padded(src: *const i64, n: usize) -> Self {
                // SAFETY: see the impl comment; only the first `n` lanes are read, the others are
                // the largest key from the blend.
                $t(unsafe {
                    let mask = first_lanes64(n);
                    let keys = _mm256_maskload_epi64(src.cast(), mask);
                    _mm256_blendv_epi8(_mm256_set1_epi64x(Self::MAX), keys, mask)
                })
            }
            #[inline(always)]
            unsafe fn store_first(self, dst: *mut i64, n: usize) {
                // SAFETY: see the impl comment; only the first `n` lanes are written.
                unsafe { _mm256_maskstore_epi64(dst.cast(), first_lanes64(n), self.0) }
            }
            #[inline(always)]
            unsafe fn splat(k: i64) -> Self {
                // An image back to the float's bits where the vectors hold the floats.
                let k = if $values { Self::flip_key(k) } else { k };
                // SAFETY: see the impl comment.
                $t(unsafe { _mm256_set1_epi64x(k) })
            }
            #[inline(always)]
            unsafe fn min(self, other: Self) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe {
                    if $values {
                        let (a, b) = (_mm256_castsi256_pd(self.0), _mm256_castsi256_pd(other.0));
                        _mm256_castpd_si256(_mm256_min_pd(a, b))
                    } else {
                        _mm256_blendv_epi8(self.0, other.0, _mm256_cmpgt_epi64(self.0, other.0))
                    }
                })
            }
            #[inline(always)]
            unsafe fn max(self, other: Self) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe {
                    if $values {
                        let (a, b) = (_mm256_castsi256_pd(self.0), _mm256_castsi256_pd(other.0));
                        _mm256_castpd_si256(_mm256_max_pd(a, b))
                    } else {
                        _mm256_blendv_epi8(other.0, self.0, _mm256_cmpgt_epi64(self.0, other.0))
                    }
                })
            }
            #[inline(always)]
            unsafe fn xor_permute(self, m: usize) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe {
                    let v = self.0;
                    match m {
                        0 => v,
                        // Swap the 64-bit halves of each 128-bit lane: an in-lane shuffle.
                        1 => _mm256_shuffle_epi32::<0b01_00_11_10>(v),
                        2 => _mm256_permute4x64_epi64::<0b01_00_11_10>(v),
                        _ => {
                            debug_assert_eq!(m, 3);
                            _mm256_permute4x64_epi64::<0b00_01_10_11>(v)
                        }
                    }
                })
            }
            #[inline(always)]
            unsafe fn blend_bit(lo: Self, hi: Self, bit: usize) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe {
                    match bit {
                        1 => _mm256_blend_epi32::<0b1100_1100>(lo.0, hi.0),
                        _ => {
                            debug_assert_eq!(bit, 2);
                            _mm256_blend_epi32::<0b1111_0000>(lo.0, hi.0)
                        }
                    }
                })
            }
            #[inline(always)]
            unsafe fn sort_block(keys: &mut [i64]) {
                // SAFETY: see the impl comment.
                unsafe { $block(keys) }
            }
            #[inline(always)]
            unsafe fn partition_store(
                self,
                pivot: Self,
                left: *mut i64,
                right_end: *mut i64,
            ) -> usize {
                // SAFETY: see the impl comment; the contract gives `left[..4]` and
                // `right_end[-4..]` to write.
                unsafe {
                    let below = if $values {
                        let (key, pivot) =
                            (_mm256_castsi256_pd(self.0), _mm256_castsi256_pd(pivot.0));
                        _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(key, pivot))
                    } else {
                        _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(
                            pivot.0,
                            self.flip().0,
                        )))
                    };
                    let below = below as u32;
                    let order = _mm256_load_si256(PARTITION64.0[below as usize].as_ptr().cast());
                    let parted = _mm256_permutevar8x32_epi32(self.0, order);
                    _mm256_storeu_si256(left.cast(), parted);
                    _mm256_storeu_si256(right_end.sub(4).cast(), parted);
                    below.count_ones() as usize
                }
            }
        }
    };
}

vector64!(I64x4, block_i64x4, false, false);
vector64!(F64x4, block_f64x4, true, false);
vector64!(F64x4Value, block_f64x4_value, true, true);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::network::tests as shared;

    /// Unpacks a table entry into its lane indices (nibble `k` is output lane `k`).
    fn nibbles(packed: u32) -> [u32; 8] {
        std::array::from_fn(|k| (packed >> (4 * k)) & 0xf)
    }

    #[test]
    fn every_8_lane_mask_moves_the_below_lanes_first_in_order() {
        assert_eq!(PARTITION8.len(), 256);
        for (mask, &packed) in PARTITION8.iter().enumerate() {
            let idx = nibbles(packed);
            let below: Vec<u32> = (0..8).filter(|l| mask & (1 << l) != 0).collect();
            let rest: Vec<u32> = (0..8).filter(|l| mask & (1 << l) == 0).collect();
            let want: Vec<u32> = below.iter().chain(&rest).copied().collect();
            assert_eq!(idx.to_vec(), want, "mask {mask:08b}");
        }
    }

    #[test]
    fn every_4_lane_mask_moves_both_halves_of_each_u64() {
        assert_eq!(PARTITION64.0.len(), 16);
        for (mask, idx) in PARTITION64.0.iter().enumerate() {
            let below: Vec<u32> = (0..4).filter(|l| mask & (1 << l) != 0).collect();
            let rest: Vec<u32> = (0..4).filter(|l| mask & (1 << l) == 0).collect();
            let want: Vec<u32> = below
                .iter()
                .chain(&rest)
                .flat_map(|&l| [2 * l, 2 * l + 1])
                .collect();
            assert_eq!(idx.to_vec(), want, "mask {mask:04b}");
        }
    }

    #[test]
    fn partition_store_on_every_mask() {
        if Avx2KeysToken::new().is_none() {
            eprintln!("no AVX2 here: skipped");
            return;
        }
        // SAFETY: AVX2 was detected above.
        unsafe {
            shared::check_partition_store32::<U32x8>();
            shared::check_partition_store::<I64x4>(
                0,
                |l, below| {
                    if below {
                        i64::MIN + l as i64 * 3 - (l as i64 % 2) * (i64::MIN + 100)
                    } else {
                        i64::MAX - l as i64 * (i64::MAX / 4)
                    }
                },
                0x5555_5555,
            );
        }
    }

    #[test]
    fn vector_operations_match_scalar() {
        if Avx2KeysToken::new().is_none() {
            return;
        }
        // SAFETY: AVX2 was detected above.
        unsafe {
            shared::check_vector_ops::<U32x8>(|s| (s ^ (s >> 32)) as u32);
            shared::check_partition::<U32x8>(|s| (s ^ (s >> 32)) as u32);
            shared::check_vector_ops::<I64x4>(|s| s as i64);
            shared::check_partition::<I64x4>(|s| s as i64);
        }
    }

    #[test]
    fn float_images_order_as_total_cmp() {
        if Avx2KeysToken::new().is_none() {
            eprintln!("no AVX2 here: skipped");
            return;
        }
        // SAFETY: AVX2 was detected above.
        unsafe { shared::check_float_images::<F32x8, F64x4>() };
    }

    /// Floats at the edges of what [`F64x4Value`] sorts: zero, infinities, extremes, subnormals.
    const ORDERED_BY_FLOAT_COMPARES: [f64; 10] = [
        0.0,
        1.5,
        -2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN,
        f64::from_bits(1),
        -f64::from_bits(1),
        -f64::MIN_POSITIVE,
    ];

    #[test]
    fn float_compares_are_taken_only_without_nan_or_negative_zero() {
        if Avx2KeysToken::new().is_none() {
            eprintln!("no AVX2 here: skipped");
            return;
        }
        let fine = ORDERED_BY_FLOAT_COMPARES;
        let bad = [
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::from_bits(0xfff0_0000_0000_0001),
            f64::from_bits(u64::MAX),
            -0.0,
        ];
        let bits = |f: &[f64]| f.iter().map(|x| x.to_bits() as i64).collect::<Vec<_>>();
        for n in 0..=150 {
            let keys: Vec<f64> = (0..n).map(|i| fine[i % fine.len()]).collect();
            // SAFETY: AVX2 was detected above.
            assert!(unsafe { floats_compare_as_values(&bits(&keys)) }, "n={n}");
            for at in (0..n).step_by(7).chain(n.checked_sub(1)) {
                for &x in &bad {
                    let mut with = keys.clone();
                    with[at] = x;
                    // SAFETY: AVX2 was detected above.
                    let taken = unsafe { floats_compare_as_values(&bits(&with)) };
                    assert!(!taken, "n={n}: {x:?} at {at}");
                }
            }
        }
    }

    #[test]
    fn floats_without_nan_or_negative_zero_sort_by_float_compares() {
        let Some(token) = Avx2KeysToken::new() else {
            eprintln!("no AVX2 here: skipped");
            return;
        };
        // SAFETY: AVX2 was detected above.
        unsafe {
            // Non-negative floats, where the bits' integer order is the float order that
            // the check compares with.
            shared::check_vector_ops::<F64x4Value>(|s| (s % (F64x4Value::MAX as u64 + 1)) as i64);
        }
        let specials = ORDERED_BY_FLOAT_COMPARES;
        let check = |f: Vec<f64>, what: &str| {
            let mut bits: Vec<u64> = f.iter().map(|x| x.to_bits()).collect();
            // SAFETY: AVX2 was detected above.
            let taken = unsafe { floats_compare_as_values(bytemuck::cast_slice(&bits)) };
            assert!(taken, "{what}: the float compares are under test");
            let mut want = f;
            want.sort_by(f64::total_cmp);
            token.sort64(&mut bits, KeyMap::Float);
            let got: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b)).collect();
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{what}"
            );
        };
        let mut lens: Vec<usize> = (0..=300).collect();
        lens.extend((9..=16).flat_map(|k| [(1 << k) - 1, 1 << k, (1 << k) + 1]));
        for n in lens {
            let mut s = n as u64 | 1;
            let random: Vec<f64> = (0..n)
                .map(|i| {
                    let r = shared::rng(&mut s);
                    if i % 5 == 0 {
                        specials[r as usize % specials.len()]
                    } else {
                        (r as i64 >> (r % 50)) as f64 * 1e-3
                    }
                })
                .collect();
            check(random.clone(), &format!("random n={n}"));
            let mut ascending = random;
            ascending.sort_by(f64::total_cmp);
            check(ascending.clone(), &format!("ascending n={n}"));
            check(
                ascending.iter().rev().copied().collect(),
                &format!("descending n={n}"),
            );
            let few = (0..n).map(|i| [-1.0, 0.0, 2.0][(i * 7 + i / 3) % 3]);
            check(few.collect(), &format!("few distinct n={n}"));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .expect("a pool of four threads");
        pool.install(|| {
            for n in [crate::keys::network::PARALLEL_SPLIT_MIN_LEN, (1 << 18) + 5] {
                let mut s = n as u64;
                let f = (0..n).map(|_| (shared::rng(&mut s) as i64) as f64);
                check(f.collect(), &format!("four threads n={n}"));
            }
        });
    }

    #[test]
    fn u32_and_u64_against_std() {
        let Some(token) = Avx2KeysToken::new() else {
            eprintln!("no AVX2 here: skipped");
            return;
        };
        shared::check_sorts(|k, m| token.sort32(k, m), |k, m| token.sort64(k, m));
    }

    #[test]
    fn u32_and_u64_against_std_on_four_threads() {
        let Some(token) = Avx2KeysToken::new() else {
            eprintln!("no AVX2 here: skipped");
            return;
        };
        shared::check_sorts_on_threads(|k, m| token.sort32(k, m), |k, m| token.sort64(k, m));
    }

    #[test]
    fn select_and_partial_sort_against_std() {
        let Some(t) = Avx2KeysToken::new() else {
            eprintln!("no AVX2 here: skipped");
            return;
        };
        crate::keys::select::tests::check_select(
            |k, n, m| t.select_nth32(k, n, m),
            |k, n, m| t.select_nth64(k, n, m),
            |k, n, m| t.partial_sort32(k, n, m),
            |k, n, m| t.partial_sort64(k, n, m),
        );
    }
}
