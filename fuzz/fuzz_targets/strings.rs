//! `sort_strings` and `argsort_strings` on every backend against std's stable sort, strings
//! behind a shared prefix (see `sortnet_fuzz::fuzz_strings`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sortnet_fuzz::fuzz_strings(data));
