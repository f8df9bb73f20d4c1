//! The streamed host path (pieces of the upload and download overlapped with the host's
//! copies; nibble pieces sorted independently), exercised with tiny pieces so that lavapipe
//! runs it at test sizes, under each pass scheme, with an injected failure half way, and
//! slices inside host buffers (no staging at all).
#![cfg(feature = "gpu")]

mod common;
mod stream_suite;

use std::sync::Arc;

use common::Rng;
use sortnet::backend;
use sortnet::gpu::bitonic::{BitonicSorter, VulkanBitonic};
use sortnet::gpu::context::{context, GpuContext};
use sortnet::gpu::radix::{RadixSorter, VulkanRadix};
use sortnet::gpu::transfer::TransferConfig;
use sortnet::gpu::HostBuffer;
use sortnet::tuning::gpu::{self as tuning, BitonicConfig, PassScheme, RadixConfig};
use sortnet::SortBackend;

fn gpu() -> Option<Arc<GpuContext>> {
    common::gpu_or_skip(context(), "a Vulkan device")
}

/// Pieces of 4 KiB: slices from 8 KiB on stream.
fn small_pieces() -> TransferConfig {
    let mut t = TransferConfig::default();
    t.piece_bytes = 4 << 10;
    t
}

fn radix(ctx: &Arc<GpuContext>, config: RadixConfig) -> VulkanRadix {
    VulkanRadix::new(RadixSorter::with_config(ctx.clone(), config).unwrap()).unwrap()
}

fn radix_with(ctx: &Arc<GpuContext>, transfer: TransferConfig) -> VulkanRadix {
    let mut config = RadixConfig::default();
    config.transfer = transfer;
    radix(ctx, config)
}

fn bitonic_with(ctx: &Arc<GpuContext>, transfer: TransferConfig) -> VulkanBitonic {
    let mut config = BitonicConfig::default();
    config.transfer = transfer;
    VulkanBitonic::new(BitonicSorter::with_config(ctx.clone(), config))
}

#[test]
fn streamed_host_sorts_match_std_for_keys_and_nibbles() {
    let Some(ctx) = gpu() else { return };
    let transfer = small_pieces();
    let mut rng = Rng::new(7);
    let backends: [(&str, Box<dyn SortBackend>); 2] = [
        (
            "vulkan-bitonic",
            Box::new(bitonic_with(&ctx, transfer.clone())),
        ),
        ("vulkan-radix", Box::new(radix_with(&ctx, transfer.clone()))),
    ];
    for (name, b) in &backends {
        let b: &(dyn SortBackend + 'static) = b.as_ref();
        // Exactly two pieces, a partial last piece, many pieces.
        for n in [2048usize, 5000, 65543] {
            assert!(
                tuning::streams(&transfer, &ctx, n as u64 * 4),
                "{n} u32 keys should stream"
            );
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
                assert!(
                    tuning::streams(&transfer, &ctx, n as u64 * 8),
                    "{n} words should stream"
                );
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

/// Streamed radix key sorts under the shipped pass schemes, and with every pass by
/// reduce-then-scan and at most 35 partitions, so that lavapipe runs at test sizes what
/// large sorts run.
#[test]
fn streamed_radix_key_sorts_match_std_under_each_scheme() {
    let Some(ctx) = gpu() else { return };
    let transfer = small_pieces();
    let b = radix_with(&ctx, transfer.clone());
    stream_suite::streamed_key_sorts_match_std(&ctx, &b, &transfer);

    let mut config = RadixConfig::default();
    config.scheme = PassScheme::ReduceThenScan;
    config.partitions = 35;
    config.transfer = transfer.clone();
    let b = radix(&ctx, config);
    assert!(tuning::reduces_then_scans(b.sorter(), sortnet::KeyWidth::W32, false, 9001).unwrap());
    stream_suite::streamed_key_sorts_match_std(&ctx, &b, &transfer);
}

/// A failure after some pieces were written back leaves the original keys.
#[test]
fn a_failure_half_way_restores_the_keys() {
    let Some(ctx) = gpu() else { return };
    let mut transfer = small_pieces();
    transfer.fail_after_pieces = Some(3);
    let b = radix_with(&ctx, transfer.clone());
    let b: &(dyn SortBackend + 'static) = &b;
    let random: Vec<u32> = common::keys(common::Pattern::Random, 9001, 1);
    assert!(tuning::streams(&transfer, &ctx, 9001 * 4));
    let mut keys = random.clone();
    assert!(
        b.sort(&mut keys).is_err(),
        "the injected failure is reported"
    );
    assert!(keys == random, "keys restored after a failure");
    // The backend's default path, which the failure setting does not reach.
    stream_suite::check(
        backend::by_name("vulkan-radix").unwrap(),
        &random,
        "random u32, default path",
    );
}

/// Slices inside host buffers, whole or in part, sort in place through `vulkan-radix`'s
/// direct copies (at sizes that would otherwise stream): keys, pairs and nibble words; a
/// Vec's slice is not taken for one.
#[test]
fn host_buffers_sort_without_staging() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::new(8);
    let b = radix_with(&ctx, small_pieces());
    let b: &(dyn SortBackend + 'static) = &b;
    let n = 70_001;
    let data: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    assert!(!HostBuffer::holds(&data[..]));
    let mut keys = HostBuffer::from_slice(&data).unwrap();
    assert!(keys[..] == data[..]);
    // A part in the middle: the rest stays as it was.
    let (lo, hi) = (1234, 50_000);
    assert!(HostBuffer::holds(&keys[lo..hi]));
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
