//! A call returns what it took: after host slices are sorted through the GPU backends and
//! dropped, the process holds little more memory than before (the pools keep a few MiB).
//! On a software driver device memory is host memory, so resident memory shows it all.
//! Its own test binary, so that no other test's memory moves the figures.
#![cfg(feature = "gpu")]

mod common;

use sortnet::backend;

/// Resident memory of this process in bytes (Linux), or `None`.
fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn sorting_host_slices_gives_the_memory_back() {
    let Some(b) = common::gpu_or_skip(backend::by_name("vulkan-radix"), "vulkan-radix") else {
        return;
    };
    let n = 1 << 22; // 16 MiB of keys: device buffers, staging and scratch several times that
    let data: Vec<u32> = common::keys(common::Pattern::Random, n, 3);
    // Warm up: pipelines, allocator state, the shared context.
    let mut warm = data[..1 << 16].to_vec();
    b.sort(&mut warm).unwrap();
    let Some(before) = resident() else { return };
    for _ in 0..3 {
        let mut keys = data.clone();
        b.sort(&mut keys).unwrap();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]));
        let mut wide: Vec<u64> = data.iter().map(|&k| u64::from(k) << 7).collect();
        b.sort(&mut wide).unwrap();
        let mut values: Vec<u32> = (0..n as u32).collect();
        let mut keys = data.clone();
        b.sort_pairs(&mut keys, &mut values).unwrap();
    }
    let after = resident().unwrap();
    let grown = after.saturating_sub(before);
    assert!(
        grown <= 24 << 20,
        "resident memory grew by {} MiB over sorts of 16-32 MiB of keys",
        grown >> 20
    );
}
