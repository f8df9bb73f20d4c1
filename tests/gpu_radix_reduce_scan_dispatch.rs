//! `vulkan-radix` by reduce-then-scan (at most three partitions per pass, as in
//! `tests/gpu_radix_reduce.rs`) with each pass's scan as a dispatch of its own
//! (`SORTNET_RADIX_SCAN_IN_PASS=0`) instead of the first workgroups of the pass's scatter
//! (tests in `radix_suite`; the knobs are read once per process, when the pipelines are
//! built).
#![cfg(feature = "gpu")]

mod common;
mod radix_suite;

fn configure() {
    std::env::set_var("SORTNET_RADIX_REDUCE_SCAN", "1");
    std::env::set_var("SORTNET_RADIX_PARTITIONS", "3");
    std::env::set_var("SORTNET_RADIX_SCAN_IN_PASS", "0");
}
