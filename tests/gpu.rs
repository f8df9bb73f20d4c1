//! GPU tests, run for real on lavapipe in CI. Without a Vulkan device they skip, unless
//! `SORTNET_REQUIRE_GPU=1`, which turns a missing device into a failure.
#![cfg(feature = "gpu")]

mod common;

use std::sync::Arc;

use common::gpu::{buffer, stage_in, Memory};
use sortnet::gpu::context::{context, GpuContext};
use sortnet::gpu::vulkano;
use vulkano::command_buffer::CopyBufferInfo;

/// The shared context, or `None` (skip) when there is no Vulkan device and the environment
/// does not require one.
fn gpu() -> Option<Arc<GpuContext>> {
    common::gpu_or_skip(context(), "a Vulkan device")
}

#[test]
fn context_reads_sane_limits() {
    let Some(ctx) = gpu() else { return };
    let l = tuning::limits(&ctx);
    assert!(l.max_shared_memory >= 16 * 1024, "{l:?}");
    assert!(l.max_workgroup_invocations >= 128, "{l:?}");
    assert!(l.max_storage_buffer_range >= 1 << 27, "{l:?}");
    assert!(!l.device_local_heaps.is_empty() || !l.host_heaps.is_empty());
    if let Some(s) = l.subgroup_size {
        assert!(s.is_power_of_two() && s <= 128, "{l:?}");
    }
    let status = ctx.status();
    assert!(status.contains(ctx.name()), "{status}");
    // The same context for everyone.
    assert!(Arc::ptr_eq(&ctx, &context().unwrap()));
}

#[test]
fn smoke_upload_copy_kernel_download() {
    let Some(ctx) = gpu() else { return };
    let n = 4 * 1000u64;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let bytes = n * 4;
    let staging = buffer(&ctx, Memory::Staging, bytes).unwrap();
    let src = buffer(&ctx, Memory::Device, bytes).unwrap();
    let dst = buffer(&ctx, Memory::Device, bytes).unwrap();
    staging
        .slice::<u32>(n)
        .write()
        .unwrap()
        .copy_from_slice(&data);
    let mut b = ctx.command_builder().unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        staging.slice::<u32>(n),
        src.slice::<u32>(n),
    ))
    .unwrap();
    tuning::record_copy(&ctx, &mut b, src.slice(n), dst.slice(n)).unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        dst.slice::<u32>(n),
        staging.slice::<u32>(n),
    ))
    .unwrap();
    ctx.submit_and_wait(b).unwrap();
    assert_eq!(&staging.slice::<u32>(n).read().unwrap()[..], &data[..]);
}

// ---------------------------------------------------------------------------------------
// vulkan-bitonic and the GPU nibble sort

use sortnet::backend;
use sortnet::gpu::bitonic::BitonicSorter;
use sortnet::tuning::gpu::{self as tuning, BitonicConfig};
use sortnet::{Device, SortBackend};

fn bitonic() -> Option<&'static dyn SortBackend> {
    gpu()?;
    let b = backend::by_name("vulkan-bitonic").expect("listed whenever a device exists");
    assert!(matches!(b.device(), Device::Gpu { .. }));
    Some(b)
}

fn xorshift(seed: u64, n: usize) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Pattern {
    Random,
    AllEqual,
    Descending,
    TopByteOnly,
}

fn keys32(p: Pattern, n: usize, seed: u64) -> Vec<u32> {
    match p {
        Pattern::Random => xorshift(seed, n).into_iter().map(|x| x as u32).collect(),
        Pattern::AllEqual => vec![0xdead_beef; n],
        Pattern::Descending => (0..n as u32).rev().collect(),
        Pattern::TopByteOnly => xorshift(seed, n)
            .into_iter()
            .map(|x| ((x as u32) & 0xff00_0000) | 0x00ab_cdef)
            .collect(),
    }
}

/// Lengths around one and two tiles, and some that are no power of two.
fn lengths_around(tile: usize) -> Vec<usize> {
    vec![
        0,
        1,
        2,
        3,
        7,
        100,
        tile - 1,
        tile,
        tile + 1,
        2 * tile - 1,
        2 * tile,
        2 * tile + 1,
        3 * tile + 5,
        10_007,
    ]
}

#[test]
fn bitonic_sorts_u32_keys_of_every_shape() {
    let Some(b) = bitonic() else { return };
    let tile = tuning::bitonic_tile_len(&BitonicSorter::new(context().unwrap()), 4, false) as usize;
    for p in [
        Pattern::Random,
        Pattern::AllEqual,
        Pattern::Descending,
        Pattern::TopByteOnly,
    ] {
        for n in lengths_around(tile) {
            let mut v = keys32(p, n, n as u64);
            let mut want = v.clone();
            want.sort_unstable();
            b.sort(&mut v).unwrap();
            assert!(v == want, "{p:?} n={n}");
        }
    }
}

#[test]
fn bitonic_sorts_a_million_and_seven() {
    let Some(b) = bitonic() else { return };
    let n = (1 << 20) + 7;
    let mut v = keys32(Pattern::Random, n, 99);
    let mut want = v.clone();
    want.sort_unstable();
    b.sort(&mut v).unwrap();
    assert!(v == want);
}

#[test]
fn bitonic_sorts_every_key_type() {
    let Some(b) = bitonic() else { return };
    let tile = tuning::bitonic_tile_len(&BitonicSorter::new(context().unwrap()), 8, true) as usize;
    for n in [0, 1, 5, tile - 1, tile + 1, 2 * tile + 1, 5000] {
        let r = xorshift(n as u64 + 3, n);
        let mut f: Vec<f32> = r.iter().map(|&x| f32::from_bits(x as u32)).collect();
        if n > 4 {
            f[0] = -0.0;
            f[1] = 0.0;
            f[2] = f32::NAN;
            f[3] = -f32::NAN;
            f[4] = f32::NEG_INFINITY;
        }
        let mut want = f.clone();
        want.sort_by(f32::total_cmp);
        b.sort(&mut f).unwrap();
        assert!(
            f.iter()
                .map(|x| x.to_bits())
                .eq(want.iter().map(|x| x.to_bits())),
            "f32 {n}"
        );

        let mut i: Vec<i32> = r.iter().map(|&x| x as i32).collect();
        let mut want = i.clone();
        want.sort_unstable();
        b.sort(&mut i).unwrap();
        assert_eq!(i, want, "i32 {n}");

        let mut u: Vec<u64> = r.clone();
        let mut want = u.clone();
        want.sort_unstable();
        b.sort(&mut u).unwrap();
        assert_eq!(u, want, "u64 {n}");

        let mut s: Vec<i64> = r.iter().map(|&x| x as i64).collect();
        let mut want = s.clone();
        want.sort_unstable();
        b.sort(&mut s).unwrap();
        assert_eq!(s, want, "i64 {n}");

        let mut d: Vec<f64> = r.iter().map(|&x| f64::from_bits(x)).collect();
        if n > 2 {
            d[0] = -0.0;
            d[1] = f64::NAN;
            d[2] = -f64::INFINITY;
        }
        let mut want = d.clone();
        want.sort_by(f64::total_cmp);
        b.sort(&mut d).unwrap();
        assert!(
            d.iter()
                .map(|x| x.to_bits())
                .eq(want.iter().map(|x| x.to_bits())),
            "f64 {n}"
        );
    }
}

/// Keys sorted, and every (key, value) pair kept (the bitonic sort is not stable).
fn check_pairs<K: Copy + Ord + std::fmt::Debug>(keys: &[K], values: &[u32], input: &[(K, u32)]) {
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    let mut got: Vec<(K, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
    let mut want = input.to_vec();
    got.sort_unstable();
    want.sort_unstable();
    assert!(got == want);
}

#[test]
fn bitonic_sorts_pairs() {
    let Some(backend) = bitonic() else { return };
    // The backend takes no pairs (the bitonic sort is not stable); the sorter still does.
    assert!(!backend.supports(sortnet::Workload::Pairs(sortnet::KeyWidth::W32)));
    let mut k = vec![2u32, 1];
    let mut v = vec![0u32, 1];
    assert!(matches!(
        backend.sort_pairs(&mut k, &mut v),
        Err(sortnet::Error::Unsupported { .. })
    ));
    assert_eq!((k, v), (vec![2, 1], vec![0, 1]));
    let b = BitonicSorter::new(context().unwrap());
    let tile = tuning::bitonic_tile_len(&b, 4, true) as usize;
    for p in [Pattern::Random, Pattern::AllEqual, Pattern::TopByteOnly] {
        for n in lengths_around(tile) {
            let mut k = keys32(p, n, 7 + n as u64);
            let mut v: Vec<u32> = (0..n as u32).collect();
            let input: Vec<(u32, u32)> = k.iter().copied().zip(v.iter().copied()).collect();
            b.sort_pairs(&mut k, &mut v).unwrap();
            check_pairs(&k, &v, &input);

            let mut k64: Vec<i64> = xorshift(n as u64, n)
                .into_iter()
                .map(|x| x as i64 >> (n % 50))
                .collect();
            let mut v: Vec<u32> = (0..n as u32).collect();
            let input: Vec<(i64, u32)> = k64.iter().copied().zip(v.iter().copied()).collect();
            b.sort_host(&mut k64, Some(&mut v), sortnet::KeyMap::Signed)
                .unwrap();
            check_pairs(&k64, &v, &input);
        }
    }
    let mut k = vec![1u32, 2];
    let mut v = vec![1u32];
    assert!(b.sort_pairs(&mut k, &mut v).is_err());
    assert_eq!(k, [1, 2]);
}

#[test]
fn bitonic_chunks_and_merges_what_one_buffer_cannot_hold() {
    let Some(ctx) = gpu() else { return };
    // Chunks of 1000 stand in for a slice over maxStorageBufferRange.
    let mut config = BitonicConfig::default();
    config.chunk_limit = 1000;
    let sorter = BitonicSorter::with_config(ctx, config);
    for n in [1000, 1001, 4500] {
        let mut k = keys32(Pattern::Random, n, 5);
        let mut v: Vec<u32> = (0..n as u32).collect();
        let input: Vec<(u32, u32)> = k.iter().copied().zip(v.iter().copied()).collect();
        sorter.sort_pairs(&mut k, &mut v).unwrap();
        check_pairs(&k, &v, &input);
    }
    // 64-bit float keys: the CPU merge orders by the same key map as the GPU.
    let f: Vec<f64> = xorshift(77, 3333).into_iter().map(f64::from_bits).collect();
    let mut bits: Vec<u64> = f.iter().map(|x| x.to_bits()).collect();
    sorter
        .sort_host(&mut bits, None, sortnet::KeyMap::Float)
        .unwrap();
    let mut want = f.clone();
    want.sort_by(f64::total_cmp);
    assert!(bits.iter().copied().eq(want.iter().map(|x| x.to_bits())));
}

#[test]
fn record_into_the_callers_command_buffer() {
    let Some(ctx) = gpu() else { return };
    let sorter = BitonicSorter::new(ctx.clone());
    let n = 30_001u64;
    assert_eq!(BitonicSorter::scratch_bytes(n), 0);
    let data: Vec<u32> = keys32(Pattern::Random, n as usize, 11);
    let values: Vec<u32> = (0..n as u32).collect();
    // The caller's own buffers and command buffer: upload, sort keys+values, sort a second
    // copy of the keys alone, download, in one submission.
    let staging = stage_in(&ctx, &data).unwrap();
    let staging_v = stage_in(&ctx, &values).unwrap();
    let keys = buffer(&ctx, Memory::Device, n * 4)
        .unwrap()
        .detach()
        .slice(0..n * 4)
        .reinterpret::<[u32]>();
    let keys2 = buffer(&ctx, Memory::Device, n * 4)
        .unwrap()
        .detach()
        .slice(0..n * 4)
        .reinterpret::<[u32]>();
    let vals = buffer(&ctx, Memory::Device, n * 4)
        .unwrap()
        .detach()
        .slice(0..n * 4)
        .reinterpret::<[u32]>();
    let mut b = ctx.command_builder().unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        staging.slice::<u32>(n),
        keys.clone(),
    ))
    .unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        staging.slice::<u32>(n),
        keys2.clone(),
    ))
    .unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        staging_v.slice::<u32>(n),
        vals.clone(),
    ))
    .unwrap();
    sorter
        .record_pairs(&mut b, keys.clone(), vals.clone())
        .unwrap();
    sorter.record(&mut b, keys2.clone()).unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(keys, staging.slice::<u32>(n)))
        .unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(vals, staging_v.slice::<u32>(n)))
        .unwrap();
    ctx.submit_and_wait(b).unwrap();
    let mut want = data.clone();
    want.sort_unstable();
    let got = staging.slice::<u32>(n).read().unwrap().to_vec();
    assert!(got == want);
    let got_v = staging_v.slice::<u32>(n).read().unwrap().to_vec();
    let input: Vec<(u32, u32)> = data.iter().copied().zip(values.iter().copied()).collect();
    check_pairs(&got, &got_v, &input);
    // The keys-only sort, read back separately.
    let mut b = ctx.command_builder().unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(keys2, staging.slice::<u32>(n)))
        .unwrap();
    ctx.submit_and_wait(b).unwrap();
    assert!(staging.slice::<u32>(n).read().unwrap().to_vec() == want);
}

#[test]
fn eight_threads_sort_at_once_through_the_shared_context() {
    let Some(b) = bitonic() else { return };
    std::thread::scope(|s| {
        for t in 0..8u64 {
            s.spawn(move || {
                for round in 0..3 {
                    let n = 3000 + 977 * t as usize + round;
                    let mut v = keys32(Pattern::Random, n, t * 10 + round as u64);
                    let mut want = v.clone();
                    want.sort_unstable();
                    b.sort(&mut v).unwrap();
                    assert!(v == want, "thread {t} round {round}");
                    let mut w = xorshift(t + 50, n);
                    let want: Vec<u64> = w.iter().map(|&x| sortnet::nibble::reference(x)).collect();
                    b.sort_nibbles(&mut w).unwrap();
                    assert!(w == want);
                }
            });
        }
    });
}

fn nibble_cases() -> Vec<u64> {
    // The contest's pathological buffer (every byte of word i is i mod 256), all-equal
    // words, 15 equal nibbles and one other in every position, the contest examples.
    let mut words: Vec<u64> = (0..1024u64)
        .map(|i| (i % 256) * 0x0101_0101_0101_0101)
        .collect();
    for v in 0..16u64 {
        words.push(v * 0x1111_1111_1111_1111);
        for pos in 0..16 {
            let other = (v + 1 + pos as u64) % 16;
            let w = v * 0x1111_1111_1111_1111;
            words.push((w & !(0xf << (4 * pos))) | (other << (4 * pos)));
        }
    }
    words.extend([0x42badc0ffeed00d5, 0x0badbeef, 0, u64::MAX]);
    words.extend(xorshift(1, 5000));
    words
}

#[test]
fn gpu_nibble_sort_matches_the_reference() {
    let Some(b) = bitonic() else { return };
    let Some(ctx) = gpu() else { return };
    assert!(b.supports(sortnet::Workload::Nibbles) == sortnet::gpu::nibble::supported(&ctx));
    if !b.supports(sortnet::Workload::Nibbles) {
        return;
    }
    let cases = nibble_cases();
    for n in [0, 1, 2, 3, 1023, 1024, 1025, cases.len()] {
        let mut w = cases[..n].to_vec();
        let want: Vec<u64> = w.iter().map(|&x| sortnet::nibble::reference(x)).collect();
        b.sort_nibbles(&mut w).unwrap();
        for (i, (g, e)) in w.iter().zip(&want).enumerate() {
            assert_eq!(g, e, "n={n} word {i} input {:#x}", cases[i]);
        }
    }
}

#[test]
fn gpu_nibble_record_handles_an_odd_tail() {
    let Some(ctx) = gpu() else { return };
    if !sortnet::gpu::nibble::supported(&ctx) {
        return;
    }
    for n in [1u64, 2, 7, 2049] {
        let words = xorshift(n, n as usize);
        let staging = stage_in(&ctx, &words).unwrap();
        let dev = buffer(&ctx, Memory::Device, n * 8)
            .unwrap()
            .detach()
            .slice(0..n * 8)
            .reinterpret::<[u64]>();
        let mut b = ctx.command_builder().unwrap();
        b.copy_buffer(CopyBufferInfo::buffers(
            staging.slice::<u64>(n),
            dev.clone(),
        ))
        .unwrap();
        sortnet::gpu::nibble::record(&ctx, &mut b, dev.clone()).unwrap();
        b.copy_buffer(CopyBufferInfo::buffers(dev, staging.slice::<u64>(n)))
            .unwrap();
        ctx.submit_and_wait(b).unwrap();
        let got = staging.slice::<u64>(n).read().unwrap().to_vec();
        let want: Vec<u64> = words
            .iter()
            .map(|&x| sortnet::nibble::reference(x))
            .collect();
        assert_eq!(got, want, "n={n}");
    }
}
