//! AVX2 nibble kernel: 32 words per block in 256-bit vectors.

use std::arch::x86_64::*;

use crate::nibble::network::{self, ByteVector};

/// Proof that the CPU runs AVX2; the only way to reach the AVX2 kernel.
#[derive(Clone, Copy, Debug)]
pub struct Avx2Token(());

impl Avx2Token {
    /// The token, if this CPU has AVX2 (std caches the CPUID result, so this is cheap).
    pub fn new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Avx2Token(()))
    }

    /// Sorts the nibbles of every word, 32 words at a time.
    pub fn sort_words(self, words: &mut [u64]) {
        // SAFETY: the token exists only where the CPU has AVX2.
        unsafe { sort_words_avx2(words) }
    }
}

#[target_feature(enable = "avx2")]
unsafe fn sort_words_avx2(words: &mut [u64]) {
    // Slices shorter than a block take 128-bit blocks: half the work of a 256-bit one.
    // SAFETY: this function only runs where AVX2 is enabled (target_feature + token); the
    // 128-bit vector needs SSE2 only.
    unsafe { network::sort_words_with_tail::<Bytes32, crate::nibble::portable::Bytes16>(words) }
}

/// 32 byte lanes in one AVX2 register (also the AVX-512 kernel's vector for short tails).
#[derive(Clone, Copy)]
pub(super) struct Bytes32(pub(super) __m256i);

// SAFETY (for every method): the trait contract makes callers guarantee AVX2 and valid
// pointers; the intrinsics need nothing else.
impl ByteVector for Bytes32 {
    const BYTES: usize = 32;

    #[inline(always)]
    unsafe fn load(src: *const u8) -> Self {
        // SAFETY: see the impl comment; loadu takes unaligned pointers.
        Bytes32(unsafe { _mm256_loadu_si256(src.cast()) })
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut u8) {
        // SAFETY: see the impl comment; storeu takes unaligned pointers.
        unsafe { _mm256_storeu_si256(dst.cast(), self.0) }
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32(unsafe { _mm256_min_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32(unsafe { _mm256_max_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn interleave_low(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32(unsafe { _mm256_unpacklo_epi8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn interleave_high(self, other: Self) -> Self {
        // SAFETY: see the impl comment.
        Bytes32(unsafe { _mm256_unpackhi_epi8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn low_nibble_up(self) -> Self {
        // A 16-bit shift: each byte's low nibble lands in its high half, and the neighbour's
        // high nibble in its low half, which the trait allows.
        // SAFETY: see the impl comment.
        Bytes32(unsafe { _mm256_slli_epi16::<4>(self.0) })
    }
    #[inline(always)]
    unsafe fn join_nibbles(high: Self, low: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe {
            let high_half = _mm256_set1_epi8(0xf0u8 as i8);
            let low_down = _mm256_srli_epi16::<4>(_mm256_and_si256(low.0, high_half));
            Bytes32(_mm256_or_si256(
                _mm256_and_si256(high.0, high_half),
                low_down,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nibble::tests::check_kernel;

    #[test]
    fn matches_reference() {
        if let Some(token) = Avx2Token::new() {
            check_kernel(32, |w| token.sort_words(w));
        }
    }
}
