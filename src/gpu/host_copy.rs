//! Host copies into and out of staging memory, on all cores, with non-temporal stores
//! where the CPU has them.
//!
//! Ordinary stores first read every destination line into the cache (read for ownership),
//! a third more memory traffic on a host whose memory the PCIe copies use at the same time.
//! One thread moved 13-14 GB/s and the 16 cores of the H200 host 61-71 GB/s into and out of
//! staging memory alone, but only 42-46 GB/s beside the PCIe copies of a streamed transfer
//! (BENCHMARKS.md, "GPU host path").

use bytemuck::Pod;
use rayon::prelude::*;

/// Copies `src` into `dst` (same length) on all cores, in pieces of [`COPY_PIECE_BYTES`],
/// with non-temporal stores where the CPU has them.
pub(crate) fn par_copy<T: Pod + Send + Sync>(dst: &mut [T], src: &[T]) {
    let piece = (COPY_PIECE_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    if dst.len() <= piece {
        copy_piece(dst, src);
        return;
    }
    dst.par_chunks_mut(piece)
        .zip(src.par_chunks(piece))
        .for_each(|(d, s)| copy_piece(d, s));
}

/// Host copies split into pieces of this many bytes across the cores.
const COPY_PIECE_BYTES: usize = 256 << 10;

/// Copies one piece of a host copy with non-temporal stores.
fn copy_piece<T: Pod>(dst: &mut [T], src: &[T]) {
    stream_copy(bytemuck::cast_slice_mut(dst), bytemuck::cast_slice(src));
}

/// Copies `src` into `dst` (same length) with non-temporal stores on x86-64 (SSE2, part of
/// the architecture), ordinary ones elsewhere; the stores are fenced before it returns.
fn stream_copy(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "stream_copy needs equal lengths");
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        const LINE: usize = 64;
        let head = dst.as_ptr().align_offset(16).min(dst.len());
        let body = (dst.len() - head) / LINE * LINE;
        dst[..head].copy_from_slice(&src[..head]);
        // SAFETY: SSE2 is part of x86-64. `d` is 16-byte aligned (`head` is its
        // alignment offset) and both `d` and `s` are valid for `body` bytes past `head`
        // (equal lengths, checked above); the loads are unaligned ones. The fence orders
        // the weakly ordered non-temporal stores before whatever follows.
        unsafe {
            let d = dst.as_mut_ptr().add(head);
            let s = src.as_ptr().add(head);
            for i in (0..body).step_by(LINE) {
                let (from, to) = (s.add(i).cast::<__m128i>(), d.add(i).cast::<__m128i>());
                let a = _mm_loadu_si128(from);
                let b = _mm_loadu_si128(from.add(1));
                let c = _mm_loadu_si128(from.add(2));
                let e = _mm_loadu_si128(from.add(3));
                _mm_stream_si128(to, a);
                _mm_stream_si128(to.add(1), b);
                _mm_stream_si128(to.add(2), c);
                _mm_stream_si128(to.add(3), e);
            }
            _mm_sfence();
        }
        dst[head + body..].copy_from_slice(&src[head + body..]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_copies_match_plain_ones_at_every_alignment() {
        let src: Vec<u8> = (0..4096u32).map(|i| (i * 7 + i / 256) as u8).collect();
        for start in [0usize, 1, 3, 8, 15, 16, 17] {
            for len in [0usize, 1, 15, 16, 63, 64, 65, 200, 1000, 4000 - start] {
                let mut dst = vec![0u8; 4096];
                stream_copy(&mut dst[start..start + len], &src[7..7 + len]);
                assert_eq!(&dst[start..start + len], &src[7..7 + len], "{start} {len}");
                assert!(dst[..start]
                    .iter()
                    .chain(&dst[start + len..])
                    .all(|&b| b == 0));
            }
        }
        let words: Vec<u64> = (0..300_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9))
            .collect();
        let mut out = vec![0u64; words.len()];
        par_copy(&mut out, &words);
        assert_eq!(out, words);
    }
}
