//! Every backend's f32 sort against std's sort by `total_cmp` (NaNs, infinities, -0.0 and
//! subnormals included, compared bit for bit).
#![no_main]

use sortnet_fuzz::{check_keys, keys_from};

libfuzzer_sys::fuzz_target!(|data: &[u8]| check_keys::<f32>(&keys_from(data)));
