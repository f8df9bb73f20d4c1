//! sortnet-arrow's `sort_to_indices` and `lexsort_to_indices` against arrow-ord on columns
//! built from the input (see `sortnet_fuzz::fuzz_arrow`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sortnet_fuzz::fuzz_arrow(data));
