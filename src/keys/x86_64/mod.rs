//! x86-64 key kernels: the shared vectorised sort (`keys::network`) over AVX2
//! and AVX-512 vectors.

pub mod avx2;
pub mod avx512;
