//! x86-64 key kernels: the shared vectorised sort ([`network`](super::network)) over
//! AVX-512 vectors.

pub mod avx512;
