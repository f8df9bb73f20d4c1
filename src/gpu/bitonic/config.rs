//! [`BitonicConfig`]: the bitonic sorter's tuning as a value, `Default` = what ships.

use super::MAX_LEN;
use crate::gpu::transfer::TransferConfig;

/// At most this many elements per thread in the local (shared-memory) kernels: tiles of
/// 256 x 4 = 1024 keys. On an H200, u32 keys on the GPU, 4 per thread beat 8, 16 and 32 at
/// 2^16, 2^20 and 2^24 keys (3.56 against 4.30-5.55 ms at 2^24; BENCHMARKS.md, "GPU bitonic
/// sort").
const MAX_PER_THREAD: u32 = 4;
/// Global steps fused into one dispatch: each thread holds `2^FUSE` keys in registers. On an
/// H200 fusing 4 steps was as fast as 3 and faster than 5 at 2^20 and 2^24 keys
/// (BENCHMARKS.md, "GPU bitonic sort").
const FUSE: u32 = 4;

/// The bitonic sorter's tuning. `Default` is the shipped tuning; every value gives the same
/// result (values are clamped to what the shaders take).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BitonicConfig {
    /// Most elements per thread in the local (shared-memory) kernels (a power of two,
    /// 2 to 64).
    pub max_per_thread: u32,
    /// Global steps fused into one dispatch (1 to 5).
    pub fuse: u32,
    /// Host slices longer than this are sorted in chunks of at most this many elements on
    /// the GPU and merged on the CPU (the path that slices larger than one storage buffer
    /// take; at least 2).
    pub chunk_limit: u64,
    /// How host slices travel.
    pub transfer: TransferConfig,
}

impl Default for BitonicConfig {
    fn default() -> Self {
        BitonicConfig {
            max_per_thread: MAX_PER_THREAD,
            fuse: FUSE,
            chunk_limit: MAX_LEN,
            transfer: TransferConfig::default(),
        }
    }
}
