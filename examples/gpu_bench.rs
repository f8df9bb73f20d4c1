//! GPU benchmark for BENCHMARKS.md (vulkan-bitonic and GPU nibbles): kernels timed on the GPU with timestamp queries
//! (data already on the GPU), and end to end from host slices (wall clock, transfers
//! included) against the bound set by a plain upload + download of the same bytes.
//!
//! `cargo run --release --example gpu_bench -- --full` runs the sweep of BENCHMARKS.md (vulkan-bitonic and GPU nibbles)
//! (2^16..2^26 keys, 2^28 words: needs a GPU with 4 GiB storage buffers); without `--full`
//! it runs small sizes only (CI runs it so on lavapipe). Without a Vulkan device it says so
//! and exits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use sortnet::backend;
use sortnet::gpu::bitonic::BitonicSorter;
use sortnet::gpu::context::{context, GpuContext, Memory};
use sortnet::gpu::{copy, nibble};
use vulkano::buffer::{BufferMemory, Subbuffer};
use vulkano::command_buffer::{AutoCommandBufferBuilder, CopyBufferInfo, PrimaryAutoCommandBuffer};
use vulkano::query::{QueryPool, QueryPoolCreateInfo, QueryResultFlags, QueryType};
use vulkano::sync::PipelineStage;

type Builder = AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>;

fn random_u64(n: usize, seed: u64) -> Vec<u64> {
    (0..n)
        .into_par_iter()
        .map(|i| {
            // splitmix64 of (seed, i): independent per element, so it fills in parallel.
            let mut z = (i as u64 ^ seed.rotate_left(32)).wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

fn device_buffer<T: vulkano::buffer::BufferContents>(
    ctx: &Arc<GpuContext>,
    len: u64,
) -> Subbuffer<[T]> {
    let bytes = len * std::mem::size_of::<T>() as u64;
    ctx.buffer(Memory::Device, bytes)
        .expect("device buffer")
        .detach()
        .slice(0..bytes)
        .reinterpret::<[T]>()
}

/// Uploads `data` into a new device buffer.
fn upload<T: vulkano::buffer::BufferContents + bytemuck::Pod>(
    ctx: &Arc<GpuContext>,
    data: &[T],
) -> Subbuffer<[T]> {
    let n = data.len() as u64;
    let dev = device_buffer::<T>(ctx, n);
    let staging = ctx.stage_in(data).unwrap();
    let mut b = ctx.command_builder().unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(staging.slice::<T>(n), dev.clone()))
        .unwrap();
    ctx.submit_and_wait(b).unwrap();
    dev
}

/// Records about 800 ms of copy kernels (1 GiB each) on a hardware GPU, so that the timed
/// work after it in the same command buffer runs at full clock: the H200's SM clock drops to
/// 345-975 MHz within a fraction of a second of idling (while the host prepares or checks
/// data) and is slow to come back (run of 08:53 UTC, nvidia-smi log: a 2^24 bitonic sort
/// took 3.24 ms at 1980 MHz and 5.3-6.9 ms after 500 ms of idling, 7 sorts in a row). 300 ms
/// were not always enough after a second or two of idling (BENCHMARKS.md (GPU host), run 3).
fn warm_up(ctx: &Arc<GpuContext>, b: &mut Builder) {
    warm_up_for(ctx, b, 800);
}

/// [`warm_up`] for about `ms` milliseconds.
fn warm_up_for(ctx: &Arc<GpuContext>, b: &mut Builder, ms: u64) {
    type Pair = (Subbuffer<[u32]>, Subbuffer<[u32]>);
    static BUFFERS: std::sync::OnceLock<Option<Pair>> = std::sync::OnceLock::new();
    let buffers = BUFFERS.get_or_init(|| {
        if ctx.is_software() || std::env::var_os("GPU_BENCH_NO_WARM_UP").is_some() {
            return None;
        }
        let len = (ctx.max_buffer_bytes().min(1 << 30) / 4).max(4);
        Some((
            device_buffer::<u32>(ctx, len),
            device_buffer::<u32>(ctx, len),
        ))
    });
    if let Some((src, dst)) = buffers {
        // 4.2 TB/s moves 1 GiB (read + write: 2 GiB) in about 0.5 ms: 1600 of them.
        let reps = (ms << 30) / (src.len() * 4 * 2 * 2);
        for _ in 0..reps.max(1) {
            copy::record_copy(ctx, b, src.clone(), dst.clone()).unwrap();
        }
    }
}

/// Runs `reps` repetitions of `prepare` (untimed) then `work` (between two timestamps) in one
/// command buffer, after [`warm_up`]; returns the GPU times of `work`, sorted.
fn gpu_times(
    ctx: &Arc<GpuContext>,
    reps: u32,
    mut prepare: impl FnMut(&mut Builder),
    mut work: impl FnMut(&mut Builder),
) -> Vec<Duration> {
    let period = ctx
        .limits()
        .timestamp_period_ns
        .expect("timestamps on the compute queue");
    let pool = QueryPool::new(
        ctx.device().clone(),
        QueryPoolCreateInfo {
            query_count: 2 * reps,
            ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
        },
    )
    .unwrap();
    let mut b = ctx.command_builder().unwrap();
    // SAFETY: the pool is new and used by this command buffer only.
    unsafe { b.reset_query_pool(pool.clone(), 0..2 * reps) }.unwrap();
    warm_up(ctx, &mut b);
    for r in 0..reps {
        prepare(&mut b);
        // SAFETY: each query is written once after the reset above.
        unsafe { b.write_timestamp(pool.clone(), 2 * r, PipelineStage::AllCommands) }.unwrap();
        work(&mut b);
        // SAFETY: as above.
        unsafe { b.write_timestamp(pool.clone(), 2 * r + 1, PipelineStage::AllCommands) }.unwrap();
    }
    ctx.submit_and_wait(b).unwrap();
    let mut ticks = vec![0u64; 2 * reps as usize];
    pool.get_results(0..2 * reps, &mut ticks, QueryResultFlags::WAIT)
        .unwrap();
    let mut times: Vec<Duration> = ticks
        .chunks(2)
        .map(|t| Duration::from_nanos((t[1].wrapping_sub(t[0]) as f64 * period) as u64))
        .collect();
    times.sort();
    times
}

fn median(t: &[Duration]) -> Duration {
    t[t.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Best of `reps` wall-clock runs of `f` after one warm-up; `reset` runs untimed before each.
fn wall_best<S>(reps: u32, state: &mut S, reset: impl Fn(&mut S), f: impl Fn(&mut S)) -> Duration {
    reset(state);
    f(state);
    (0..reps)
        .map(|_| {
            reset(state);
            let t = Instant::now();
            f(state);
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Records `body` into one command buffer (after [`warm_up`] when `warm`), giving it a
/// `stamp` callback that writes the next timestamp; returns the GPU milliseconds between
/// consecutive stamps.
fn stamped(
    ctx: &Arc<GpuContext>,
    warm: bool,
    max_stamps: u32,
    body: impl FnOnce(&mut Builder, &mut dyn FnMut(&mut Builder)),
) -> Vec<f64> {
    let period = ctx.limits().timestamp_period_ns.unwrap_or(1.0);
    let pool = QueryPool::new(
        ctx.device().clone(),
        QueryPoolCreateInfo {
            query_count: max_stamps,
            ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
        },
    )
    .unwrap();
    let mut b = ctx.command_builder().unwrap();
    // SAFETY: the pool is new and used by this command buffer only.
    unsafe { b.reset_query_pool(pool.clone(), 0..max_stamps) }.unwrap();
    if warm {
        warm_up(ctx, &mut b);
    }
    let mut q = 0;
    body(&mut b, &mut |b: &mut Builder| {
        // SAFETY: each query of the new pool is written once (q < max_stamps).
        unsafe { b.write_timestamp(pool.clone(), q, PipelineStage::AllCommands) }.unwrap();
        q += 1;
    });
    ctx.submit_and_wait(b).unwrap();
    let mut ticks = vec![0u64; q as usize];
    pool.get_results(0..q, &mut ticks, QueryResultFlags::WAIT)
        .unwrap();
    ticks
        .windows(2)
        .map(|t| t[1].wrapping_sub(t[0]) as f64 * period / 1e6)
        .collect()
}

fn memory_type(b: &Subbuffer<[u8]>) -> i64 {
    match b.buffer().memory() {
        BufferMemory::Normal(m) => m.device_memory().memory_type_index() as i64,
        _ => -1,
    }
}

fn fmt_ms(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.4}"))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Bug hunt of issue 4: why the sort inside the host path took 4.5x its data-on-GPU time.
/// Memory types of the pooled buffers, then the same sort three times in the host path's
/// command buffer, right away and after the GPU idled, and on data already on the GPU.
fn diag(ctx: &Arc<GpuContext>, sorter: &BitonicSorter, sizes: &[u32]) {
    println!("\n## diag: memory types");
    let mp = ctx.device().physical_device().memory_properties();
    for (i, h) in mp.memory_heaps.iter().enumerate() {
        println!("heap {i}: {} MiB {:?}", h.size >> 20, h.flags);
    }
    for (i, t) in mp.memory_types.iter().enumerate() {
        println!("type {i}: heap {} {:?}", t.heap_index, t.property_flags);
    }
    for bytes in [4u64 << 20, 64 << 20, 256 << 20] {
        let d = ctx.buffer(Memory::Device, bytes).unwrap();
        let s = ctx.buffer(Memory::Staging, bytes).unwrap();
        println!(
            "pooled {} MiB: Device -> type {}, Staging -> type {}",
            bytes >> 20,
            memory_type(&d.bytes()),
            memory_type(&s.bytes())
        );
    }
    println!(
        "\n## diag: u32 bitonic sort, GPU ms (upload / sort / sort again / sort again / download)"
    );
    for &k in sizes {
        let n = 1u64 << k;
        let data: Vec<u32> = random_u64(n as usize, 31)
            .into_iter()
            .map(|x| x as u32)
            .collect();
        for idle_ms in [0u64, 500, 0] {
            std::thread::sleep(Duration::from_millis(idle_ms));
            let staging = ctx.stage_in(&data).unwrap();
            let dev = ctx.buffer(Memory::Device, n * 4).unwrap();
            let t = stamped(ctx, false, 8, |b, stamp| {
                stamp(b);
                b.copy_buffer(CopyBufferInfo::buffers(
                    staging.slice::<u32>(n),
                    dev.slice::<u32>(n),
                ))
                .unwrap();
                stamp(b);
                for _ in 0..3 {
                    sorter.record(b, dev.slice::<u32>(n)).unwrap();
                    stamp(b);
                }
                b.copy_buffer(CopyBufferInfo::buffers(
                    dev.slice::<u32>(n),
                    staging.slice::<u32>(n),
                ))
                .unwrap();
                stamp(b);
            });
            println!(
                "host path 2^{k}, after {idle_ms} ms idle (device buffer type {}): {}",
                memory_type(&dev.bytes()),
                fmt_ms(&t)
            );
        }
        // Data already on the GPU: one sort after idling, then seven in a row.
        let work = upload(ctx, &data);
        std::thread::sleep(Duration::from_millis(500));
        let t = stamped(ctx, false, 9, |b, stamp| {
            stamp(b);
            for _ in 0..7 {
                sorter.record(b, work.clone()).unwrap();
                stamp(b);
            }
        });
        println!(
            "on the GPU 2^{k}, after 500 ms idle, 7 sorts in a row: {}",
            fmt_ms(&t)
        );
        // The host path's sort after a copy kernel has kept the GPU busy for a while.
        let staging = ctx.stage_in(&data).unwrap();
        let dev = ctx.buffer(Memory::Device, n * 4).unwrap();
        let t = stamped(ctx, true, 8, |b, stamp| {
            stamp(b);
            b.copy_buffer(CopyBufferInfo::buffers(
                staging.slice::<u32>(n),
                dev.slice::<u32>(n),
            ))
            .unwrap();
            stamp(b);
            sorter.record(b, dev.slice::<u32>(n)).unwrap();
            stamp(b);
            b.copy_buffer(CopyBufferInfo::buffers(
                dev.slice::<u32>(n),
                staging.slice::<u32>(n),
            ))
            .unwrap();
            stamp(b);
        });
        println!(
            "host path 2^{k} after 800 ms of copy kernels (upload / sort / download): {}",
            fmt_ms(&t)
        );
    }
}

/// Host-side rates that bound the host-slice path: memcpy into / out of pooled staging
/// memory (one thread and all threads), and the GPU's copies between staging and device
/// memory (timestamps), for one buffer of `bytes`.
fn transfer_rates(ctx: &Arc<GpuContext>, bytes: u64) {
    println!("\n## transfer rates, {} MiB", bytes >> 20);
    for (i, f) in ctx
        .device()
        .physical_device()
        .queue_family_properties()
        .iter()
        .enumerate()
    {
        println!(
            "queue family {i}: {} queues {:?}",
            f.queue_count, f.queue_flags
        );
    }
    let n = bytes / 8;
    let mut host = random_u64(n as usize, 1);
    let staging = ctx.buffer(Memory::Staging, bytes).unwrap();
    let dev = ctx.buffer(Memory::Device, bytes).unwrap();
    let gbs = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
    let view = staging.slice::<u64>(n);
    let one_in = wall_best(
        3,
        &mut (),
        |_| {},
        |_| {
            view.write().unwrap().copy_from_slice(&host);
        },
    );
    let par_in = wall_best(
        3,
        &mut (),
        |_| {},
        |_| {
            view.write()
                .unwrap()
                .par_chunks_mut(1 << 17)
                .zip(host.par_chunks(1 << 17))
                .for_each(|(d, s)| d.copy_from_slice(s));
        },
    );
    let one_out = wall_best(
        3,
        &mut host,
        |_| {},
        |h| {
            h.copy_from_slice(&view.read().unwrap());
        },
    );
    let par_out = wall_best(
        3,
        &mut host,
        |_| {},
        |h| {
            let g = view.read().unwrap();
            h.par_chunks_mut(1 << 17)
                .zip(g.par_chunks(1 << 17))
                .for_each(|(d, s)| d.copy_from_slice(s));
        },
    );
    println!(
        "memcpy into staging: 1 thread {:.1} GB/s, all threads {:.1} GB/s; out of staging: {:.1} / {:.1} GB/s",
        gbs(one_in),
        gbs(par_in),
        gbs(one_out),
        gbs(par_out)
    );
    for _ in 0..2 {
        let t = stamped(ctx, false, 4, |b, stamp| {
            stamp(b);
            b.copy_buffer(CopyBufferInfo::buffers(view.clone(), dev.slice::<u64>(n)))
                .unwrap();
            stamp(b);
            b.copy_buffer(CopyBufferInfo::buffers(dev.slice::<u64>(n), view.clone()))
                .unwrap();
            stamp(b);
        });
        println!(
            "GPU copy staging -> device {:.3} ms ({:.1} GB/s), device -> staging {:.3} ms ({:.1} GB/s)",
            t[0],
            bytes as f64 / t[0] / 1e6,
            t[1],
            bytes as f64 / t[1] / 1e6
        );
    }
}

/// The GPU's PCIe copy rates for `bytes` (pooled staging <-> device, timestamps, best of 3):
/// (upload ms, download ms).
fn dma_ms(ctx: &Arc<GpuContext>, bytes: u64) -> (f64, f64) {
    let staging = ctx.buffer(Memory::Staging, bytes).unwrap();
    let dev = ctx.buffer(Memory::Device, bytes).unwrap();
    let (mut up, mut down) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let t = stamped(ctx, false, 3, |b, stamp| {
            stamp(b);
            b.copy_buffer(CopyBufferInfo::buffers(staging.bytes(), dev.bytes()))
                .unwrap();
            stamp(b);
            b.copy_buffer(CopyBufferInfo::buffers(dev.bytes(), staging.bytes()))
                .unwrap();
            stamp(b);
        });
        up = up.min(t[0]);
        down = down.min(t[1]);
    }
    (up, down)
}

/// Submits [`warm_up`] alone and waits, so that what runs next starts at full clock.
fn warm(ctx: &Arc<GpuContext>) {
    let mut b = ctx.command_builder().unwrap();
    warm_up(ctx, &mut b);
    ctx.submit_and_wait(b).unwrap();
}

/// End to end from host slices: wall clock of `backend.sort(&mut vec)` (and nibbles),
/// against the bound set by the GPU's own PCIe copy rates for the same bytes
/// (bytes / upload rate + bytes / download rate, measured in the same run).
fn end_to_end(ctx: &Arc<GpuContext>, quick: bool) {
    println!("\n## End to end from host slices vs the PCIe bound (wall clock)");
    println!(
        "warm: best of 3, each right after 800 ms of GPU work; cold: one call after 500 ms idle"
    );
    println!("| workload | backend | n | MiB | up ms | down ms | bound ms | warm ms | bound / warm | cold ms | bound / cold |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    // `--e2e-sizes 24,26`: log2 sizes (default 2^20..2^28 with --full).
    let sizes: Vec<u32> = match std::env::args().skip_while(|a| a != "--e2e-sizes").nth(1) {
        Some(list) => list.split(',').map(|k| k.parse().unwrap()).collect(),
        None if quick => vec![16, 20],
        None => vec![20, 22, 24, 26, 28],
    };
    println!(
        "stream piece: {}, transfer queue: {}",
        std::env::var("SORTNET_GPU_STREAM_PIECE").unwrap_or_else(|_| "16m (default)".into()),
        ctx.has_transfer_queue()
    );
    // `reset` (untimed) restores the input, `f` sorts it.
    let measure = |reset: &mut dyn FnMut(), f: &mut dyn FnMut()| -> (f64, f64) {
        let mut best = f64::MAX;
        reset();
        f();
        for _ in 0..3 {
            reset();
            warm(ctx);
            let t = Instant::now();
            f();
            best = best.min(ms(t.elapsed()));
        }
        reset();
        std::thread::sleep(Duration::from_millis(500));
        let t = Instant::now();
        f();
        (best, ms(t.elapsed()))
    };
    // `--e2e-keys-only`: u32 keys on vulkan-radix (grouped and whole sort) and the streamed
    // copy alone; `--e2e-wide 26`: u64 and f32 keys too at these log2 sizes.
    let keys_only = std::env::args().any(|a| a == "--e2e-keys-only");
    let wide: Vec<u32> = match std::env::args().skip_while(|a| a != "--e2e-wide").nth(1) {
        Some(list) => list.split(',').map(|k| k.parse().unwrap()).collect(),
        None => Vec::new(),
    };
    for &k in &sizes {
        let n = 1usize << k;
        for (workload, name) in [
            ("u32 keys", GROUPED),
            ("u32 keys", WHOLE_SORT),
            ("u32 keys", FROM_HOST_BUFFER),
            ("u32 keys", "vulkan-bitonic"),
            ("u32 keys", "streamed copy, no sort"),
            ("u64 keys", GROUPED),
            ("u64 keys", WHOLE_SORT),
            ("f32 keys", GROUPED),
            ("f32 keys", WHOLE_SORT),
            ("nibbles", "vulkan-radix"),
            ("nibbles", FROM_HOST_BUFFER),
            ("nibbles", "streamed copy, no sort"),
        ] {
            let copy_only = name.starts_with("streamed");
            let whole = name == WHOLE_SORT;
            let pinned = name == FROM_HOST_BUFFER;
            let grouped = name == GROUPED;
            let nibbles = workload == "nibbles";
            let key_bytes = if workload == "u64 keys" { 8 } else { 4 };
            // `GPU_BENCH_E2E_ROWS=grouped,streamed`: only rows whose backend names one of these.
            let rows_wanted = std::env::var("GPU_BENCH_E2E_ROWS")
                .map_or(true, |rows| rows.split(',').any(|r| name.contains(r)));
            if !rows_wanted
                || (keys_only && (nibbles || name == "vulkan-bitonic"))
                || (workload != "u32 keys" && !nibbles && !wide.contains(&k))
            {
                continue;
            }
            let Some(b) = backend::by_name(if copy_only || whole || grouped || pinned {
                "vulkan-radix"
            } else {
                name
            }) else {
                continue;
            };
            if nibbles && !b.supports(sortnet::Workload::Nibbles) {
                continue;
            }
            let bytes = n as u64 * if nibbles { 8 } else { key_bytes };
            if bytes > ctx.max_buffer_bytes() {
                continue;
            }
            let (up, down) = dma_ms(ctx, bytes);
            ctx.trim_pool();
            let bound = up + down;
            let (warm_ms, cold_ms) = if nibbles {
                let pristine = random_u64(n, 13);
                let v = std::cell::RefCell::new(pristine.clone());
                if pinned {
                    let host = sortnet::gpu::HostBuffer::from_slice(&pristine).unwrap();
                    e2e_nibbles(b, &pristine, host, &measure)
                } else if copy_only {
                    let r = measure(&mut || {}, &mut || {
                        let mut v = v.borrow_mut();
                        if ctx.streams(bytes) {
                            ctx.stream_pieces(&mut v, |_, _| Ok(())).unwrap();
                        }
                    });
                    assert!(v.into_inner() == pristine);
                    r
                } else {
                    e2e_nibbles(b, &pristine, v.into_inner(), &measure)
                }
            } else if pinned {
                let pristine: Vec<u32> = random_u64(n, 11).into_iter().map(|x| x as u32).collect();
                let host = sortnet::gpu::HostBuffer::from_slice(&pristine).unwrap();
                e2e_keys(b, pristine, host, &measure)
            } else if copy_only {
                let pristine: Vec<u32> = random_u64(n, 11).into_iter().map(|x| x as u32).collect();
                let v = std::cell::RefCell::new(pristine.clone());
                let dev = ctx.buffer(Memory::Device, bytes).unwrap();
                let dk = dev.slice::<u32>(n as u64);
                let r = measure(&mut || {}, &mut || {
                    let mut v = v.borrow_mut();
                    if ctx.streams(bytes) {
                        ctx.round_trip_streamed(&mut v, &dk, |_| Ok(())).unwrap();
                    }
                });
                assert!(v.into_inner() == pristine);
                r
            } else {
                // The grouped path forced at every size, or the whole sort.
                std::env::set_var("SORTNET_GPU_KEYS_OVERLAP", if whole { "0" } else { "1" });
                let random = random_u64(n, 11);
                let r = match workload {
                    "u64 keys" => e2e_vec(b, random, &measure),
                    "f32 keys" => e2e_vec(
                        b,
                        random
                            .into_iter()
                            .map(|x| (x as i32 as f32) / 65536.0)
                            .collect(),
                        &measure,
                    ),
                    _ => e2e_vec(b, random.into_iter().map(|x| x as u32).collect(), &measure),
                };
                std::env::remove_var("SORTNET_GPU_KEYS_OVERLAP");
                r
            };
            let (w, c) = (warm_ms, cold_ms);
            println!(
                "| {workload} | {name} | 2^{k} | {} | {up:.3} | {down:.3} | {bound:.3} | {w:.3} | {:.0}% | {c:.3} | {:.0}% |",
                bytes >> 20,
                100.0 * bound / w,
                100.0 * bound / c
            );
            ctx.trim_pool();
        }
        // A CPU peer on the same host, same data size (u32 keys).
        if let Some(cpu) = backend::by_name("radix") {
            let pristine: Vec<u32> = random_u64(n, 11).into_iter().map(|x| x as u32).collect();
            let mut v = pristine.clone();
            let t = wall_best(
                3,
                &mut v,
                |v| v.copy_from_slice(&pristine),
                |v| cpu.sort(v).unwrap(),
            );
            println!(
                "| u32 keys | radix (CPU) | 2^{k} | | | | | {:.3} | | | |",
                ms(t)
            );
        }
    }
}

/// The row of the host path with the whole sort between upload and download.
const WHOLE_SORT: &str = "vulkan-radix, whole sort (SORTNET_GPU_KEYS_OVERLAP=0)";
/// The row of keys in a `HostBuffer`, which the GPU copies with no staging.
const FROM_HOST_BUFFER: &str = "vulkan-radix, from a HostBuffer (no staging)";
/// The row of the grouped host path (sort overlapping the download), at every size.
const GROUPED: &str = "vulkan-radix, grouped (SORTNET_GPU_KEYS_OVERLAP=1)";

/// Times `sort` after `reset`: (warm ms, cold ms).
type Measure<'a> = dyn Fn(&mut dyn FnMut(), &mut dyn FnMut()) -> (f64, f64) + 'a;

/// Warm and cold wall clock of `b.sort` on a `Vec` copy of `pristine`.
fn e2e_vec<K: sortnet::Key + PartialEq + std::fmt::Debug>(
    b: &'static dyn sortnet::SortBackend,
    pristine: Vec<K>,
    measure: &Measure<'_>,
) -> (f64, f64) {
    let keys = pristine.clone();
    e2e_keys(b, pristine, keys, measure)
}

/// Warm and cold wall clock of `b.sort` on `keys` (a `Vec` or a `HostBuffer`), reset to
/// `pristine` before each call and checked against std's order, timed by
/// `measure(reset, sort)`.
fn e2e_keys<K, W>(
    b: &'static dyn sortnet::SortBackend,
    pristine: Vec<K>,
    keys: W,
    measure: &Measure<'_>,
) -> (f64, f64)
where
    K: sortnet::Key + PartialEq + std::fmt::Debug,
    W: std::ops::DerefMut<Target = [K]>,
{
    let v = std::cell::RefCell::new(keys);
    let mut want = pristine.clone();
    want.par_sort_unstable_by(|x, y| x.key_cmp(y));
    let r = measure(
        &mut || v.borrow_mut().copy_from_slice(&pristine),
        &mut || b.sort(&mut v.borrow_mut()[..]).unwrap(),
    );
    assert!(v.into_inner()[..] == want[..]);
    r
}

/// The same for `b.sort_nibbles`, checked against the scalar reference.
fn e2e_nibbles<W: std::ops::DerefMut<Target = [u64]>>(
    b: &'static dyn sortnet::SortBackend,
    pristine: &[u64],
    words: W,
    measure: &Measure<'_>,
) -> (f64, f64) {
    let v = std::cell::RefCell::new(words);
    let r = measure(
        &mut || v.borrow_mut().copy_from_slice(pristine),
        &mut || b.sort_nibbles(&mut v.borrow_mut()[..]).unwrap(),
    );
    let v = v.into_inner();
    assert!(v
        .par_iter()
        .zip(pristine.par_iter())
        .all(|(&g, &w)| g == sortnet::nibble::reference(w)));
    r
}

/// Kernel configurations of the nibble sort against the copy kernel, each in one command
/// buffer: a short warm-up, `reps` copy kernels of the same bytes, then `reps` sorts (each
/// of a fresh copy of the input), each between two timestamps. Every result is checked
/// against the scalar reference on the host while the GPU runs the next configuration (two
/// staging buffers in turn), so the GPU never idles long enough to drop its clock.
fn tune_nibbles(ctx: &Arc<GpuContext>, quick: bool, reps: u32) {
    let k = if quick { 16 } else { 28 };
    let n = 1u64 << k;
    let words = Arc::new(random_u64(n as usize, 3));
    let pristine = upload(ctx, &words);
    let work = device_buffer::<u64>(ctx, n);
    let copy_src = pristine.clone().reinterpret::<[u32]>();
    let copy_dst = device_buffer::<u32>(ctx, 2 * n);
    let sms = ctx.device().physical_device().properties().shader_sm_count;
    println!(
        "\n## GPU nibble kernel configurations, 2^{k} words on the GPU vs the copy kernel in the same command buffer (median of {reps}; SMs: {sms:?})"
    );
    println!(
        "| variant | loads | workgroup | tiles/group | groups | ms | copy ms | vs copy | checked |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let kern = |variant: usize, loads: u32, workgroup: u32, tiles: u32| nibble::Kernel {
        workgroup,
        tiles,
        ..nibble::Kernel::new(variant, loads)
    };
    let f16 = nibble::VARIANT_F16;
    let rounds = |r: u32, k: nibble::Kernel| nibble::Kernel { rounds: r, ..k };
    let mut configs = vec![
        kern(f16, 2, 256, 1),
        kern(0, 4, 256, 1),
        kern(f16, 2, 256, 4),
        rounds(0, kern(f16, 2, 256, 1)),
        rounds(2, kern(nibble::VARIANT_F16_SAT, 1, 256, 4)),
    ];
    if !quick {
        // Run 1 (commit d3f116d) swept workgroups 64-1024, 1-4 loads with 1-64 tiles and
        // persistent grids (4-8 workgroups per multiprocessor): all within 61.5-64.4% of copy
        // at full clock. This sweep: the best of those, the network run 0 / 2 / 3 times (its
        // cost apart from the memory's), and comparators as saturated adds (FMA pipe).
        let (sat, mix) = (nibble::VARIANT_F16_SAT, nibble::VARIANT_F16_MIX);
        configs = vec![
            kern(f16, 2, 256, 1),
            kern(f16, 1, 256, 8),
            kern(f16, 2, 256, 16),
            rounds(0, kern(f16, 2, 256, 1)),
            rounds(2, kern(f16, 2, 256, 1)),
            rounds(0, kern(f16, 1, 256, 8)),
            rounds(2, kern(f16, 1, 256, 8)),
            rounds(3, kern(f16, 1, 256, 8)),
            kern(sat, 1, 256, 8),
            kern(sat, 2, 256, 16),
            kern(sat, 2, 256, 1),
            kern(sat, 4, 256, 1),
            rounds(2, kern(sat, 1, 256, 8)),
            kern(mix, 1, 256, 8),
            kern(mix, 2, 256, 16),
            kern(mix, 2, 256, 1),
            rounds(2, kern(mix, 1, 256, 8)),
            rounds(2, kern(nibble::VARIANT_F16_SUM, 1, 256, 8)),
            kern(nibble::VARIANT_F16_SUM, 1, 256, 8),
            kern(sat, 1, 128, 8),
            kern(mix, 1, 128, 8),
            // Again: drift within the run.
            kern(f16, 2, 256, 1),
            kern(f16, 1, 256, 8),
            kern(sat, 1, 256, 8),
            kern(mix, 1, 256, 8),
        ];
    }
    let staging = [
        ctx.buffer(Memory::Staging, n * 8).unwrap(),
        ctx.buffer(Memory::Staging, n * 8).unwrap(),
    ];
    let period = ctx.limits().timestamp_period_ns.expect("timestamps");
    // The sorted words, from the scalar reference, once: each check is then a comparison.
    let expected: Arc<Vec<u64>> = Arc::new(
        words
            .par_iter()
            .map(|&w| sortnet::nibble::reference(w))
            .collect(),
    );
    // Checks in flight, oldest first: (configuration, its row, its check); at most two,
    // the newest on staging buffer `launched % 2`.
    type Check = (usize, String, std::thread::JoinHandle<bool>);
    let mut pending: std::collections::VecDeque<Check> = Default::default();
    let finish = |(i, line, h): Check| {
        let ok = h.join().unwrap();
        println!("{line} {} |", if ok { "ok" } else { "WRONG" });
        assert!(ok, "configuration {i} sorted wrongly");
    };
    let mut launched = 0usize;
    let gb = (2 * n * 8) as f64 / 1e9;
    for (idx, kc) in configs.iter().copied().enumerate() {
        if !nibble::variant_supported(ctx, kc.variant) {
            println!("| {} | unsupported here | | | | | | | |", kc.variant);
            continue;
        }
        let slot = launched % 2;
        launched += 1;
        if pending.len() == 2 {
            finish(pending.pop_front().unwrap());
        }
        let pool = QueryPool::new(
            ctx.device().clone(),
            QueryPoolCreateInfo {
                query_count: 4 * reps,
                ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
            },
        )
        .unwrap();
        let mut b = ctx.command_builder().unwrap();
        // SAFETY: the pool is new and used by this command buffer only.
        unsafe { b.reset_query_pool(pool.clone(), 0..4 * reps) }.unwrap();
        warm_up_for(ctx, &mut b, if idx == 0 { 800 } else { 300 });
        let mut q = 0;
        let mut stamp = |b: &mut Builder| {
            // SAFETY: each query of the new pool is written once (q < 4 * reps).
            unsafe { b.write_timestamp(pool.clone(), q, PipelineStage::AllCommands) }.unwrap();
            q += 1;
        };
        for _ in 0..reps {
            stamp(&mut b);
            copy::record_copy(ctx, &mut b, copy_src.clone(), copy_dst.clone()).unwrap();
            stamp(&mut b);
        }
        for _ in 0..reps {
            b.copy_buffer(CopyBufferInfo::buffers(pristine.clone(), work.clone()))
                .unwrap();
            stamp(&mut b);
            nibble::record_kernel(ctx, &mut b, work.clone(), kc).unwrap();
            stamp(&mut b);
        }
        b.copy_buffer(CopyBufferInfo::buffers(
            work.clone(),
            staging[slot].slice::<u64>(n),
        ))
        .unwrap();
        ctx.submit_and_wait(b).unwrap();
        let mut ticks = vec![0u64; 4 * reps as usize];
        pool.get_results(0..4 * reps, &mut ticks, QueryResultFlags::WAIT)
            .unwrap();
        let mut t: Vec<f64> = ticks
            .chunks(2)
            .map(|t| t[1].wrapping_sub(t[0]) as f64 * period / 1e6)
            .collect();
        let (c, s) = t.split_at_mut(reps as usize);
        c.sort_by(f64::total_cmp);
        s.sort_by(f64::total_cmp);
        let (c, s) = (c[c.len() / 2], s[s.len() / 2]);
        let pairs = n / 2;
        let wg = u64::from(kc.workgroup.min(ctx.limits().max_workgroup_invocations));
        let groups = pairs
            .div_ceil(wg * u64::from(kc.loads))
            .div_ceil(u64::from(kc.tiles));
        let line = format!(
            "| {}{} | {} | {} | {} | {} | {:.4} | {:.4} | {:.1}% ({:.0} GB/s) |",
            kc.variant,
            match kc.rounds {
                1 => String::new(),
                r => format!(", network x{r}"),
            },
            kc.loads,
            kc.workgroup,
            kc.tiles,
            groups,
            s,
            c,
            100.0 * c / s,
            gb / s * 1e3
        );
        let view = staging[slot].slice::<u64>(n);
        // No network run (rounds 0): the words must come back as they went in.
        let want = if kc.rounds == 0 {
            words.clone()
        } else {
            expected.clone()
        };
        let check = std::thread::spawn(move || {
            let got = view.read().unwrap();
            got.par_iter().zip(want.par_iter()).all(|(g, w)| g == w)
        });
        pending.push_back((idx, line, check));
    }
    while let Some(c) = pending.pop_front() {
        finish(c);
    }
    drop(staging);
    drop((pristine, work, copy_src, copy_dst));
    ctx.trim_pool();
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--full");
    // `--only xfer,diag,bitonic,tuning,nibble,nibble-tune,e2e` runs those sections (default: all).
    let only: Option<Vec<String>> = std::env::args()
        .skip_while(|a| a != "--only")
        .nth(1)
        .map(|s| s.split(',').map(str::to_string).collect());
    let run = |section: &str| only.as_ref().is_none_or(|o| o.iter().any(|s| s == section));
    let Some(ctx) = context() else {
        println!("no Vulkan device: nothing to measure");
        return;
    };
    println!("device: {}", ctx.status());
    let sorter = BitonicSorter::new(ctx.clone());
    println!(
        "tiles: u32 {} u32+val {} u64 {}",
        sorter.tile_len(4, false),
        sorter.tile_len(4, true),
        sorter.tile_len(8, false)
    );
    let reps = 7;

    if run("xfer") {
        for k in if quick {
            &[24u32][..]
        } else {
            &[28u32, 30][..]
        } {
            transfer_rates(&ctx, 1 << k);
        }
        ctx.trim_pool();
    }

    if run("diag") {
        diag(&ctx, &sorter, if quick { &[14] } else { &[20, 24] });
    }

    if run("bitonic") {
        // 1. vulkan-bitonic, u32 keys on the GPU, timestamps.
        let sizes: Vec<u32> = if quick {
            (12..=16).collect()
        } else {
            (16..=26).collect()
        };
        println!(
            "\n## vulkan-bitonic, u32 keys already on the GPU (median of {reps}, GPU timestamps)"
        );
        println!("| n | ms | Mkeys/s |");
        println!("|---|---|---|");
        for &k in &sizes {
            let n = 1u64 << k;
            let data: Vec<u32> = random_u64(n as usize, k as u64)
                .into_iter()
                .map(|x| x as u32)
                .collect();
            let pristine = upload(&ctx, &data);
            let work = device_buffer::<u32>(&ctx, n);
            let t = gpu_times(
                &ctx,
                reps,
                |b| {
                    b.copy_buffer(CopyBufferInfo::buffers(pristine.clone(), work.clone()))
                        .unwrap();
                },
                |b| sorter.record(b, work.clone()).unwrap(),
            );
            // Check the last repetition's result.
            let staging = ctx.buffer(Memory::Staging, n * 4).unwrap();
            let mut b = ctx.command_builder().unwrap();
            b.copy_buffer(CopyBufferInfo::buffers(
                work.clone(),
                staging.slice::<u32>(n),
            ))
            .unwrap();
            ctx.submit_and_wait(b).unwrap();
            let mut want = data.clone();
            want.par_sort_unstable();
            assert!(
                staging.slice::<u32>(n).read().unwrap()[..] == want[..],
                "wrong sort at 2^{k}"
            );
            let m = median(&t);
            println!(
                "| 2^{k} | {:.4} | {:.0} |",
                ms(m),
                n as f64 / m.as_secs_f64() / 1e6
            );
        }
    }

    if run("tuning") {
        // 1t. Tuning: elements per thread in the local kernels x fused global steps.
        println!("\n## tuning (median of {reps} ms): per_thread fuse -> times");
        for (pt, fuse) in [(4, 4), (8, 4), (16, 4), (32, 4), (16, 3), (16, 5), (32, 5)] {
            let tuned = BitonicSorter::with_tuning(ctx.clone(), pt, fuse);
            let mut line = format!(
                "per_thread {pt} fuse {fuse} (tile {}):",
                tuned.tile_len(4, false)
            );
            for &k in if quick {
                &[14u32][..]
            } else {
                &[16u32, 20, 24][..]
            } {
                let n = 1u64 << k;
                let data: Vec<u32> = random_u64(n as usize, 21)
                    .into_iter()
                    .map(|x| x as u32)
                    .collect();
                let pristine = upload(&ctx, &data);
                let work = device_buffer::<u32>(&ctx, n);
                let t = gpu_times(
                    &ctx,
                    reps,
                    |b| {
                        b.copy_buffer(CopyBufferInfo::buffers(pristine.clone(), work.clone()))
                            .unwrap();
                    },
                    |b| tuned.record(b, work.clone()).unwrap(),
                );
                line += &format!(" 2^{k} {:.4}", ms(median(&t)));
            }
            println!("{line}");
        }
    }

    if run("profile") {
        // 1a. Where the time goes: a timestamp after every dispatch of one sort.
        for &k in if quick {
            &[15u32][..]
        } else {
            &[20u32, 24][..]
        } {
            let n = 1u64 << k;
            let data: Vec<u32> = random_u64(n as usize, 5)
                .into_iter()
                .map(|x| x as u32)
                .collect();
            let work = upload(&ctx, &data);
            let steps =
                sortnet::gpu::plan::bitonic_schedule(n, sorter.tile_len(4, false), 4).len() as u32;
            let period = ctx.limits().timestamp_period_ns.unwrap();
            let pool = QueryPool::new(
                ctx.device().clone(),
                QueryPoolCreateInfo {
                    query_count: steps + 1,
                    ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
                },
            )
            .unwrap();
            let mut b = ctx.command_builder().unwrap();
            let mut kinds = Vec::new();
            // SAFETY: a new pool, used by this command buffer only; each query written once.
            unsafe {
                b.reset_query_pool(pool.clone(), 0..steps + 1).unwrap();
                b.write_timestamp(pool.clone(), 0, PipelineStage::AllCommands)
                    .unwrap();
            }
            let mut q = 1;
            sorter
                .record_profiled(&mut b, work.clone(), &mut |b, step| {
                    kinds.push(step);
                    // SAFETY: as above.
                    unsafe { b.write_timestamp(pool.clone(), q, PipelineStage::AllCommands) }
                        .unwrap();
                    q += 1;
                })
                .unwrap();
            ctx.submit_and_wait(b).unwrap();
            let mut ticks = vec![0u64; steps as usize + 1];
            pool.get_results(0..steps + 1, &mut ticks, QueryResultFlags::WAIT)
                .unwrap();
            let (mut local_sort, mut local_merge, mut global, mut globals) = (0.0, 0.0, 0.0, 0);
            for (i, step) in kinds.iter().enumerate() {
                let t = (ticks[i + 1] - ticks[i]) as f64 * period / 1e6;
                match step {
                    sortnet::gpu::plan::BitonicStep::LocalSort { .. } => local_sort += t,
                    sortnet::gpu::plan::BitonicStep::LocalMerge => local_merge += t,
                    sortnet::gpu::plan::BitonicStep::Global { .. } => {
                        global += t;
                        globals += 1
                    }
                }
            }
            println!(
            "profile 2^{k}: local sort {local_sort:.4} ms, {} local merges {local_merge:.4} ms, {globals} global passes {global:.4} ms",
            kinds.len() - globals - 1
        );
        }
    }

    if run("variants") {
        // 1b. Pairs and u64 keys at a few sizes.
        println!("\n## vulkan-bitonic, other variants on the GPU (median of {reps})");
        println!("| variant | n | ms |");
        println!("|---|---|---|");
        for &k in if quick {
            &[14u32][..]
        } else {
            &[20u32, 24][..]
        } {
            let n = 1u64 << k;
            let data: Vec<u32> = random_u64(n as usize, 7)
                .into_iter()
                .map(|x| x as u32)
                .collect();
            let pk = upload(&ctx, &data);
            let wk = device_buffer::<u32>(&ctx, n);
            let wv = device_buffer::<u32>(&ctx, n);
            let t = gpu_times(
                &ctx,
                reps,
                |b| {
                    b.copy_buffer(CopyBufferInfo::buffers(pk.clone(), wk.clone()))
                        .unwrap();
                },
                |b| sorter.record_pairs(b, wk.clone(), wv.clone()).unwrap(),
            );
            println!("| u32 keys + u32 values | 2^{k} | {:.4} |", ms(median(&t)));
            let data64 = random_u64(n as usize, 9);
            let p64 = upload(&ctx, &data64);
            let w64 = device_buffer::<u64>(&ctx, n);
            let t = gpu_times(
                &ctx,
                reps,
                |b| {
                    b.copy_buffer(CopyBufferInfo::buffers(p64.clone(), w64.clone()))
                        .unwrap();
                },
                |b| sorter.record_u64(b, w64.clone()).unwrap(),
            );
            println!("| u64 keys | 2^{k} | {:.4} |", ms(median(&t)));
        }
    }

    if run("nibble") {
        // 2. GPU nibble sort vs a plain copy of the same bytes, same command buffer.
        let k = if quick { 20 } else { 28 };
        let n = 1u64 << k;
        println!("\n## GPU nibble sort, 2^{k} words on the GPU vs a plain copy (median of {reps})");
        let words = random_u64(n as usize, 3);
        let pristine = upload(&ctx, &words);
        let work = device_buffer::<u64>(&ctx, n);
        let copy_src = pristine.clone().reinterpret::<[u32]>();
        let copy_dst = device_buffer::<u32>(&ctx, 2 * n);
        let t_copy = gpu_times(
            &ctx,
            reps,
            |_| {},
            |b| copy::record_copy(&ctx, b, copy_src.clone(), copy_dst.clone()).unwrap(),
        );
        let gb = (2 * n * 8) as f64 / 1e9; // bytes read + written
        let c = median(&t_copy);
        println!("| kernel | ms | GB/s (read+write) | vs copy |");
        println!("|---|---|---|---|");
        println!(
            "| copy kernel | {:.3} | {:.0} | 100% |",
            ms(c),
            gb / c.as_secs_f64()
        );
        let staging = ctx.buffer(Memory::Staging, n * 8).unwrap();
        let names = [
            "counting, shared tables",
            "counting, byte table",
            "counting, half by shifts",
            "counting, all by shifts",
            "network, f16vec2",
            "network, u16vec2",
            "network, f16vec2, nibbles in bits 8-11",
            "network, f16vec2, bits 8-11, max = sum - min",
        ];
        let combos = [
            (0, 4),
            (1, 4),
            (2, 4),
            (3, 4),
            (4, 4),
            (4, 2),
            (4, 8),
            (5, 4),
            (5, 2),
            (5, 8),
            (6, 4),
            (6, 2),
            (6, 8),
            (7, 1),
            (7, 2),
            (7, 4),
            (4, 1),
            (0, 4),
            (4, 2),
            (7, 2),
        ];
        println!("(copy: the copy kernel timed right before this row)");
        for (variant, loads) in combos {
            if !nibble::variant_supported(&ctx, variant) {
                println!(
                    "| variant {variant} ({}) | unsupported here | | |",
                    names[variant]
                );
                continue;
            }
            let name = format!(
                "nibble sort, variant {variant} ({}), {loads} loads per thread",
                names[variant]
            );
            let c_now = median(&gpu_times(
                &ctx,
                reps,
                |_| {},
                |b| copy::record_copy(&ctx, b, copy_src.clone(), copy_dst.clone()).unwrap(),
            ));
            let t = gpu_times(
                &ctx,
                reps,
                |b| {
                    b.copy_buffer(CopyBufferInfo::buffers(pristine.clone(), work.clone()))
                        .unwrap();
                },
                |b| nibble::record_variant(&ctx, b, work.clone(), variant, loads).unwrap(),
            );
            let mut b = ctx.command_builder().unwrap();
            b.copy_buffer(CopyBufferInfo::buffers(
                work.clone(),
                staging.slice::<u64>(n),
            ))
            .unwrap();
            ctx.submit_and_wait(b).unwrap();
            {
                let view = staging.slice::<u64>(n);
                let got = view.read().unwrap();
                assert!(got
                    .par_iter()
                    .zip(words.par_iter())
                    .all(|(&g, &w)| g == sortnet::nibble::reference(w)));
            }
            let s = median(&t);
            println!(
                "| {name} | {:.3} | {:.0} | {:.1}% (copy {:.3} ms: {:.1}%) |",
                ms(s),
                gb / s.as_secs_f64(),
                100.0 * c.as_secs_f64() / s.as_secs_f64(),
                ms(c_now),
                100.0 * c_now.as_secs_f64() / s.as_secs_f64()
            );
        }
        drop(staging);
        drop((pristine, work, copy_src, copy_dst));
        ctx.trim_pool();
    }

    if run("nibble-tune") {
        tune_nibbles(&ctx, quick, reps);
    }

    if run("e2e") {
        end_to_end(&ctx, quick);
    }
}
