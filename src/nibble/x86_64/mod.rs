//! x86-64 nibble kernels: the shared network over AVX2 and AVX-512 byte vectors.

pub mod avx2;
pub mod avx512;
