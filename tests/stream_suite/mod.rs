//! The grouped host path of `vulkan-radix` keys against std's sort, shared by the test
//! binaries that run it under different pass schemes (`tests/gpu_stream.rs`: the defaults;
//! `tests/gpu_stream_reduce.rs`: reduce-then-scan), each with tiny stream pieces set before
//! the first sort.

use sortnet::{backend, SortBackend};

use crate::common::{keys, Pattern, TestKey};

/// Sorts `input` on `b` twice and checks both results against std's order, bit for bit.
pub fn check<K: TestKey>(b: &'static dyn SortBackend, input: &[K], what: &str) {
    let bits = |v: &[K]| v.iter().map(|k| k.bits()).collect::<Vec<u64>>();
    let mut want = input.to_vec();
    want.sort_by(|x, y| x.key_cmp(y));
    for round in ["first", "second"] {
        let mut got = input.to_vec();
        b.sort(&mut got).unwrap();
        assert!(bits(&got) == bits(&want), "{what}, {round} sort");
    }
}

/// vulkan-radix keys from host slices take the grouped path (one pass by the top digit that
/// varies, then group by group sorted and downloaded): random keys, one bucket (all equal),
/// keys differing only in low bits or only in the top byte, every key type, several group
/// counts (`SORTNET_GPU_KEY_GROUPS`), and the whole-sort path to compare.
pub fn grouped_key_sorts_match_std(ctx: &sortnet::gpu::context::GpuContext) {
    let Some(b) = backend::by_name("vulkan-radix") else {
        return;
    };
    let n = 9001;
    assert!(ctx.streams(n as u64 * 4), "{n} u32 keys should stream");
    let random: Vec<u32> = keys(Pattern::Random, n, 1);
    let low: Vec<u32> = random.iter().map(|k| k & 0x3ff).collect();
    let top: Vec<u32> = random.iter().map(|k| k & 0xff00_0000).collect();
    // Most keys in one bucket, a few elsewhere: a group far larger than the others.
    let skew: Vec<u32> = random
        .iter()
        .map(|&k| {
            if k % 16 != 0 {
                0x4000_0000 | (k & 0xff)
            } else {
                k
            }
        })
        .collect();
    std::env::set_var("SORTNET_GPU_KEYS_OVERLAP", "1");
    for groups in ["16", "1", "3", "64"] {
        std::env::set_var("SORTNET_GPU_KEY_GROUPS", groups);
        check(b, &random, &format!("random u32, {groups} groups"));
        check(b, &keys::<u32>(Pattern::AllEqual, n, 2), "all equal u32");
        check(b, &low, &format!("low bits u32, {groups} groups"));
        check(b, &top, &format!("top byte u32, {groups} groups"));
        check(b, &skew, &format!("skewed u32, {groups} groups"));
    }
    std::env::set_var("SORTNET_GPU_KEY_GROUPS", "8");
    // The upload's pieces scattered all at once, or one by one as each lands.
    for batches in ["1", "100"] {
        std::env::set_var("SORTNET_GPU_SCATTER_BATCHES", batches);
        check(
            b,
            &random,
            &format!("random u32, {batches} scatter batches"),
        );
        check(b, &skew, &format!("skewed u32, {batches} scatter batches"));
    }
    std::env::remove_var("SORTNET_GPU_SCATTER_BATCHES");
    // Digits counted on the device after the upload, read back, and the pass by the top
    // digit given the host's bucket offsets (the path of keys that share their top digit).
    std::env::set_var("SORTNET_GPU_HOST_COUNT", "0");
    check(b, &random, "random u32, counted on the device");
    check(
        b,
        &keys::<u64>(Pattern::Random, n, 12),
        "u64, counted on the device",
    );
    std::env::remove_var("SORTNET_GPU_HOST_COUNT");
    check(b, &keys::<u64>(Pattern::Random, n, 11), "u64, 8 groups");
    check(b, &keys::<i32>(Pattern::Random, n, 3), "i32");
    check(
        b,
        &keys::<f32>(Pattern::Random, n, 4),
        "f32 with NaN, ±0, ±inf",
    );
    check(
        b,
        &keys::<f32>(Pattern::FewDistinct, n, 5),
        "few distinct f32",
    );
    check(b, &keys::<u64>(Pattern::Random, n, 6), "u64");
    check(b, &keys::<i64>(Pattern::Saw, n, 7), "i64 saw");
    check(b, &keys::<f64>(Pattern::Random, n, 8), "f64");
    let wide_top: Vec<u64> = keys::<u64>(Pattern::Random, n, 9)
        .iter()
        .map(|k| k & 0xff00_0000_0000_0000)
        .collect();
    check(b, &wide_top, "u64 top byte only");
    let wide_low: Vec<u64> = wide_top.iter().map(|k| k >> 56).collect();
    check(b, &wide_low, "u64 low byte only");
    std::env::set_var("SORTNET_GPU_KEYS_OVERLAP", "0");
    check(
        b,
        &random,
        "random u32, whole sort between upload and download",
    );
    check(b, &keys::<u64>(Pattern::Random, n, 10), "u64, whole sort");
    // A failure after some pieces were written back leaves the original keys.
    std::env::set_var("SORTNET_GPU_STREAM_FAIL_AFTER", "3");
    for overlap in ["1", "0"] {
        std::env::set_var("SORTNET_GPU_KEYS_OVERLAP", overlap);
        let mut keys = random.clone();
        assert!(
            b.sort(&mut keys).is_err(),
            "the injected failure is reported"
        );
        assert!(
            keys == random,
            "keys restored after a failure (overlap {overlap})"
        );
    }
    std::env::remove_var("SORTNET_GPU_STREAM_FAIL_AFTER");
    std::env::remove_var("SORTNET_GPU_KEYS_OVERLAP");
    std::env::remove_var("SORTNET_GPU_KEY_GROUPS");
    // Below GROUPED_MIN_BYTES without the knob: the whole sort.
    check(b, &random, "random u32, default path");
}
