//! Every call on `u128` and `i128` keys, on every backend, against std's stable sort; the
//! first byte picks signedness and whole keys or decimals (see `sortnet_fuzz::fuzz_keys128`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sortnet_fuzz::fuzz_keys128(data));
