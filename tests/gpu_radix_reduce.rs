//! `vulkan-radix` with every pass by reduce-then-scan, and at most three partitions per
//! pass, so that from three tiles on a partition sorts several tiles in turn and the last
//! one is shorter (tests in `radix_suite`; the knobs are read once per process, when the
//! pipelines are built).
#![cfg(feature = "gpu")]

mod common;
mod radix_suite;

use sortnet::gpu::radix::RadixSorter;
use sortnet::KeyWidth;

fn configure() {
    std::env::set_var("SORTNET_RADIX_REDUCE_SCAN", "1");
    std::env::set_var("SORTNET_RADIX_PARTITIONS", "3");
}

#[test]
fn every_variant_runs_reduce_then_scan() {
    // The suite's getter sets the knobs first.
    let Some(_) = radix_suite::radix() else {
        return;
    };
    let sorter = RadixSorter::get().unwrap();
    for width in [KeyWidth::W32, KeyWidth::W64] {
        for pairs in [false, true] {
            for n in [0, 1, 1 << 20] {
                assert!(
                    sorter.reduces_then_scans(width, pairs, n).unwrap(),
                    "{width:?} {pairs} {n}"
                );
            }
        }
    }
}
