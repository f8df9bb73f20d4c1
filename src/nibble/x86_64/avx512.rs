//! AVX-512 nibble kernel: 64 words per block in 512-bit vectors (AVX-512BW byte lanes).

use std::arch::x86_64::*;

use super::avx2::Bytes32;
use crate::nibble::network::{self, ByteVector, MaskedByteVector};
use crate::nibble::portable::Bytes16;

/// Proof that the CPU runs AVX-512F, AVX-512BW and AVX-512VL; the only way to reach the
/// AVX-512 kernel. (`SORTNET_NO_AVX512=1` is honoured where the backend list is built.)
#[derive(Clone, Copy, Debug)]
pub struct Avx512Token(());

impl Avx512Token {
    /// The CPU features the kernel uses, for `status()`.
    pub const FEATURES: &'static str = "avx512f avx512bw avx512vl";

    /// The token, if this CPU has AVX-512F, AVX-512BW and AVX-512VL.
    pub fn new() -> Option<Self> {
        let usable = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl");
        usable.then_some(Avx512Token(()))
    }

    /// Sorts the nibbles of every word, 64 words at a time.
    pub fn sort_words(self, words: &mut [u64]) {
        // SAFETY: the token exists only where the CPU has AVX-512F and AVX-512BW.
        unsafe { sort_words_avx512(words) }
    }
}

#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
unsafe fn sort_words_avx512(words: &mut [u64]) {
    // Up to 32 words (a tail, or a whole short slice) take one 256-bit block, half the work
    // of a 512-bit one, and a slice of up to 16 words one 128-bit block.
    // SAFETY: this function only runs where AVX-512F/BW/VL are enabled (target_feature +
    // token), and AVX-512F implies AVX2.
    unsafe { network::sort_words_masked::<Bytes64, Bytes32Vl, Bytes16Vl>(words) }
}

/// 64 byte lanes in one AVX-512 register.
#[derive(Clone, Copy)]
struct Bytes64(__m512i);

// SAFETY (for every method): the trait contract makes callers guarantee AVX-512F/BW and
// valid pointers; the intrinsics need nothing else.
impl ByteVector for Bytes64 {
    const BYTES: usize = 64;

    #[inline(always)]
    unsafe fn load(src: *const u8) -> Self {
        // SAFETY: see the impl comment; loadu takes unaligned pointers.
        Bytes64(unsafe { _mm512_loadu_si512(src.cast()) })
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut u8) {
        // SAFETY: see the impl comment; storeu takes unaligned pointers.
        unsafe { _mm512_storeu_si512(dst.cast(), self.0) }
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes64(unsafe { _mm512_min_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes64(unsafe { _mm512_max_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn interleave_low(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes64(unsafe { _mm512_unpacklo_epi8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn interleave_high(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes64(unsafe { _mm512_unpackhi_epi8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn low_nibble_up(self) -> Self {
        // As for AVX2: the neighbour's bits in the low half are allowed.
        // SAFETY: see the impl comment.
        Bytes64(unsafe { _mm512_slli_epi16::<4>(self.0) })
    }
    #[inline(always)]
    unsafe fn join_nibbles(high: Self, low: Self) -> Self {
        // One bitwise select, (mask & high) | (!mask & low >> 4), with mask = 0xf0 bytes.
        // SAFETY: see the impl comment.
        unsafe {
            let high_half = _mm512_set1_epi8(0xf0u8 as i8);
            let low_down = _mm512_srli_epi16::<4>(low.0);
            Bytes64(_mm512_ternarylogic_epi32::<0xe4>(
                high.0, low_down, high_half,
            ))
        }
    }
}

/// A mask with the low `len` bits set (`len <= 64`).
#[inline(always)]
fn low_bits(len: usize) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

// SAFETY (both methods): the trait contract makes callers guarantee AVX-512F/BW, `len <=
// 64` and pointers valid for `len` bytes; masked-off bytes are neither read nor written.
impl MaskedByteVector for Bytes64 {
    #[inline(always)]
    unsafe fn load_prefix(src: *const u8, len: usize) -> Self {
        // SAFETY: see the impl comment.
        Bytes64(unsafe { _mm512_maskz_loadu_epi8(low_bits(len), src.cast()) })
    }
    #[inline(always)]
    unsafe fn store_prefix(self, dst: *mut u8, len: usize) {
        // SAFETY: see the impl comment.
        unsafe { _mm512_mask_storeu_epi8(dst.cast(), low_bits(len), self.0) }
    }
}

/// The AVX2 vector with AVX-512VL masked loads and stores, for slices of up to 32 words.
#[derive(Clone, Copy)]
struct Bytes32Vl(Bytes32);

// SAFETY (every method): delegates to `Bytes32`, whose contract is the same; the masked
// accesses need AVX-512BW/VL, which callers of this type guarantee.
impl ByteVector for Bytes32Vl {
    const BYTES: usize = 32;
    #[inline(always)]
    unsafe fn load(src: *const u8) -> Self {
        // SAFETY: see the impl comment.
        Bytes32Vl(unsafe { Bytes32::load(src) })
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut u8) {
        // SAFETY: see the impl comment.
        unsafe { self.0.store(dst) }
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32Vl(unsafe { self.0.min(other.0) })
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32Vl(unsafe { self.0.max(other.0) })
    }
    #[inline(always)]
    unsafe fn interleave_low(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32Vl(unsafe { self.0.interleave_low(other.0) })
    }
    #[inline(always)]
    unsafe fn interleave_high(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32Vl(unsafe { self.0.interleave_high(other.0) })
    }
    #[inline(always)]
    unsafe fn low_nibble_up(self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32Vl(unsafe { self.0.low_nibble_up() })
    }
    #[inline(always)]
    unsafe fn join_nibbles(high: Self, low: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32Vl(unsafe { Bytes32::join_nibbles(high.0, low.0) })
    }
}

// SAFETY (both methods): as for `Bytes64`, with AVX-512BW/VL and `len <= 32`.
impl MaskedByteVector for Bytes32Vl {
    #[inline(always)]
    unsafe fn load_prefix(src: *const u8, len: usize) -> Self {
        // SAFETY: see the impl comment.
        let v = unsafe { _mm256_maskz_loadu_epi8(low_bits(len) as u32, src.cast()) };
        Bytes32Vl(Bytes32(v))
    }
    #[inline(always)]
    unsafe fn store_prefix(self, dst: *mut u8, len: usize) {
        // SAFETY: see the impl comment.
        unsafe { _mm256_mask_storeu_epi8(dst.cast(), low_bits(len) as u32, (self.0).0) }
    }
}

/// The 128-bit vector with AVX-512VL masked loads and stores, for slices of up to 16 words.
#[derive(Clone, Copy)]
struct Bytes16Vl(Bytes16);

// SAFETY (every method): delegates to `Bytes16`, whose contract is the same; the masked
// accesses need AVX-512BW/VL, which callers of this type guarantee.
impl ByteVector for Bytes16Vl {
    const BYTES: usize = 16;
    #[inline(always)]
    unsafe fn load(src: *const u8) -> Self {
        // SAFETY: see the impl comment.
        Bytes16Vl(unsafe { Bytes16::load(src) })
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut u8) {
        // SAFETY: see the impl comment.
        unsafe { self.0.store(dst) }
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes16Vl(unsafe { self.0.min(other.0) })
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes16Vl(unsafe { self.0.max(other.0) })
    }
    #[inline(always)]
    unsafe fn interleave_low(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes16Vl(unsafe { self.0.interleave_low(other.0) })
    }
    #[inline(always)]
    unsafe fn interleave_high(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes16Vl(unsafe { self.0.interleave_high(other.0) })
    }
    #[inline(always)]
    unsafe fn low_nibble_up(self) -> Self {
        // SAFETY: see the impl comment.
        Bytes16Vl(unsafe { self.0.low_nibble_up() })
    }
    #[inline(always)]
    unsafe fn join_nibbles(high: Self, low: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes16Vl(unsafe { Bytes16::join_nibbles(high.0, low.0) })
    }
}

// SAFETY (both methods): as for `Bytes64`, with AVX-512BW/VL and `len <= 16`.
impl MaskedByteVector for Bytes16Vl {
    #[inline(always)]
    unsafe fn load_prefix(src: *const u8, len: usize) -> Self {
        // SAFETY: see the impl comment.
        let v = unsafe { _mm_maskz_loadu_epi8(low_bits(len) as u16, src.cast()) };
        Bytes16Vl(Bytes16::from_m128i(v))
    }
    #[inline(always)]
    unsafe fn store_prefix(self, dst: *mut u8, len: usize) {
        // SAFETY: see the impl comment.
        unsafe { _mm_mask_storeu_epi8(dst.cast(), low_bits(len) as u16, self.0.to_m128i()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nibble::tests::check_kernel;

    #[test]
    fn matches_reference() {
        if let Some(token) = Avx512Token::new() {
            check_kernel(64, |w| token.sort_words(w));
        }
    }
}
