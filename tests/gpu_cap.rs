//! A capped device-memory budget (SORTNET_GPU_MEMORY_CAP) makes large GPU sorts fail with
//! `Error::Gpu` and leaves the data untouched; a registry built with a typed cap takes that
//! one instead. Its own test binary: the variable is read once, when the process creates
//! the shared context.
#![cfg(feature = "gpu")]

mod common;

use sortnet::backend::{self, Options, ProfileChoice, Registry};
use sortnet::Error;

#[test]
fn allocation_over_the_cap_is_an_error_and_the_data_is_untouched() {
    // Set before anything in this process touches the GPU (one test in this binary).
    std::env::set_var("SORTNET_GPU_MEMORY_CAP", "1m");
    assert_eq!(Options::from_env().gpu_memory_cap, Some(1 << 20));
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

    // A registry built from typed options takes its cap, not the environment's: with
    // 64 MiB the keys the shared context refused sort.
    let typed = Registry::new(&Options {
        gpu_memory_cap: Some(64 << 20),
        profile: ProfileChoice::BuiltIn,
        ..Options::default()
    });
    let b = typed.by_name("vulkan-bitonic").expect("a GPU backend");
    let mut keys = original.clone();
    b.sort(&mut keys).unwrap();
    let mut want = original;
    want.sort_unstable();
    assert!(keys == want);
}
