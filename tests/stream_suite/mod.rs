//! Host slices of `vulkan-radix` keys through the streamed path against std's sort, run
//! by `tests/gpu_stream.rs` for each pass scheme, with pieces small enough that a software
//! driver streams test-sized slices.

use sortnet::gpu::context::GpuContext;
use sortnet::gpu::transfer::TransferConfig;
use sortnet::tuning::gpu as tuning;
use sortnet::SortBackend;

use crate::common::{keys, Pattern, TestKey};

/// Sorts `input` on `b` twice and checks both results against std's order, bit for bit.
pub fn check<K: TestKey>(b: &(dyn SortBackend + 'static), input: &[K], what: &str) {
    let bits = |v: &[K]| v.iter().map(|k| k.bits()).collect::<Vec<u64>>();
    let mut want = input.to_vec();
    want.sort_by(|x, y| x.key_cmp(y));
    for round in ["first", "second"] {
        let mut got = input.to_vec();
        b.sort(&mut got).unwrap();
        assert!(bits(&got) == bits(&want), "{what}, {round} sort");
    }
}

/// `b` (a `vulkan-radix` whose transfers follow `transfer`) sorts streamed host slices
/// right: random keys, one bucket (all equal), keys differing only in low bits or only in
/// the top byte, most keys in one bucket, every key type.
pub fn streamed_key_sorts_match_std(
    ctx: &GpuContext,
    b: &(dyn SortBackend + 'static),
    transfer: &TransferConfig,
) {
    let n = 9001;
    assert!(
        tuning::streams(transfer, ctx, n as u64 * 4),
        "{n} u32 keys should stream"
    );
    let random: Vec<u32> = keys(Pattern::Random, n, 1);
    let low: Vec<u32> = random.iter().map(|k| k & 0x3ff).collect();
    let top: Vec<u32> = random.iter().map(|k| k & 0xff00_0000).collect();
    // Most keys in one bucket, a few elsewhere.
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
    check(b, &random, "random u32");
    check(b, &keys::<u32>(Pattern::AllEqual, n, 2), "all equal u32");
    check(b, &low, "low bits u32");
    check(b, &top, "top byte u32");
    check(b, &skew, "skewed u32");
    check(b, &keys::<u64>(Pattern::Random, n, 12), "u64");
    check(b, &keys::<u64>(Pattern::Random, n, 11), "u64, another seed");
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
    check(b, &keys::<u64>(Pattern::Random, n, 10), "u64, whole sort");
}
