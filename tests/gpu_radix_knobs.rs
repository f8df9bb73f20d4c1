//! `vulkan-radix` with the look-back variants that are not the default (look-back words read
//! with `atomicOr` and published with `atomicExchange`, four invocations per digit reading
//! one earlier tile each per look-back step, the look-back before the shared-memory scatter,
//! tiles from a counter instead of by workgroup id) and an odd histogram batch and keys per
//! invocation, and with the host round trips traced (`SORTNET_GPU_HOST_TRACE`) and waiting
//! blocking (`SORTNET_GPU_BLOCKING_WAIT`): the result must be the same sorted, stable order.
//! A test binary of its own, because the knobs are read once per process when the pipelines
//! are built (src/gpu/radix.rs, `env_u32`) or at the first wait.
#![cfg(feature = "gpu")]

mod common;

use sortnet::backend;
use sortnet::gpu::radix::RadixSorter;
use sortnet::KeyWidth;

#[test]
fn other_lookback_variants_sort_stably() {
    // Whatever the default pass scheme, these sorts use the look-back.
    std::env::set_var("SORTNET_RADIX_REDUCE_SCAN", "0");
    std::env::set_var("SORTNET_RADIX_LB_LOAD", "0");
    std::env::set_var("SORTNET_RADIX_LB_STORE", "0");
    std::env::set_var("SORTNET_RADIX_HIST_KPI", "5");
    std::env::set_var("SORTNET_RADIX_LOOKAHEAD", "1");
    // Four lanes walk each digit, one earlier tile each per step.
    std::env::set_var("SORTNET_RADIX_LB_LANES", "4");
    // Tiles from the counter, in the order workgroups start.
    std::env::set_var("SORTNET_RADIX_TILE_COUNTER", "1");
    std::env::set_var("SORTNET_RADIX_LOOKBACK_FIRST", "1");
    std::env::set_var("SORTNET_RADIX_HIST_BATCH", "3");
    std::env::set_var("SORTNET_GPU_HOST_TRACE", "1");
    std::env::set_var("SORTNET_GPU_BLOCKING_WAIT", "1");
    let Some(b) = common::gpu_or_skip(backend::by_name("vulkan-radix"), "vulkan-radix") else {
        return;
    };
    let tile = RadixSorter::get()
        .unwrap()
        .tile_shape(KeyWidth::W32, true)
        .unwrap()
        .tile_keys() as usize;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for n in [tile - 1, 2 * tile + 1, 13 * tile + 5] {
        let input: Vec<i32> = (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Few distinct values with both signs: stability and the map both matter.
                ((state >> 33) % 61) as i32 - 30
            })
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&i| input[i as usize]);
        let mut keys = input.clone();
        let mut values: Vec<u32> = (0..n as u32).collect();
        b.sort_pairs(&mut keys, &mut values).unwrap();
        assert_eq!(values, order, "pairs, n={n}");
        let mut wide: Vec<u64> = input.iter().map(|&x| (x as u64) << 20 ^ 0xabc).collect();
        let mut expected = wide.clone();
        expected.sort_unstable();
        b.sort(&mut wide).unwrap();
        assert_eq!(wide, expected, "u64 keys, n={n}");
    }
}
