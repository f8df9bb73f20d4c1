//! Portable nibble kernel over the `wide` crate: 16 words per block in 128-bit vectors
//! (SSE2 on x86-64, NEON on aarch64, plain arrays elsewhere).

use wide::{u16x8, u8x16};

use crate::nibble::network::{self, ByteVector};

/// Sorts the nibbles of every word, 16 words at a time.
pub fn sort_words(words: &mut [u64]) {
    // SAFETY: `Bytes16` uses only `wide`'s safe operations, which need no CPU feature
    // beyond the compile-time target.
    unsafe { network::sort_words::<Bytes16>(words) }
}

/// 16 byte lanes in a `wide::u8x16` (also the AVX2 kernel's vector for short slices).
#[derive(Clone, Copy)]
pub(crate) struct Bytes16(u8x16);

#[cfg(target_arch = "x86_64")]
impl Bytes16 {
    /// From an x86 register (for the AVX-512 kernel's masked loads).
    #[inline(always)]
    pub(crate) fn from_m128i(v: std::arch::x86_64::__m128i) -> Self {
        // SAFETY: both are 16 plain bytes with no invalid bit patterns.
        Bytes16(u8x16::new(unsafe {
            std::mem::transmute::<std::arch::x86_64::__m128i, [u8; 16]>(v)
        }))
    }

    /// To an x86 register (for the AVX-512 kernel's masked stores).
    #[inline(always)]
    pub(crate) fn to_m128i(self) -> std::arch::x86_64::__m128i {
        // SAFETY: both are 16 plain bytes with no invalid bit patterns.
        unsafe { std::mem::transmute::<[u8; 16], std::arch::x86_64::__m128i>(self.0.to_array()) }
    }
}

impl ByteVector for Bytes16 {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn load(src: *const u8) -> Self {
        // SAFETY: the trait contract gives 16 readable bytes; read_unaligned needs no
        // alignment.
        Bytes16(u8x16::new(unsafe {
            src.cast::<[u8; 16]>().read_unaligned()
        }))
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut u8) {
        // SAFETY: the trait contract gives 16 writable bytes.
        unsafe { dst.cast::<[u8; 16]>().write_unaligned(self.0.to_array()) }
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        Bytes16(self.0.min(other.0))
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        Bytes16(self.0.max(other.0))
    }
    #[inline(always)]
    unsafe fn interleave_low(self, other: Self) -> Self {
        Bytes16(u8x16::unpack_low(self.0, other.0))
    }
    #[inline(always)]
    unsafe fn interleave_high(self, other: Self) -> Self {
        Bytes16(u8x16::unpack_high(self.0, other.0))
    }
    #[inline(always)]
    unsafe fn low_nibble_up(self) -> Self {
        // A 16-bit shift: the neighbour's bits in the low half are allowed by the trait.
        let wide: u16x8 = bytemuck::cast(self.0);
        Bytes16(bytemuck::cast(wide << 4_u32))
    }
    #[inline(always)]
    unsafe fn join_nibbles(high: Self, low: Self) -> Self {
        let high_half = u8x16::splat(0xf0);
        let low: u16x8 = bytemuck::cast(low.0 & high_half);
        let low_down: u8x16 = bytemuck::cast(low >> 4_u32);
        Bytes16((high.0 & high_half) | low_down)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nibble::tests::check_kernel;

    #[test]
    fn matches_reference() {
        check_kernel(16, sort_words);
    }
}
