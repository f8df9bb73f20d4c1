//! Every backend's 64-bit key sort against std's sort, the input bytes read as u64, i64 and
//! f64 keys; the u64 keys also out of place in a sorted slice.
#![no_main]

use sortnet_fuzz::{check_keys, keys_from, nearly_sorted};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check_keys::<u64>(&keys_from(data));
    check_keys::<u64>(&nearly_sorted(&keys_from::<u64>(data)));
    check_keys::<i64>(&keys_from(data));
    check_keys::<f64>(&keys_from(data));
});
