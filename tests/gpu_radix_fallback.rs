//! `vulkan-radix` with the look-back's spin limit at zero: every tile that waits for an
//! earlier tile recounts it from the keys instead (the path taken when a driver does not
//! run earlier workgroups). The result must be the same sorted, stable order. A test binary
//! of its own, because the limit is read once per process when the pipelines are built.
//! The same binary runs the general four-word ballot match.
#![cfg(feature = "gpu")]

mod common;

use sortnet::backend;
use sortnet::gpu::radix::RadixSorter;
use sortnet::KeyWidth;

#[test]
fn recount_fallback_sorts_stably() {
    std::env::set_var("SORTNET_RADIX_SPIN_LIMIT", "0");
    // And the four-word ballot match that subgroups of more than 32 lanes need.
    std::env::set_var("SORTNET_RADIX_BALLOT_WORDS", "4");
    let Some(b) = common::gpu_or_skip(backend::by_name("vulkan-radix"), "vulkan-radix") else {
        return;
    };
    let tile = RadixSorter::get()
        .unwrap()
        .tile_shape(KeyWidth::W64, true)
        .unwrap()
        .tile_keys() as usize;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for n in [tile + 1, 9 * tile + 77] {
        let input: Vec<f64> = (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Few distinct values with both signs, so stability and the map both matter.
                ((state >> 40) % 97) as f64 - 48.5
            })
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by(|&x, &y| input[x as usize].total_cmp(&input[y as usize]));
        let mut keys = input.clone();
        let mut values: Vec<u32> = (0..n as u32).collect();
        b.sort_pairs(&mut keys, &mut values).unwrap();
        assert_eq!(values, order, "n={n}");
        let mut keys32: Vec<u32> = input.iter().map(|x| x.to_bits() as u32).collect();
        let mut expected = keys32.clone();
        expected.sort_unstable();
        b.sort(&mut keys32).unwrap();
        assert_eq!(keys32, expected, "n={n}");
    }
}
