//! The GPU sorts on a device and queue of the caller's own ([`GpuContext::from_queue`]), as an
//! application that owns its Vulkan device uses them: the radix sorter (every key width, with
//! `key_bits`, a count written by the caller's own dispatch), the bitonic sorter and the
//! nibble kernel, each on its own instance and device, and the `Err` that names what a device
//! lacks. Where the driver offers several subgroup sizes
//! (`VK_EXT_subgroup_size_control`), the radix sort runs at each.
#![cfg(feature = "gpu")]

mod common;

use std::sync::Arc;

use common::gpu::{filled, own_context, own_queue, Memory};

use sortnet::gpu::bitonic::BitonicSorter;
use sortnet::gpu::context::GpuContext;
use sortnet::gpu::nibble;
use sortnet::gpu::radix::{Count, RadixSorter, SortJob};
use sortnet::gpu::vulkano;
use sortnet::tuning::gpu::{self as tuning, RadixConfig};
use sortnet::{KeyMap, KeyWidth};
use vulkano::buffer::{Buffer, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::allocator::StandardCommandBufferAllocator;
use vulkano::command_buffer::{
    AutoCommandBufferBuilder, CommandBufferUsage, CopyBufferInfo, PrimaryAutoCommandBuffer,
};
use vulkano::descriptor_set::allocator::StandardDescriptorSetAllocator;
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::device::{Device, Queue};
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter, StandardMemoryAllocator};
use vulkano::pipeline::compute::ComputePipelineCreateInfo;
use vulkano::pipeline::layout::PipelineDescriptorSetLayoutCreateInfo;
use vulkano::pipeline::{
    ComputePipeline, Pipeline, PipelineBindPoint, PipelineLayout, PipelineShaderStageCreateInfo,
};
use vulkano::shader::{ShaderModule, ShaderModuleCreateInfo};
use vulkano::sync::GpuFuture;
use vulkano::Version;

/// The shipped tuning, and one that sorts up to 4096 keys in one workgroup and up to 2^17 by
/// the short path whatever the device (software drivers do neither by default).
fn configs() -> [RadixConfig; 2] {
    [RadixConfig::default(), short_config()]
}

fn short_config() -> RadixConfig {
    let mut short = RadixConfig::default();
    short.one_workgroup_max = Some(4096);
    short.short_max = Some(1 << 17);
    short
}

fn builder(ctx: &GpuContext) -> AutoCommandBufferBuilder<PrimaryAutoCommandBuffer> {
    AutoCommandBufferBuilder::primary(
        ctx.command_buffer_allocator().clone(),
        ctx.queue().queue_family_index(),
        CommandBufferUsage::OneTimeSubmit,
    )
    .unwrap()
}

/// Submits on the caller's queue (not through sortnet) and waits.
fn submit(queue: &Arc<Queue>, b: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>) {
    vulkano::sync::now(queue.device().clone())
        .then_execute(queue.clone(), b.build().unwrap())
        .unwrap()
        .then_signal_fence_and_flush()
        .unwrap()
        .wait(None)
        .unwrap();
}

fn random_words(n: usize, seed: u64) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        })
        .collect()
}

/// What a stable sort by the mapped key's low `bits` bits leaves: keys (as words) and values.
fn reference(
    width: KeyWidth,
    map: KeyMap,
    bits: u32,
    words: &[u32],
    n: usize,
) -> (Vec<u32>, Vec<u32>) {
    let kw = if width == KeyWidth::W64 { 2 } else { 1 };
    let key = |i: usize| -> u64 {
        match width {
            KeyWidth::W32 => u64::from(map.encode32(words[i])),
            KeyWidth::W64 => {
                map.encode64(u64::from(words[2 * i]) | u64::from(words[2 * i + 1]) << 32)
            }
        }
    };
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| key(i) & mask);
    let mut keys: Vec<u32> = order
        .iter()
        .flat_map(|&i| words[kw * i..kw * i + kw].to_vec())
        .collect();
    keys.extend_from_slice(&words[kw * n..]);
    let mut values: Vec<u32> = order.iter().map(|&i| i as u32).collect();
    values.extend(n as u32..(words.len() / kw) as u32);
    (keys, values)
}

/// Sorts `cap` pairs of which `n` count, by `key_bits`, on `sorter`, against [`reference`].
fn check_pairs(
    sorter: &RadixSorter,
    width: KeyWidth,
    map: KeyMap,
    key_bits: Option<u32>,
    n: usize,
    cap: usize,
) {
    // Few distinct low bits, so that equal keys (and stability) are common.
    check_pairs_masked(sorter, width, map, key_bits, n, cap, 0xFFF0_0FFF, false);
}

/// [`check_pairs`] with the keys' low words (random) ANDed with `low_mask`, the count from a
/// GPU buffer if `from_gpu`.
#[allow(clippy::too_many_arguments)]
fn check_pairs_masked(
    sorter: &RadixSorter,
    width: KeyWidth,
    map: KeyMap,
    key_bits: Option<u32>,
    n: usize,
    cap: usize,
    low_mask: u32,
    from_gpu: bool,
) {
    let ctx = sorter.context();
    let kw = if width == KeyWidth::W64 { 2 } else { 1 };
    let words: Vec<u32> = random_words(cap * kw, n as u64 + 7)
        .into_iter()
        .enumerate()
        .map(|(i, w)| if i % kw == 0 { w & low_mask } else { w })
        .collect();
    let keys = filled(ctx, Memory::Mapped, &words).unwrap();
    let values = filled(ctx, Memory::Mapped, &(0..cap as u32).collect::<Vec<_>>()).unwrap();
    let scratch = sorter.new_scratch(width, true, cap as u64).unwrap();
    let job = SortJob {
        keys: keys.clone(),
        values: Some(values.clone()),
        width,
        map,
        count: if from_gpu {
            Count::Buffer(filled(ctx, Memory::Mapped, &[n as u32]).unwrap().index(0))
        } else {
            Count::Known(n as u32)
        },
        key_bits,
    };
    let mut b = builder(ctx);
    sorter.record(&mut b, &job, &scratch).unwrap();
    submit(ctx.queue(), b);
    let bits = key_bits.unwrap_or(32 * kw as u32);
    let (want_keys, want_values) = reference(width, map, bits, &words, n);
    let what = format!("{width:?} {map:?} key_bits {key_bits:?} n {n} of {cap}");
    assert!(*keys.read().unwrap() == want_keys[..], "keys: {what}");
    assert!(*values.read().unwrap() == want_values[..], "values: {what}");
}

#[test]
fn the_radix_sort_runs_on_the_callers_device_by_any_key_bits() {
    let Some(ctx) = own_context() else { return };
    for config in configs() {
        let sorter = RadixSorter::with_config(ctx.clone(), config).unwrap();
        by_any_key_bits(&sorter);
    }
}

/// A count read from one word past a buffer's start: refused with an error that names the
/// device's alignment where the offset breaks it, sorted where the device allows it; the
/// keys are untouched when refused.
#[test]
fn a_count_at_an_offset_the_device_cannot_bind_is_refused_by_name() {
    let Some(ctx) = own_context() else { return };
    let sorter = RadixSorter::new(ctx.clone()).unwrap();
    let align = ctx
        .device()
        .physical_device()
        .properties()
        .min_storage_buffer_offset_alignment
        .as_devicesize();
    let words: Vec<u32> = (0..100u32).rev().collect();
    let keys = filled(&ctx, Memory::Mapped, &words).unwrap();
    let counts = filled(&ctx, Memory::Mapped, &[0u32, 100]).unwrap();
    let scratch = sorter.new_scratch(KeyWidth::W32, false, 100).unwrap();
    let job = SortJob {
        keys: keys.clone(),
        values: None,
        width: KeyWidth::W32,
        map: KeyMap::Unsigned,
        count: Count::Buffer(counts.clone().index(1)),
        key_bits: None,
    };
    let mut b = builder(&ctx);
    match sorter.record(&mut b, &job, &scratch) {
        Err(e) => {
            assert!(align > 4, "refused at an offset the device allows: {e}");
            let message = e.to_string();
            assert!(
                message.contains("minStorageBufferOffsetAlignment")
                    && message.contains(&align.to_string()),
                "{message}"
            );
            assert_eq!(*keys.read().unwrap(), words[..]);
        }
        Ok(()) => {
            assert!(
                align <= 4,
                "recorded a count at offset 4 with alignment {align}"
            );
            submit(ctx.queue(), b);
            let want: Vec<u32> = (0..100).collect();
            assert_eq!(*keys.read().unwrap(), want[..]);
        }
    }
}

fn by_any_key_bits(sorter: &RadixSorter) {
    for (width, map, bits) in [
        (KeyWidth::W32, KeyMap::Unsigned, None),
        (KeyWidth::W32, KeyMap::Unsigned, Some(16)),
        (KeyWidth::W32, KeyMap::Unsigned, Some(12)),
        (KeyWidth::W32, KeyMap::Unsigned, Some(1)),
        (KeyWidth::W32, KeyMap::Float, Some(20)),
        (KeyWidth::W32, KeyMap::Signed, Some(32)),
        (KeyWidth::W64, KeyMap::Unsigned, Some(16)),
        (KeyWidth::W64, KeyMap::Unsigned, Some(44)),
        (KeyWidth::W64, KeyMap::Signed, None),
    ] {
        // Up to 4096 keys by one workgroup, then by the short path (or passes with the
        // small tile) and by passes with the shipped one (the shipped tuning's crossovers).
        for (n, cap) in [
            (0, 5),
            (1, 1),
            (1000, 1003),
            (4096, 4100),
            (4097, 4097),
            (30_011, 30_020),
            (140_000, 140_000),
            (100, 140_000),
        ] {
            check_pairs(sorter, width, map, bits, n, cap);
        }
    }
}

/// Passes dispatched directly (`direct_passes`, shipped) and by the plan's indirect sizes:
/// the steps that the plan leaves out (digits the same in every key, none for equal keys or
/// a single key) find no pass in their flags and leave, and an odd number of varying digits
/// still ends in the caller's buffers. (Counts from a GPU buffer: the tests of
/// `Count::Buffer` below.)
#[test]
fn passes_dispatched_directly_skip_the_digits_that_never_vary() {
    let Some(ctx) = own_context() else { return };
    for direct in [true, false] {
        let mut config = RadixConfig::default();
        config.direct_passes = direct;
        let sorter = RadixSorter::with_config(ctx.clone(), config).unwrap();
        skips_the_digits_that_never_vary(&sorter);
    }
}

fn skips_the_digits_that_never_vary(sorter: &RadixSorter) {
    for (width, bits, mask) in [
        (KeyWidth::W32, None, 0xFF00_00FF),
        (KeyWidth::W32, None, 0x00FF_FFFF),
        (KeyWidth::W32, None, 0),
        (KeyWidth::W32, Some(16), 0xFF00_00FF),
        (KeyWidth::W32, Some(16), 0xFFFF_FFFF),
        (KeyWidth::W32, Some(24), 0x00FF_00FF),
        (KeyWidth::W64, None, 0xFF00_00FF),
    ] {
        for (n, cap, from_gpu) in [
            (1, 1, false),
            (30_011, 30_020, false),
            (140_000, 140_000, false),
            (30_011, 140_000, true),
            (1, 140_000, true),
        ] {
            check_pairs_masked(
                sorter,
                width,
                KeyMap::Unsigned,
                bits,
                n,
                cap,
                mask,
                from_gpu,
            );
        }
    }
}

/// No clear runs before a sort: each leaves the state as the next one expects it. One
/// scratch and one pair of buffers take, in turn, counts from the host and from a GPU buffer,
/// sizes by look-back and (on software drivers, from 64 tiles) by reduce-then-scan, and
/// 32 and 16 key bits.
#[test]
fn one_scratch_serves_every_scheme_and_count_in_turn() {
    let Some(ctx) = own_context() else { return };
    let sorter = RadixSorter::new(ctx.clone()).unwrap();
    let cap = 1usize << 20;
    let keys = filled(&ctx, Memory::Mapped, &vec![0u32; cap]).unwrap();
    let values = filled(&ctx, Memory::Mapped, &vec![0u32; cap]).unwrap();
    let count = filled(&ctx, Memory::Mapped, &[0u32]).unwrap();
    let scratch = sorter.new_scratch(KeyWidth::W32, true, cap as u64).unwrap();
    for (turn, (n, from_gpu, bits)) in [
        (cap, false, None),
        (50_000, true, None),
        (30_000, false, Some(16)),
        (cap - 3, true, Some(16)),
        (70_000, false, None),
        (cap, false, None),
    ]
    .into_iter()
    .enumerate()
    {
        let words: Vec<u32> = random_words(cap, turn as u64 + 11)
            .into_iter()
            .map(|w| w & 0xFFF0_0FFF)
            .collect();
        keys.write().unwrap().copy_from_slice(&words);
        values
            .write()
            .unwrap()
            .iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v = i as u32);
        count.write().unwrap()[0] = n as u32;
        let job = SortJob {
            keys: keys.clone(),
            values: Some(values.clone()),
            width: KeyWidth::W32,
            map: KeyMap::Unsigned,
            count: if from_gpu {
                Count::Buffer(count.clone().index(0))
            } else {
                Count::Known(n as u32)
            },
            key_bits: bits,
        };
        let mut b = builder(&ctx);
        sorter.record(&mut b, &job, &scratch).unwrap();
        submit(ctx.queue(), b);
        let (want_keys, want_values) = reference(
            KeyWidth::W32,
            KeyMap::Unsigned,
            bits.unwrap_or(32),
            &words,
            n,
        );
        let what = format!("turn {turn}: n {n}, count from the GPU {from_gpu}, bits {bits:?}");
        assert!(*keys.read().unwrap() == want_keys[..], "keys: {what}");
        assert!(*values.read().unwrap() == want_values[..], "values: {what}");
    }
}

/// The short path (a split into buckets by the top digit or by splitters sampled from the
/// keys, then a workgroup per bucket) on either side of its threshold, on inputs that would
/// fill one bucket past a workgroup's shared memory if split by the top digit (keys that
/// share it, depths of one narrow float range, all keys equal, two or a few distinct values,
/// sorted and reversed runs), with the count from the host and from a GPU buffer, by 9 to 32
/// key bits, and for each key map.
#[test]
fn the_short_path_sorts_skewed_and_equal_keys_around_its_threshold() {
    let Some(ctx) = own_context() else { return };
    let sorter = RadixSorter::with_config(ctx.clone(), short_config()).unwrap();
    let w = KeyWidth::W32;
    let max = (4097..=1u64 << 17)
        .rev()
        .find(|&n| tuning::takes_short_path(&sorter, w, true, n).unwrap())
        .expect("the short path runs on this device");
    assert!(!tuning::takes_short_path(&sorter, w, true, max + 1).unwrap());
    assert!(!tuning::takes_short_path(&sorter, w, true, 4096).unwrap());
    let cap = max as usize + 1;
    let keys = filled(&ctx, Memory::Mapped, &vec![0u32; cap]).unwrap();
    let values = filled(&ctx, Memory::Mapped, &vec![0u32; cap]).unwrap();
    let count = filled(&ctx, Memory::Mapped, &[0u32]).unwrap();
    let short = sorter.new_scratch(w, true, max).unwrap();
    let chain = sorter.new_scratch(w, true, max + 1).unwrap();
    // A key from a random word and the key's index.
    type Shape = fn(u32, u32) -> u32;
    let inputs: [(&str, Shape); 8] = [
        ("random", |x, _| x),
        ("one top digit", |x, _| x & 0x00FF_FFFF | 0x5A00_0000),
        ("all equal", |_, _| 0x8000_0001),
        ("few distinct", |x, _| x & 0x8300_0003),
        (
            "two distinct",
            |x, _| if x & 1 == 0 { 7 } else { 0xC000_0000 },
        ),
        ("sorted", |_, i| i * 7 + 0x0100_0000),
        ("reversed", |_, i| u32::MAX - i * 3),
        ("narrow depths", |x, _| {
            (100.0f32 + (x >> 12) as f32 * 1e-5).to_bits()
        }),
    ];
    for (turn, (n, from_gpu, bits, map, input)) in [
        (max as usize, false, None, KeyMap::Unsigned, 0),
        (max as usize, true, Some(16), KeyMap::Unsigned, 0),
        (max as usize + 1, false, None, KeyMap::Unsigned, 0),
        (4097, true, None, KeyMap::Float, 0),
        (max as usize / 2, false, None, KeyMap::Signed, 1),
        (max as usize, false, None, KeyMap::Unsigned, 1),
        (max as usize - 5, true, Some(24), KeyMap::Unsigned, 1),
        (max as usize, false, None, KeyMap::Float, 2),
        (max as usize + 1, false, Some(16), KeyMap::Unsigned, 2),
        (max as usize / 2 + 3, false, None, KeyMap::Signed, 3),
        (max as usize, true, Some(9), KeyMap::Unsigned, 3),
        (max as usize / 2 + 1, true, None, KeyMap::Unsigned, 4),
        (max as usize, false, Some(12), KeyMap::Signed, 4),
        (max as usize, false, None, KeyMap::Unsigned, 5),
        (max as usize - 1, false, Some(20), KeyMap::Unsigned, 6),
        (max as usize, false, None, KeyMap::Float, 7),
        (max as usize, true, Some(31), KeyMap::Float, 7),
    ]
    .into_iter()
    .enumerate()
    {
        let (name, shape) = inputs[input];
        let words: Vec<u32> = random_words(cap, turn as u64 + 5)
            .into_iter()
            .enumerate()
            .map(|(i, x)| shape(x, i as u32))
            .collect();
        keys.write().unwrap().copy_from_slice(&words);
        values
            .write()
            .unwrap()
            .iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v = i as u32);
        count.write().unwrap()[0] = n as u32;
        // The count from a GPU buffer takes the path of the buffers' capacity.
        let (scratch, buf_len) = if n as u64 > max {
            (&chain, cap)
        } else {
            (&short, max as usize)
        };
        let job = SortJob {
            keys: keys.clone().slice(0..buf_len as u64),
            values: Some(values.clone().slice(0..buf_len as u64)),
            width: w,
            map,
            count: if from_gpu {
                Count::Buffer(count.clone().index(0))
            } else {
                Count::Known(n as u32)
            },
            key_bits: bits,
        };
        let mut b = builder(&ctx);
        sorter.record(&mut b, &job, scratch).unwrap();
        submit(ctx.queue(), b);
        let (want_keys, want_values) = reference(w, map, bits.unwrap_or(32), &words, n);
        let what = format!(
            "{name}: n {n} (short up to {max}), from the GPU {from_gpu}, bits {bits:?}, {map:?}"
        );
        assert!(*keys.read().unwrap() == want_keys[..], "keys: {what}");
        assert!(*values.read().unwrap() == want_values[..], "values: {what}");
    }
}

#[test]
fn key_bits_outside_the_key_are_refused() {
    let Some(ctx) = own_context() else { return };
    let sorter = RadixSorter::new(ctx.clone()).unwrap();
    let keys = filled(&ctx, Memory::Mapped, &[3u32, 1, 2]).unwrap();
    let scratch = sorter.new_scratch(KeyWidth::W32, false, 3).unwrap();
    for bits in [0, 33] {
        let job = SortJob {
            keys: keys.clone(),
            values: None,
            width: KeyWidth::W32,
            map: KeyMap::Unsigned,
            count: Count::Known(3),
            key_bits: Some(bits),
        };
        let err = sorter
            .record(&mut builder(&ctx), &job, &scratch)
            .unwrap_err();
        assert!(err.to_string().contains("key_bits"), "{err}");
    }
    assert_eq!(*keys.read().unwrap(), [3, 1, 2]);
}

#[test]
fn a_vulkan_1_0_device_is_refused_by_name() {
    let Some(queue) = common::gpu_or_skip(own_queue(Version::V1_0), "a Vulkan device") else {
        return;
    };
    let err = GpuContext::from_queue(queue).unwrap_err().to_string();
    assert!(err.contains("Vulkan 1.1"), "{err}");
}

#[test]
fn bitonic_and_nibbles_run_on_the_callers_device() {
    let Some(ctx) = own_context() else { return };
    let words = random_words(5000, 3);
    let keys = filled(&ctx, Memory::Mapped, &words).unwrap();
    let bitonic = BitonicSorter::new(ctx.clone());
    let mut b = builder(&ctx);
    bitonic.record(&mut b, keys.clone()).unwrap();
    let nibbles: Vec<u64> = (0..777u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let nibble_buf = filled(&ctx, Memory::Mapped, &nibbles).unwrap();
    if nibble::supported(&ctx) {
        nibble::record(&ctx, &mut b, nibble_buf.clone()).unwrap();
    }
    submit(ctx.queue(), b);
    let mut want = words.clone();
    want.sort_unstable();
    assert!(*keys.read().unwrap() == want[..]);
    if nibble::supported(&ctx) {
        let got = nibble_buf.read().unwrap();
        for (w, g) in nibbles.iter().zip(got.iter()) {
            let mut d: Vec<u64> = (0..16).map(|k| (w >> (4 * k)) & 15).collect();
            d.sort_unstable();
            let sorted = d.iter().enumerate().fold(0, |a, (k, x)| a | x << (4 * k));
            assert_eq!(*g, sorted);
        }
    }
}

/// The example application's own compute pass (shaders/app_depth_pairs.comp) as the caller
/// builds it: keys, values and a count only the GPU knows.
fn app_pipeline(device: &Arc<Device>) -> Arc<ComputePipeline> {
    let bytes = include_bytes!("../shaders/spv/app_depth_pairs.spv");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // SAFETY: SPIR-V compiled by glslc from shaders/app_depth_pairs.comp (checked by
    // tests/gpu_shaders.rs); vulkano validates the module's structure.
    let module =
        unsafe { ShaderModule::new(device.clone(), ShaderModuleCreateInfo::new(&words)) }.unwrap();
    let stage = PipelineShaderStageCreateInfo::new(module.entry_point("main").unwrap());
    let layout = PipelineLayout::new(
        device.clone(),
        PipelineDescriptorSetLayoutCreateInfo::from_stages([&stage])
            .into_pipeline_layout_create_info(device.clone())
            .unwrap(),
    )
    .unwrap();
    ComputePipeline::new(
        device.clone(),
        None,
        ComputePipelineCreateInfo::stage_layout(stage, layout),
    )
    .unwrap()
}

#[test]
fn a_count_written_by_the_callers_dispatch_is_sorted_by_16_bits() {
    // In one workgroup, and by passes. The count buffer has storage usage only, as a
    // culling pass's output has: the sort reads it through a storage binding.
    let [shipped, one] = configs();
    count_from_the_callers_dispatch(3000, one);
    count_from_the_callers_dispatch(50_000, shipped);
}

fn count_from_the_callers_dispatch(splats: u32, config: RadixConfig) {
    let Some(queue) = common::gpu_or_skip(own_queue(Version::V1_3), "a Vulkan device") else {
        return;
    };
    let device = queue.device().clone();
    // The caller's own allocators, not the context's.
    let memory = Arc::new(StandardMemoryAllocator::new_default(device.clone()));
    let sets = Arc::new(StandardDescriptorSetAllocator::new(
        device.clone(),
        Default::default(),
    ));
    let commands = Arc::new(StandardCommandBufferAllocator::new(
        device.clone(),
        Default::default(),
    ));
    let ctx = GpuContext::from_queue(queue.clone()).unwrap();
    let sorter = RadixSorter::with_config(ctx, config).unwrap();
    let cap = u64::from(splats) + 100;
    let new_buffer = |len: u64| -> Subbuffer<[u32]> {
        Buffer::new_slice(
            memory.clone(),
            BufferCreateInfo {
                usage: BufferUsage::STORAGE_BUFFER
                    | BufferUsage::TRANSFER_SRC
                    | BufferUsage::TRANSFER_DST,
                ..Default::default()
            },
            AllocationCreateInfo {
                memory_type_filter: MemoryTypeFilter::PREFER_DEVICE
                    | MemoryTypeFilter::HOST_RANDOM_ACCESS,
                ..Default::default()
            },
            len,
        )
        .unwrap()
    };
    let (keys, values) = (new_buffer(cap), new_buffer(cap));
    let count: Subbuffer<[u32]> = Buffer::from_iter(
        memory.clone(),
        BufferCreateInfo {
            usage: BufferUsage::STORAGE_BUFFER,
            ..Default::default()
        },
        AllocationCreateInfo {
            memory_type_filter: MemoryTypeFilter::PREFER_DEVICE
                | MemoryTypeFilter::HOST_RANDOM_ACCESS,
            ..Default::default()
        },
        [0u32],
    )
    .unwrap();
    let (keys_before, values_before) = (new_buffer(cap), new_buffer(cap));
    let scratch = sorter.new_scratch(KeyWidth::W32, true, cap).unwrap();
    let pipeline = app_pipeline(&device);
    let set = DescriptorSet::new(
        sets,
        pipeline.layout().set_layouts()[0].clone(),
        [
            WriteDescriptorSet::buffer(0, keys.clone()),
            WriteDescriptorSet::buffer(1, values.clone()),
            WriteDescriptorSet::buffer(2, count.clone()),
        ],
        [],
    )
    .unwrap();
    let mut b = AutoCommandBufferBuilder::primary(
        commands,
        queue.queue_family_index(),
        CommandBufferUsage::OneTimeSubmit,
    )
    .unwrap();
    b.fill_buffer(keys.clone(), 0xDEAD_BEEF).unwrap();
    b.bind_pipeline_compute(pipeline.clone())
        .unwrap()
        .bind_descriptor_sets(
            PipelineBindPoint::Compute,
            pipeline.layout().clone(),
            0,
            set,
        )
        .unwrap()
        .push_constants(pipeline.layout().clone(), 0, [splats, 12345u32])
        .unwrap();
    // SAFETY: the shader writes keys and values below the count it appends to, which stays
    // below `splats` <= the buffers' length.
    unsafe { b.dispatch([splats.div_ceil(64), 1, 1]) }.unwrap();
    // The input as the sort sees it (the append order is the GPU's), to check stability.
    b.copy_buffer(CopyBufferInfo::buffers(keys.clone(), keys_before.clone()))
        .unwrap()
        .copy_buffer(CopyBufferInfo::buffers(
            values.clone(),
            values_before.clone(),
        ))
        .unwrap();
    let job = SortJob {
        keys: keys.clone(),
        values: Some(values.clone()),
        width: KeyWidth::W32,
        map: KeyMap::Unsigned,
        count: Count::Buffer(count.clone().index(0)),
        key_bits: Some(16),
    };
    sorter.record(&mut b, &job, &scratch).unwrap();
    submit(&queue, b);
    let n = count.read().unwrap()[0] as usize;
    assert!(n > 0 && n < splats as usize, "count {n}");
    let before_k = keys_before.read().unwrap();
    let before_v = values_before.read().unwrap();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| before_k[i] & 0xFFFF);
    let got_k = keys.read().unwrap();
    let got_v = values.read().unwrap();
    for (at, &i) in order.iter().enumerate() {
        assert_eq!(
            (got_k[at], got_v[at]),
            (before_k[i], before_v[i]),
            "at {at}"
        );
    }
    assert!(
        got_k[n..].iter().all(|&k| k == 0xDEAD_BEEF),
        "past the count"
    );
}

#[test]
fn the_radix_sort_runs_at_every_subgroup_size_offered() {
    let Some(ctx) = own_context() else { return };
    let props = ctx.device().physical_device().properties();
    let (min, max) = (
        props.min_subgroup_size.unwrap_or(0),
        props.max_subgroup_size.unwrap_or(0),
    );
    eprintln!(
        "subgroup size {:?}, offered {min}..={max}",
        props.subgroup_size
    );
    // The sort's pipelines take the driver's choice within [min, max]; the sorter sizes its
    // shared memory for the smallest and its ballots for the largest, so sorting correctly
    // on this device covers every size the driver may pick.
    for config in configs() {
        let sorter = RadixSorter::with_config(ctx.clone(), config).unwrap();
        for width in [KeyWidth::W32, KeyWidth::W64] {
            check_pairs(&sorter, width, KeyMap::Unsigned, None, 20_000, 20_000);
        }
        // By the short path where the sorter takes it (the split's sample and splitters).
        check_pairs(&sorter, KeyWidth::W32, KeyMap::Float, None, 9_000, 9_000);
    }
}
