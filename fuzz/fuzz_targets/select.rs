//! `select_nth` on every backend against its definition; the first byte picks the key
//! type (see `sortnet_fuzz::fuzz_select`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sortnet_fuzz::fuzz_select(data));
