//! `sort_by_key` on every backend against its definition; the first byte picks the key
//! type (see `sortnet_fuzz::fuzz_by_key`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sortnet_fuzz::fuzz_by_key(data));
