//! GPU tests, run for real on lavapipe in CI. Without a Vulkan device they skip, unless
//! `SORTNET_REQUIRE_GPU=1`, which turns a missing device into a failure.
#![cfg(feature = "gpu")]

use std::sync::Arc;

use sortnet::gpu::context::{context, GpuContext, Memory};
use vulkano::command_buffer::CopyBufferInfo;

/// The shared context, or `None` (skip) when there is no Vulkan device and the environment
/// does not require one.
fn gpu() -> Option<Arc<GpuContext>> {
    let ctx = context();
    let required = std::env::var("SORTNET_REQUIRE_GPU").is_ok_and(|v| !v.is_empty() && v != "0");
    if ctx.is_none() {
        assert!(
            !required,
            "SORTNET_REQUIRE_GPU=1 but no Vulkan device is usable"
        );
        eprintln!("no Vulkan device: skipping");
    }
    ctx
}

#[test]
fn context_reads_sane_limits() {
    let Some(ctx) = gpu() else { return };
    let l = ctx.limits();
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
    let staging = ctx.buffer(Memory::Staging, bytes).unwrap();
    let src = ctx.buffer(Memory::Device, bytes).unwrap();
    let dst = ctx.buffer(Memory::Device, bytes).unwrap();
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
    sortnet::gpu::copy::record_copy(&ctx, &mut b, src.slice(n), dst.slice(n)).unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        dst.slice::<u32>(n),
        staging.slice::<u32>(n),
    ))
    .unwrap();
    ctx.submit_and_wait(b).unwrap();
    assert_eq!(&staging.slice::<u32>(n).read().unwrap()[..], &data[..]);
}

#[test]
fn pooled_buffers_are_reused() {
    let Some(ctx) = gpu() else { return };
    // An odd size class no other test uses, so concurrent tests do not take it.
    let bytes = (3 << 20) + 12345;
    let first = ctx.buffer(Memory::Staging, bytes).unwrap().bytes();
    let again = ctx.buffer(Memory::Staging, bytes).unwrap();
    assert!(Arc::ptr_eq(again.bytes().buffer(), first.buffer()));
    assert!(again.bytes().size() >= bytes);
}
