//! Every backend's nibble sort against `nibble::reference`, on words from the input bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sortnet_fuzz::check_nibbles(data));
