//! AVX-512 nibble kernel: 64 words per block in 512-bit vectors (AVX-512BW byte lanes).

use std::arch::x86_64::*;

use crate::nibble::network::{self, ByteVector};

/// Proof that the CPU runs AVX-512F and AVX-512BW; the only way to reach the AVX-512
/// kernel. (`SORTNET_NO_AVX512=1` is honoured where the backend list is built.)
#[derive(Clone, Copy, Debug)]
pub struct Avx512Token(());

impl Avx512Token {
    /// The CPU features the kernel uses, for `status()`.
    pub const FEATURES: &'static str = "avx512f avx512bw";

    /// The token, if this CPU has AVX-512F and AVX-512BW.
    pub fn new() -> Option<Self> {
        let usable = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw");
        usable.then_some(Avx512Token(()))
    }

    /// Sorts the nibbles of every word, 64 words at a time.
    pub fn sort_words(self, words: &mut [u64]) {
        // SAFETY: the token exists only where the CPU has AVX-512F and AVX-512BW.
        unsafe { sort_words_avx512(words) }
    }
}

#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn sort_words_avx512(words: &mut [u64]) {
    // SAFETY: this function only runs where AVX-512F/BW are enabled (target_feature + token).
    unsafe { network::sort_words::<Bytes64>(words) }
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
