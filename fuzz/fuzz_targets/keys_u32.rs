//! Every backend's 32-bit key sort against std's sort, the input bytes read as u32 and as
//! i32 keys; the u32 keys also out of place in a sorted slice.
#![no_main]

use sortnet_fuzz::{check_keys, keys_from, nearly_sorted};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check_keys::<u32>(&keys_from(data));
    check_keys::<u32>(&nearly_sorted(&keys_from::<u32>(data)));
    check_keys::<i32>(&keys_from(data));
});
