//! `vulkan-radix` by reduce-then-scan (at most three partitions per pass, as in
//! `tests/gpu_radix_reduce.rs`) with the spin limit at zero: no tile waits for the scan
//! that the pass's first workgroups run; each computes its partitions' offsets from the
//! counts instead (the path taken when a driver does not run the scan's workgroups first).
//! The result must be the same sorted, stable order (tests in `radix_suite`; the knobs are
//! read once per process, when the pipelines are built).
#![cfg(feature = "gpu")]

mod common;
mod radix_suite;

fn configure() {
    std::env::set_var("SORTNET_RADIX_REDUCE_SCAN", "1");
    std::env::set_var("SORTNET_RADIX_PARTITIONS", "3");
    std::env::set_var("SORTNET_RADIX_SPIN_LIMIT", "0");
}
