//! A capped device-memory budget (SORTNET_GPU_MEMORY_CAP) makes large GPU sorts fail with
//! `Error::Gpu` and leaves the data untouched. Its own test binary: the cap is read once,
//! when the process creates the shared context.
#![cfg(feature = "gpu")]

mod common;

use sortnet::{backend, Error};

#[test]
fn allocation_over_the_cap_is_an_error_and_the_data_is_untouched() {
    // Set before anything in this process touches the GPU (one test in this binary).
    std::env::set_var("SORTNET_GPU_MEMORY_CAP", "1m");
    let Some(ctx) = common::gpu_or_skip(sortnet::gpu::context::context(), "a Vulkan device") else {
        return;
    };
    assert_eq!(ctx.memory_cap(), Some(1 << 20));
    let b = backend::by_name("vulkan-bitonic").unwrap();

    // Under the cap: sorts.
    let mut small: Vec<u32> = (0..1000u32).rev().collect();
    b.sort(&mut small).unwrap();
    assert!(small.windows(2).all(|w| w[0] <= w[1]));

    // Over the cap (4 MiB of keys): Err, nothing changed.
    let original: Vec<u32> = (0..1u32 << 20)
        .map(|i| i.wrapping_mul(2654435761))
        .collect();
    let mut keys = original.clone();
    let err = b.sort(&mut keys).unwrap_err();
    assert!(matches!(err, Error::Gpu(_)), "{err}");
    assert!(keys == original);

    // Pairs through the bitonic sorter itself (the backend takes no pairs).
    let mut vals: Vec<u32> = (0..1u32 << 20).collect();
    let vals_before = vals.clone();
    let sorter = sortnet::gpu::bitonic::BitonicSorter::new(ctx.clone());
    assert!(matches!(
        sorter.sort_pairs(&mut keys, &mut vals),
        Err(Error::Gpu(_))
    ));
    assert!(keys == original && vals == vals_before);

    let words_before: Vec<u64> = (0..300_000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let mut words = words_before.clone();
    if b.supports(sortnet::Workload::Nibbles) {
        assert!(matches!(b.sort_nibbles(&mut words), Err(Error::Gpu(_))));
        assert!(words == words_before);
    }
}
