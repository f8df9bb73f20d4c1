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
    host_buffers_sort_without_staging(&mut rng);
}

/// Slices inside host buffers, whole or in part, sort in place through `vulkan-radix`'s
/// direct copies (at sizes that would otherwise stream): keys, pairs and nibble words; a
/// Vec's slice is not taken for one.
fn host_buffers_sort_without_staging(rng: &mut Rng) {
    use sortnet::gpu::host_buffer::is_in_host_buffer;
    use sortnet::gpu::HostBuffer;
    let Some(b) = backend::by_name("vulkan-radix") else {
        return;
    };
    let n = 70_001;
    let data: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    assert!(!is_in_host_buffer(&data[..]));
    let mut keys = HostBuffer::from_slice(&data).unwrap();
    assert!(keys[..] == data[..]);
    // A part in the middle: the rest stays as it was.
    let (lo, hi) = (1234, 50_000);
    assert!(is_in_host_buffer(&keys[lo..hi]));
    b.sort(&mut keys[lo..hi]).unwrap();
    let mut want = data.clone();
    want[lo..hi].sort_unstable();
    assert!(keys[..] == want[..], "u32 keys, part of a host buffer");
    b.sort(&mut keys[..]).unwrap();
    want.sort_unstable();
    assert!(keys[..] == want[..], "u32 keys, a whole host buffer");

    let data: Vec<f64> = (0..n).map(|_| f64::from_bits(rng.next_u64())).collect();
    let mut keys = HostBuffer::from_slice(&data).unwrap();
    b.sort(&mut keys[..]).unwrap();
    let mut want = data.clone();
    want.sort_unstable_by(f64::total_cmp);
    assert!(
        keys.iter()
            .map(|k| k.to_bits())
            .eq(want.iter().map(|k| k.to_bits())),
        "f64 keys in a host buffer"
    );

    // Nibble words, part of a host buffer (the GPU nibble sort).
    let data: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let mut words = HostBuffer::from_slice(&data).unwrap();
    b.sort_nibbles(&mut words[7..]).unwrap();
    assert!(words[..7] == data[..7], "nibbles before the part");
    assert!(
        words[7..]
            .iter()
            .zip(&data[7..])
            .all(|(&got, &w)| got == sortnet::nibble::reference(w)),
        "nibbles in a host buffer"
    );

    // Pairs: keys and values both in host buffers; stable.
    let data: Vec<i32> = (0..n)
        .map(|_| (rng.next_u64() % 1000) as i32 - 500)
        .collect();
    let mut keys = HostBuffer::from_slice(&data).unwrap();
    let mut values = HostBuffer::<u32>::new(n).unwrap();
    for (i, v) in values.iter_mut().enumerate() {
        *v = i as u32;
    }
    b.sort_pairs(&mut keys[..], &mut values[..]).unwrap();
    let mut want: Vec<(i32, u32)> = data.iter().copied().zip(0..).collect();
    want.sort_by_key(|&(k, _)| k);
    assert!(
        keys.iter()
            .copied()
            .zip(values.iter().copied())
            .eq(want.into_iter()),
        "i32 pairs in host buffers"
    );
}
