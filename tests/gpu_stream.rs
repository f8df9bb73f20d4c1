//! The streamed host path (pieces of the upload and download overlapped with the host's
//! copies; nibble pieces sorted independently), exercised with tiny pieces so that lavapipe
//! runs it at test sizes. Its own test binary: the piece size is read once, when the
//! process creates the shared context. One test function, so that nothing else in the
//! process sets environment variables while another thread reads them.
#![cfg(feature = "gpu")]

mod common;
mod stream_suite;

use common::Rng;
use sortnet::backend;

#[test]
fn streamed_host_sorts_match_std_for_keys_and_nibbles() {
    // Set before anything in this process touches the GPU (one test in this binary).
    std::env::set_var("SORTNET_GPU_STREAM_PIECE", "4k");
    let Some(ctx) = common::gpu_or_skip(sortnet::gpu::context::context(), "a Vulkan device") else {
        return;
    };
    stream_suite::grouped_key_sorts_match_std(&ctx);
    let mut rng = Rng::new(7);
    for name in ["vulkan-bitonic", "vulkan-radix"] {
        let Some(b) = backend::by_name(name) else {
            continue;
        };
        // Exactly two pieces, a partial last piece, many pieces.
        for n in [2048usize, 5000, 65543] {
            assert!(ctx.streams(n as u64 * 4), "{n} u32 keys should stream");
            let mut keys: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let mut want = keys.clone();
            want.sort_unstable();
            b.sort(&mut keys).unwrap();
            assert!(keys == want, "{name} u32 n={n}");

            let mut keys: Vec<f32> = (0..n)
                .map(|_| f32::from_bits(rng.next_u64() as u32))
                .collect();
            let mut want = keys.clone();
            want.sort_unstable_by(f32::total_cmp);
            b.sort(&mut keys).unwrap();
            assert!(
                keys.iter()
                    .map(|k| k.to_bits())
                    .eq(want.iter().map(|k| k.to_bits())),
                "{name} f32 n={n}"
            );

            let mut keys: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
            let mut want = keys.clone();
            want.sort_unstable();
            b.sort(&mut keys).unwrap();
            assert!(keys == want, "{name} i64 n={n}");
        }
        if b.supports(sortnet::Workload::Nibbles) {
            for n in [1024usize, 1537, 30001] {
                assert!(ctx.streams(n as u64 * 8), "{n} words should stream");
                let mut words: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
                let want: Vec<u64> = words
                    .iter()
                    .map(|&w| sortnet::nibble::reference(w))
                    .collect();
                b.sort_nibbles(&mut words).unwrap();
                assert!(words == want, "{name} nibbles n={n}");
            }
        }
    }
}
