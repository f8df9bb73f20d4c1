//! AVX-512 key sort: 16 `u32` or 8 `u64` keys per 512-bit vector (AVX-512F: unsigned
//! compares, min/max, `vpcompressd`/`vpcompressq`, masked loads and stores, `vpermd`).

use std::arch::x86_64::*;

use super::avx2::PARTITION8;
use crate::keys::key::KeyMap;
use crate::keys::network::{KeyVector, VecKey};

/// Proof that the CPU runs AVX-512F (with POPCNT and BMI2, which every AVX-512 CPU has: the
/// partition counts mask bits, and without POPCNT that is a dozen scalar instructions per
/// vector); the only way to reach the AVX-512 key kernels.
/// (`SORTNET_NO_AVX512=1` is honoured where the backend list is built.)
#[derive(Clone, Copy, Debug)]
pub struct Avx512KeysToken(());

impl Avx512KeysToken {
    /// The token, if this CPU has AVX-512F.
    pub fn new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("bmi2"))
        .then_some(Avx512KeysToken(()))
    }

    /// Sorts `keys` by the shared quicksort over `V`.
    #[inline]
    fn quicksort<V: KeyVector>(self, keys: &mut [V::Key])
    where
        V::Key: VecKey,
    {
        // SAFETY: the token exists only where the CPU has AVX-512F, POPCNT and BMI2.
        unsafe { quicksort_kernel::<V>(keys) }
    }
}

key_token!(
    Avx512KeysToken,
    "avx512f,popcnt,bmi2",
    U32x16,
    U64x8,
    u64,
    encoded64,
    I32x16,
    I64x8;
    floats F32x16,
    F64x8
);

/// Runs `kernel` on 64-bit keys encoded by `map` (AVX-512 compares unsigned), then decodes
/// them.
fn encoded64(keys: &mut [u64], map: KeyMap, kernel: impl FnOnce(&mut [u64])) {
    map.encode_slice64(keys);
    kernel(keys);
    map.decode_slice64(keys);
}

/// `idx[m][l] = l ^ m`: the lane permutations of the in-vector comparator stages.
const fn xor_table<const L: usize>() -> [[u64; L]; L] {
    let mut t = [[0u64; L]; L];
    let mut m = 0;
    while m < L {
        let mut l = 0;
        while l < L {
            t[m][l] = (l ^ m) as u64;
            l += 1;
        }
        m += 1;
    }
    t
}

/// The same permutations as 32-bit lane indices.
const fn xor_table32() -> [[u32; 16]; 16] {
    let wide = xor_table::<16>();
    let mut t = [[0u32; 16]; 16];
    let mut m = 0;
    while m < 16 {
        let mut l = 0;
        while l < 16 {
            t[m][l] = wide[m][l] as u32;
            l += 1;
        }
        m += 1;
    }
    t
}

static XOR32: [[u32; 16]; 16] = xor_table32();
static XOR64: [[u64; 8]; 8] = xor_table::<8>();

/// Mask of the lanes (out of `lanes`) whose index has `bit` set.
#[inline(always)]
const fn lanes_with_bit(lanes: usize, bit: usize) -> u32 {
    let mut m = 0u32;
    let mut l = 0;
    while l < lanes {
        if l & bit != 0 {
            m |= 1 << l;
        }
        l += 1;
    }
    m
}

/// Mask of the first `n` lanes.
#[inline(always)]
const fn first_lanes(n: usize) -> u32 {
    ((1u64 << n) - 1) as u32
}

/// `FIRST16[n]`: the mask of the first `n` of 16 lanes, for the partition's masked store.
/// Read from memory it goes to a mask register by a load; built in a general register it
/// would take a `kmovw` on the shuffle port, which the partition's compresses keep busy on
/// Intel cores.
static FIRST16: [u16; 17] = {
    let mut t = [0u16; 17];
    let mut n = 0;
    while n <= 16 {
        t[n] = first_lanes(n) as u16;
        n += 1;
    }
    t
};

/// `!m` by `knotw`. Written as `!m`, LLVM folds the negation into a second compare, which
/// runs on the 512-bit shuffle port of Intel cores (with the two compresses, the port that
/// bounds the partition); `knotw` runs on another.
///
/// # Safety
/// The CPU supports AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn not_mask16(m: __mmask16) -> __mmask16 {
    #[cfg(not(miri))]
    {
        let mut m = m;
        // SAFETY: `knotw` reads and writes only the mask register; AVX-512F is enabled.
        unsafe {
            std::arch::asm!("knotw {0}, {0}", inout(kreg) m, options(pure, nomem, nostack));
        }
        m
    }
    #[cfg(miri)]
    !m
}

/// 16 `u32` keys.
///
/// The partition compresses into registers, stores the low part whole and the high part
/// with a mask. `vpcompressd` straight to memory is microcoded on AMD Zen 4 (one partition
/// pass 50x slower on the AMD EPYC build machine) and no faster on the Intel Xeon host
/// (Emerald Rapids, one pass over 2^20 / 2^24 random keys 0.28 / 0.50-0.52 ns per key either
/// way; `vpcompressq` to memory lost: `u64` 0.60 / 1.06-1.08 against 0.43 / 0.90-0.92, full
/// `u64` sort 1.2-1.45x slower), so one store serves every CPU (BENCHMARKS.md, "CPU key
/// sort, one thread").
/// Per vector the shuffle port of Intel cores takes one compare and two compresses (two
/// µops each); the negated mask comes from `knotw` and the store mask from memory.
#[derive(Clone, Copy)]
struct U32x16(__m512i);

/// 16 `i32` keys: as [`U32x16`] with signed compares, so that `i32` slices sort as they are
/// (mapping them to unsigned keys and back took two more passes over the keys, 10-20% of
/// the sort's time from 2^20 keys).
#[derive(Clone, Copy)]
struct I32x16(__m512i);

/// 16 `f32` keys as their bits (`i32`), compared by their signed image
/// ([`KeyVector::flip`]): `f32` slices sort in total order as they are, where mapping them to
/// unsigned keys and back took two more passes over the keys.
#[derive(Clone, Copy)]
struct F32x16(__m512i);

/// The `KeyVector` impl of a 16-lane 32-bit vector `$t` of key `$k`, whose lane-wise minimum,
/// maximum and less-than are `$min`, `$max` and `$lt` (unsigned or signed intrinsics), and
/// whose block sort is `$block`.
macro_rules! vector32 {
    ($t:ident, $k:ty, $block:ident, $min:ident, $max:ident, $lt:ident, $image:literal) => {
        block_kernel!($block, "avx512f,popcnt,bmi2", $t, $k);

        // SAFETY (for every method): the trait contract makes callers guarantee AVX-512F and valid
        // pointers for the lanes touched; the intrinsics need nothing else (all are unaligned or
        // masked forms, which do not fault on masked-off lanes).
        impl KeyVector for $t {
            type Key = $k;
            const LANES: usize = 16;
            const MAX: $k = <$k>::MAX;
            const BLOCK_VECTORS: usize = 16;
            const IMAGE: bool = $image;

            #[inline(always)]
            unsafe fn flip(self) -> Self {
                if !$image {
                    return self;
                }
                // x ^ (sign smeared & MAX): one shift and one three-input logic op (a ^ (b & c)).
                // SAFETY: see the impl comment.
                $t(unsafe {
                    let sign = _mm512_srai_epi32::<31>(self.0);
                    _mm512_ternarylogic_epi32::<0x78>(self.0, sign, _mm512_set1_epi32(i32::MAX))
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
                    let mask = _mm512_srli_epi32::<1>(_mm512_srai_epi32::<31>(pivot.0));
                    _mm512_xor_si512(self.0, mask)
                })
            }

            #[inline(always)]
            unsafe fn load(src: *const $k) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm512_loadu_si512(src.cast()) })
            }
            #[inline(always)]
            unsafe fn store(self, dst: *mut $k) {
                // SAFETY: see the impl comment.
                unsafe { _mm512_storeu_si512(dst.cast(), self.0) }
            }
            #[inline(always)]
            unsafe fn load_padded(src: *const $k, n: usize) -> Self {
                // SAFETY: see the impl comment; only the first `n` lanes are read.
                $t(unsafe {
                    _mm512_mask_loadu_epi32(
                        _mm512_set1_epi32(<$k>::MAX as i32),
                        first_lanes(n) as u16,
                        src.cast(),
                    )
                })
            }
            #[inline(always)]
            unsafe fn store_first(self, dst: *mut $k, n: usize) {
                // SAFETY: see the impl comment; only the first `n` lanes are written.
                unsafe { _mm512_mask_storeu_epi32(dst.cast(), first_lanes(n) as u16, self.0) }
            }
            #[inline(always)]
            unsafe fn splat(k: $k) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm512_set1_epi32(k as i32) })
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
                // Immediate shuffles inside 128-bit blocks (`vpshufd`) or of whole blocks
                // (`vshufi64x2`) where `m` allows (latency 1-3, no index register), else `vpermd`;
                // after inlining `m` is a constant and the match folds away.
                // SAFETY: see the impl comment; the table row is 64 bytes.
                $t(unsafe {
                    let v = self.0;
                    match m {
                        1 => _mm512_shuffle_epi32::<0b10_11_00_01>(v),
                        2 => _mm512_shuffle_epi32::<0b01_00_11_10>(v),
                        3 => _mm512_shuffle_epi32::<0b00_01_10_11>(v),
                        4 => _mm512_shuffle_i64x2::<0b10_11_00_01>(v, v),
                        8 => _mm512_shuffle_i64x2::<0b01_00_11_10>(v, v),
                        12 => _mm512_shuffle_i64x2::<0b00_01_10_11>(v, v),
                        _ => _mm512_permutexvar_epi32(
                            _mm512_loadu_si512(XOR32[m].as_ptr().cast()),
                            v,
                        ),
                    }
                })
            }
            #[inline(always)]
            unsafe fn blend_bit(lo: Self, hi: Self, bit: usize) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm512_mask_blend_epi32(lanes_with_bit(16, bit) as u16, lo.0, hi.0) })
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
                // SAFETY: see the impl comment; the contract gives `left[..16]` to write (the
                // lanes past `c` are free slots, left for later writes) and the masked store
                // writes `right_end[-(16 - c)..]` (`c <= 16`, the table index is in bounds).
                unsafe {
                    let below = $lt(self.against_pivot(pivot).0, pivot.0);
                    let c = below.count_ones() as usize;
                    let lo = _mm512_maskz_compress_epi32(below, self.0);
                    let hi = _mm512_maskz_compress_epi32(not_mask16(below), self.0);
                    _mm512_storeu_si512(left.cast(), lo);
                    let keep = *FIRST16.get_unchecked(16 - c);
                    _mm512_mask_storeu_epi32(right_end.sub(16 - c).cast(), keep, hi);
                    c
                }
            }
            #[inline(always)]
            unsafe fn split(self, pivot: Self) -> (Self, Self, usize) {
                // SAFETY: see the impl comment.
                unsafe {
                    let below = $lt(self.against_pivot(pivot).0, pivot.0);
                    let lo = _mm512_maskz_compress_epi32(below, self.0);
                    let hi = _mm512_maskz_compress_epi32(not_mask16(below), self.0);
                    ($t(lo), $t(hi), below.count_ones() as usize)
                }
            }
        }
    };
}

vector32!(
    U32x16,
    u32,
    block_u32x16,
    _mm512_min_epu32,
    _mm512_max_epu32,
    _mm512_cmplt_epu32_mask,
    false
);
vector32!(
    I32x16,
    i32,
    block_i32x16,
    _mm512_min_epi32,
    _mm512_max_epi32,
    _mm512_cmplt_epi32_mask,
    false
);
vector32!(
    F32x16,
    i32,
    block_f32x16,
    _mm512_min_epi32,
    _mm512_max_epi32,
    _mm512_cmplt_epi32_mask,
    true
);

/// 8 `u64` keys.
#[derive(Clone, Copy)]
struct U64x8(__m512i);

/// 8 `i64` keys: as [`U64x8`] with signed compares (see [`I32x16`]).
#[derive(Clone, Copy)]
struct I64x8(__m512i);

/// 8 `f64` keys as their bits, compared by their signed image (see [`F32x16`]).
#[derive(Clone, Copy)]
struct F64x8(__m512i);

/// The `KeyVector` impl of an 8-lane 64-bit vector, as [`vector32`].
macro_rules! vector64 {
    ($t:ident, $k:ty, $block:ident, $min:ident, $max:ident, $lt:ident, $image:literal) => {
        block_kernel!($block, "avx512f,popcnt,bmi2", $t, $k);

        // SAFETY (for every method): as for `U32x16`.
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
                // x ^ (sign smeared & MAX): one shift and one three-input logic op (a ^ (b & c)).
                // SAFETY: see the impl comment.
                $t(unsafe {
                    let sign = _mm512_srai_epi64::<63>(self.0);
                    _mm512_ternarylogic_epi64::<0x78>(self.0, sign, _mm512_set1_epi64(i64::MAX))
                })
            }
            #[inline(always)]
            fn flip_key(k: $k) -> $k {
                if $image {
                    k ^ (((k >> 63) as u64 >> 1) as $k)
                } else {
                    k
                }
            }

            #[inline(always)]
            unsafe fn load(src: *const $k) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm512_loadu_si512(src.cast()) })
            }
            #[inline(always)]
            unsafe fn store(self, dst: *mut $k) {
                // SAFETY: see the impl comment.
                unsafe { _mm512_storeu_si512(dst.cast(), self.0) }
            }
            #[inline(always)]
            unsafe fn load_padded(src: *const $k, n: usize) -> Self {
                // SAFETY: see the impl comment; only the first `n` lanes are read.
                $t(unsafe {
                    _mm512_mask_loadu_epi64(
                        _mm512_set1_epi64(<$k>::MAX as i64),
                        first_lanes(n) as u8,
                        src.cast(),
                    )
                })
            }
            #[inline(always)]
            unsafe fn store_first(self, dst: *mut $k, n: usize) {
                // SAFETY: see the impl comment; only the first `n` lanes are written.
                unsafe { _mm512_mask_storeu_epi64(dst.cast(), first_lanes(n) as u8, self.0) }
            }
            #[inline(always)]
            unsafe fn splat(k: $k) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm512_set1_epi64(k as i64) })
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
                // As for `U32x16`.
                // SAFETY: see the impl comment; the table row is 64 bytes.
                $t(unsafe {
                    let v = self.0;
                    match m {
                        1 => _mm512_shuffle_epi32::<0b01_00_11_10>(v),
                        2 => _mm512_shuffle_i64x2::<0b10_11_00_01>(v, v),
                        4 => _mm512_shuffle_i64x2::<0b01_00_11_10>(v, v),
                        6 => _mm512_shuffle_i64x2::<0b00_01_10_11>(v, v),
                        _ => _mm512_permutexvar_epi64(
                            _mm512_loadu_si512(XOR64[m].as_ptr().cast()),
                            v,
                        ),
                    }
                })
            }
            #[inline(always)]
            unsafe fn blend_bit(lo: Self, hi: Self, bit: usize) -> Self {
                // SAFETY: see the impl comment.
                $t(unsafe { _mm512_mask_blend_epi64(lanes_with_bit(8, bit) as u8, lo.0, hi.0) })
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
                // `right_end[-8..]` to write (the table index is a `u8` mask, below 256).
                unsafe {
                    // One `vpermq` by the 8-lane partition table, then the whole vector to both
                    // ends (as the trait allows), instead of two `vpcompressq`: on Intel cores a
                    // register compress is two µops on the one 512-bit shuffle port, which the
                    // permute (one µop) shares.
                    let below = $lt(self.flip().0, pivot.0);
                    // The entry is broadcast as 32 bits (each 64-bit lane holds it twice, the
                    // shift reads the low copy): a 32-bit broadcast from memory is a load,
                    // one of a general register a µop on the shuffle port.
                    let packed = _mm512_set1_epi32(PARTITION8[below as usize] as i32);
                    let order =
                        _mm512_srlv_epi64(packed, _mm512_setr_epi64(0, 4, 8, 12, 16, 20, 24, 28));
                    let parted = _mm512_permutexvar_epi64(order, self.0);
                    _mm512_storeu_si512(left.cast(), parted);
                    _mm512_storeu_si512(right_end.sub(8).cast(), parted);
                    below.count_ones() as usize
                }
            }
            #[inline(always)]
            unsafe fn split(self, pivot: Self) -> (Self, Self, usize) {
                // SAFETY: see the impl comment.
                unsafe {
                    let below = $lt(self.flip().0, pivot.0);
                    let lo = _mm512_maskz_compress_epi64(below, self.0);
                    let hi = _mm512_maskz_compress_epi64(!below, self.0);
                    ($t(lo), $t(hi), below.count_ones() as usize)
                }
            }
        }
    };
}

vector64!(
    U64x8,
    u64,
    block_u64x8,
    _mm512_min_epu64,
    _mm512_max_epu64,
    _mm512_cmplt_epu64_mask,
    false
);
vector64!(
    I64x8,
    i64,
    block_i64x8,
    _mm512_min_epi64,
    _mm512_max_epi64,
    _mm512_cmplt_epi64_mask,
    false
);
vector64!(
    F64x8,
    i64,
    block_f64x8,
    _mm512_min_epi64,
    _mm512_max_epi64,
    _mm512_cmplt_epi64_mask,
    true
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::network::tests as shared;

    #[test]
    fn partition_store_on_every_mask() {
        if Avx512KeysToken::new().is_none() {
            eprintln!("no AVX-512F here: skipped");
            return;
        }
        // SAFETY: AVX-512F was detected above.
        unsafe {
            shared::check_partition_store32::<U32x16>();
            shared::check_partition_store64::<U64x8>();
        }
    }

    #[test]
    fn vector_operations_match_scalar() {
        if Avx512KeysToken::new().is_none() {
            return;
        }
        // SAFETY: AVX-512F was detected above.
        unsafe {
            shared::check_vector_ops::<U32x16>(|s| (s ^ (s >> 32)) as u32);
            shared::check_partition::<U32x16>(|s| (s ^ (s >> 32)) as u32);
            shared::check_vector_ops::<U64x8>(|s| s);
            shared::check_partition::<U64x8>(|s| s);
        }
    }

    /// The float vectors' image orders as `total_cmp` (signed), is its own inverse, and the
    /// vector form matches the scalar one.
    #[test]
    fn float_images_order_as_total_cmp() {
        if Avx512KeysToken::new().is_none() {
            eprintln!("no AVX-512F here: skipped");
            return;
        }
        // SAFETY: AVX-512F was detected above.
        unsafe { shared::check_float_images::<F32x16, F64x8>() };
    }

    #[test]
    fn u32_and_u64_against_std() {
        if Avx512KeysToken::new().is_none() {
            eprintln!("no AVX-512F here: skipped");
            return;
        }
        let token = Avx512KeysToken::new().unwrap();
        shared::check_sorts(|k, m| token.sort32(k, m), |k, m| token.sort64(k, m));
    }

    #[test]
    fn u32_and_u64_against_std_on_four_threads() {
        if Avx512KeysToken::new().is_none() {
            eprintln!("no AVX-512F here: skipped");
            return;
        }
        let token = Avx512KeysToken::new().unwrap();
        shared::check_sorts_on_threads(|k, m| token.sort32(k, m), |k, m| token.sort64(k, m));
    }

    #[test]
    fn select_and_partial_sort_against_std() {
        if Avx512KeysToken::new().is_none() {
            eprintln!("no AVX-512F here: skipped");
            return;
        }
        let t = Avx512KeysToken::new().unwrap();
        crate::keys::select::tests::check_select(
            |k, n, m| t.select_nth32(k, n, m),
            |k, n, m| t.select_nth64(k, n, m),
            |k, n, m| t.partial_sort32(k, n, m),
            |k, n, m| t.partial_sort64(k, n, m),
        );
    }
}
