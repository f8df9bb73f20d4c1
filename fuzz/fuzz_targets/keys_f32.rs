//! Every backend's f32 sort against std's sort by `total_cmp` (NaNs, infinities, -0.0 and
//! subnormals included, compared bit for bit).
#![no_main]

use sortnet_fuzz::{check_keys, keys_from, nearly_sorted};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let keys: Vec<f32> = keys_from(data);
    check_keys(&keys);
    // The same keys out of place in a sorted slice (the nearly-sorted scan).
    check_keys(&nearly_sorted(&keys));
});
