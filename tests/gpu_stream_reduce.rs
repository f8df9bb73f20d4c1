//! The grouped host path (`tests/stream_suite`) with every pass by reduce-then-scan and 35
//! partitions at most, so that lavapipe runs at test sizes what large sorts run: the pass by
//! the top digit with bucket offsets from the host, and the group sorts. Its own test
//! binary: the knobs and the piece size are read once per process.
#![cfg(feature = "gpu")]

mod common;
mod stream_suite;

#[test]
fn grouped_sorts_by_reduce_then_scan_match_std() {
    // Set before anything in this process touches the GPU (one test in this binary).
    std::env::set_var("SORTNET_GPU_STREAM_PIECE", "4k");
    std::env::set_var("SORTNET_RADIX_REDUCE_SCAN", "1");
    std::env::set_var("SORTNET_RADIX_PARTITIONS", "35");
    let Some(ctx) = common::gpu_or_skip(sortnet::gpu::context::context(), "a Vulkan device") else {
        return;
    };
    let sorter = sortnet::gpu::radix::RadixSorter::get().unwrap();
    assert!(sorter
        .reduces_then_scans(sortnet::KeyWidth::W32, false, 9001)
        .unwrap());
    stream_suite::grouped_key_sorts_match_std(&ctx);
}
