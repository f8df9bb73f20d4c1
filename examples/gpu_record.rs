//! Sorting data that already lives in your own vulkano buffers: record the sorts into your
//! own command buffer, submit it yourself, no round trip through host slices.
//!
//! ```text
//! cargo run --release --example gpu_record
//! ```
//!
//! Without a Vulkan device it says so and exits successfully, unless
//! `SORTNET_REQUIRE_GPU=1` is set (as in CI), where that is an error.

use sortnet::gpu::bitonic::BitonicSorter;
use sortnet::gpu::context::context;
use sortnet::gpu::radix::{Count, RadixSorter, SortJob};
// The vulkano version sortnet is built with, so that the buffers' types match.
use sortnet::gpu::vulkano::buffer::{Buffer, BufferCreateInfo, BufferUsage, Subbuffer};
use sortnet::gpu::vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter};
use sortnet::{KeyMap, KeyWidth};

/// A storage buffer of the caller's, filled from `data` and readable from the host after.
fn my_buffer(data: impl ExactSizeIterator<Item = u32>) -> Subbuffer<[u32]> {
    let ctx = context().expect("checked in main");
    Buffer::from_iter(
        ctx.memory_allocator().clone(),
        BufferCreateInfo {
            usage: BufferUsage::STORAGE_BUFFER,
            ..Default::default()
        },
        AllocationCreateInfo {
            memory_type_filter: MemoryTypeFilter::PREFER_DEVICE
                | MemoryTypeFilter::HOST_RANDOM_ACCESS,
            ..Default::default()
        },
        data,
    )
    .expect("allocating a buffer")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(ctx) = context() else {
        if std::env::var("SORTNET_REQUIRE_GPU").is_ok_and(|v| v == "1") {
            return Err("SORTNET_REQUIRE_GPU=1 but no Vulkan device is usable".into());
        }
        println!("no Vulkan device here: nothing to record");
        return Ok(());
    };
    println!("device: {}", ctx.status());
    let n: u32 = 100_000;

    // f32 keys (as their bits) with u32 values in the caller's buffers, sorted by the radix
    // sorter: stable, values follow their keys.
    let floats = (0..n).map(|i| (i.wrapping_mul(2_654_435_761) % 1000) as f32 - 500.25);
    let keys = my_buffer(floats.map(f32::to_bits));
    let values = my_buffer(0..n);
    let radix = RadixSorter::new(ctx.clone())?;
    println!(
        "radix scratch for {n} f32 pairs: {} bytes",
        radix.scratch_bytes(KeyWidth::W32, true, u64::from(n))?
    );
    // Scratch for sorts of up to n pairs: allocate it once and reuse it for every sort.
    let scratch = radix.new_scratch(KeyWidth::W32, true, u64::from(n))?;
    let job = SortJob {
        keys: keys.clone(),
        values: Some(values.clone()),
        width: KeyWidth::W32,
        map: KeyMap::Float,
        count: Count::Known(n),
        key_bits: None,
    };

    // u32 keys sorted in place by the bitonic sorter, in the same command buffer (no
    // scratch; not stable, which keys alone do not need).
    let other = my_buffer((0..n).map(|i| i.wrapping_mul(0x9E37_79B9)));
    let bitonic = BitonicSorter::new(ctx.clone());
    println!(
        "bitonic scratch: {} bytes",
        BitonicSorter::scratch_bytes(u64::from(n))
    );

    let mut builder = ctx.command_builder()?;
    radix.record(&mut builder, &job, &scratch)?;
    bitonic.record(&mut builder, other.clone())?;
    ctx.submit_and_wait(builder)?;

    let keys = keys.read()?;
    let values = values.read()?;
    let sorted = keys
        .windows(2)
        .all(|w| f32::from_bits(w[0]) <= f32::from_bits(w[1]));
    // Stable: among equal keys the original indices (the values) stay ascending, and each
    // value still points at its key.
    let stable = (1..keys.len()).all(|i| keys[i - 1] != keys[i] || values[i - 1] < values[i]);
    let paired = (0..keys.len()).all(|i| {
        f32::from_bits(keys[i]) == (values[i].wrapping_mul(2_654_435_761) % 1000) as f32 - 500.25
    });
    let other_sorted = other.read()?.windows(2).all(|w| w[0] <= w[1]);
    println!("radix pairs sorted: {sorted}, stable: {stable}, values follow keys: {paired}");
    println!("bitonic keys sorted: {other_sorted}");
    if sorted && stable && paired && other_sorted {
        Ok(())
    } else {
        Err("a recorded sort gave a wrong result".into())
    }
}
