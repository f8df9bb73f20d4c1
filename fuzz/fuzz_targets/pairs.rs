//! Every backend's key/value sort against std's; the first byte picks the key type (u32,
//! f32, u64, f64) and whether the value slice gets a different length (which must be
//! refused with the slices untouched).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sortnet_fuzz::fuzz_pairs(data));
