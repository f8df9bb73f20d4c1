//! GPU timing of `vulkan-radix`: data already on the GPU, each sort timed with timestamp
//! queries around the recorded sort alone, next to a plain device copy of the same bytes
//! (the bandwidth yardstick); then end-to-end times from host slices.
//!
//! ```text
//! cargo run --release --example gpu_radix_bench -- [log2 sizes..] [--reps N] [--only k32,k64,p32,p64] [--map unsigned|signed|float] [--bits B] [--host]
//! ```
//!
//! `--map` sorts the same random bits as signed or float keys (the first and last passes
//! then apply the key map). `--bits B` keeps the keys' low B bits only, so the passes above
//! are skipped (`--bits 24`: three passes of u32 keys, then the copy back).
//!
//! Prints one line per figure; BENCHMARKS.md (vulkan-radix) records runs on real GPUs.

use std::sync::Arc;
use std::time::Instant;

use sortnet::backend;
use sortnet::gpu::context::{GpuContext, Memory};
use sortnet::gpu::radix::{Count, RadixSorter, SortJob};
use sortnet::{KeyMap, KeyWidth};
use vulkano::command_buffer::CopyBufferInfo;
use vulkano::query::{QueryPool, QueryPoolCreateInfo, QueryResultFlags, QueryType};
use vulkano::sync::PipelineStage;

fn fill_random(words: &mut [u32], seed: u64) {
    let mut s = seed | 1;
    for w in words.iter_mut() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        *w = (s >> 16) as u32;
    }
}

struct Timer {
    pool: Arc<QueryPool>,
    period_ns: f64,
}

impl Timer {
    fn new(ctx: &GpuContext) -> Timer {
        let pool = QueryPool::new(
            ctx.device().clone(),
            QueryPoolCreateInfo {
                query_count: 2,
                ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
            },
        )
        .expect("timestamp query pool");
        let period_ns = ctx
            .limits()
            .timestamp_period_ns
            .expect("queue has timestamps");
        Timer { pool, period_ns }
    }

    /// GPU milliseconds of what `record` records, alone in its command buffer.
    fn time(
        &self,
        ctx: &GpuContext,
        record: impl FnOnce(
            &mut vulkano::command_buffer::AutoCommandBufferBuilder<
                vulkano::command_buffer::PrimaryAutoCommandBuffer,
            >,
        ),
    ) -> f64 {
        let mut b = ctx.command_builder().unwrap();
        // SAFETY: the pool's two queries are used only by this command buffer, which is
        // waited for before the next one is recorded; they are reset before being written.
        unsafe {
            b.reset_query_pool(self.pool.clone(), 0..2).unwrap();
            b.write_timestamp(self.pool.clone(), 0, PipelineStage::AllCommands)
                .unwrap();
        }
        record(&mut b);
        // SAFETY: as above.
        unsafe {
            b.write_timestamp(self.pool.clone(), 1, PipelineStage::AllCommands)
                .unwrap();
        }
        ctx.submit_and_wait(b).unwrap();
        let mut ticks = [0u64; 2];
        self.pool
            .get_results(0..2, &mut ticks, QueryResultFlags::WAIT)
            .unwrap();
        (ticks[1].wrapping_sub(ticks[0])) as f64 * self.period_ns / 1e6
    }
}

fn stats(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms[0], ms[ms.len() / 2])
}

fn main() {
    let mut sizes = Vec::new();
    let mut reps = 10usize;
    let mut only: Option<String> = None;
    let mut map = KeyMap::Unsigned;
    let mut host = false;
    let mut key_bits: Option<u32> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().unwrap().parse().unwrap(),
            "--only" => only = args.next(),
            "--map" => {
                map = match args.next().as_deref() {
                    Some("unsigned") => KeyMap::Unsigned,
                    Some("signed") => KeyMap::Signed,
                    Some("float") => KeyMap::Float,
                    other => panic!("--map takes unsigned, signed or float, not {other:?}"),
                }
            }
            "--host" => host = true,
            // Keys of only their low B bits: the passes above are skipped (an odd number of
            // passes left ends with the copy back).
            "--bits" => key_bits = Some(args.next().unwrap().parse::<u32>().unwrap()),
            s => sizes.push(s.parse::<u32>().expect("log2 size")),
        }
    }
    if sizes.is_empty() {
        sizes = vec![20, 22, 24, 26, 28];
    }
    let Some(sorter) = RadixSorter::get() else {
        diagnose();
        std::process::exit(2);
    };
    let ctx = sorter.context().clone();
    println!("device: {}", ctx.status());
    let timer = Timer::new(&ctx);

    for &log in &sizes {
        let n = 1u64 << log;
        // Copy yardstick: n u64 words (the largest buffer this size sorts), device to device.
        let copy_bytes = n * 8;
        let src = ctx.buffer(Memory::Device, copy_bytes).unwrap();
        let dst = ctx.buffer(Memory::Device, copy_bytes).unwrap();
        let mut copy_ms = Vec::new();
        for _ in 0..reps.max(3) {
            copy_ms.push(timer.time(&ctx, |b| {
                sortnet::gpu::copy::record_copy(
                    &ctx,
                    b,
                    src.slice::<u32>(copy_bytes / 4),
                    dst.slice::<u32>(copy_bytes / 4),
                )
                .unwrap();
            }));
        }
        drop((src, dst));
        let (copy_best, _) = stats(copy_ms);
        let copy_gbs = 2.0 * copy_bytes as f64 / (copy_best * 1e6);
        println!(
            "n=2^{log} copy {copy_bytes} bytes: {copy_best:.3} ms, {copy_gbs:.0} GB/s (read+write)"
        );

        for (name, width, pairs) in [
            ("k32", KeyWidth::W32, false),
            ("k64", KeyWidth::W64, false),
            ("p32", KeyWidth::W32, true),
            ("p64", KeyWidth::W64, true),
        ] {
            if let Some(o) = &only {
                if !o.split(',').any(|x| x == name) {
                    continue;
                }
            }
            let kw = if width == KeyWidth::W64 { 2 } else { 1 };
            let shape = sorter.tile_shape(width, pairs).unwrap();
            println!(
                "n=2^{log} {name} shape: {} x {}",
                shape.workgroup, shape.keys_per_invocation
            );
            let words = n * kw;
            let mut data = vec![0u32; words as usize];
            fill_random(&mut data, 0x1234_5678 + log as u64);
            if let Some(bits) = key_bits {
                let mask = if bits >= 64 {
                    !0u64
                } else {
                    (1u64 << bits) - 1
                };
                for (i, w) in data.iter_mut().enumerate() {
                    let word = if kw == 2 { i % 2 } else { 0 };
                    *w &= (mask >> (32 * word)) as u32;
                }
            }
            let values: Vec<u32> = (0..n as u32).collect();
            let staging = ctx.stage_in(&data).unwrap();
            let staging_v = ctx.stage_in(&values).unwrap();
            let pristine = ctx.buffer(Memory::Device, words * 4).unwrap();
            let keys = ctx.buffer(Memory::Device, words * 4).unwrap();
            let vals = ctx.buffer(Memory::Device, n * 4).unwrap();
            let mut b = ctx.command_builder().unwrap();
            b.copy_buffer(CopyBufferInfo::buffers(
                staging.slice::<u32>(words),
                pristine.slice::<u32>(words),
            ))
            .unwrap();
            ctx.submit_and_wait(b).unwrap();
            let scratch = sorter.new_scratch(width, pairs, n).unwrap();
            let job = SortJob {
                keys: keys.slice::<u32>(words),
                values: pairs.then(|| vals.slice::<u32>(n)),
                width,
                map,
                count: Count::Known(n as u32),
            };
            let mut ms = Vec::new();
            for rep in 0..reps + 1 {
                let mut b = ctx.command_builder().unwrap();
                b.copy_buffer(CopyBufferInfo::buffers(
                    pristine.slice::<u32>(words),
                    job.keys.clone(),
                ))
                .unwrap();
                if pairs {
                    b.copy_buffer(CopyBufferInfo::buffers(
                        staging_v.slice::<u32>(n),
                        vals.slice::<u32>(n),
                    ))
                    .unwrap();
                }
                ctx.submit_and_wait(b).unwrap();
                let t = timer.time(&ctx, |b| sorter.record(b, &job, &scratch).unwrap());
                if rep > 0 {
                    ms.push(t); // the first run builds pipelines and warms up
                }
            }
            // One profiled run: a timestamp after each phase.
            let phases = QueryPool::new(
                ctx.device().clone(),
                QueryPoolCreateInfo {
                    query_count: 40,
                    ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
                },
            )
            .unwrap();
            let mut b = ctx.command_builder().unwrap();
            b.copy_buffer(CopyBufferInfo::buffers(
                pristine.slice::<u32>(words),
                job.keys.clone(),
            ))
            .unwrap();
            if pairs {
                b.copy_buffer(CopyBufferInfo::buffers(
                    staging_v.slice::<u32>(n),
                    vals.slice::<u32>(n),
                ))
                .unwrap();
            }
            let mut names = vec!["start".to_string()];
            // SAFETY: the pool is used by this command buffer alone and reset first.
            unsafe {
                b.reset_query_pool(phases.clone(), 0..40).unwrap();
                b.write_timestamp(phases.clone(), 0, PipelineStage::AllCommands)
                    .unwrap();
            }
            sorter
                .record_marked(&mut b, &job, &scratch, &mut |b, name| {
                    let q = names.len() as u32;
                    names.push(name.to_string());
                    // SAFETY: as above; q < 40 (at most 28 phases: 64-bit keys by reduce-then-scan).
                    unsafe { b.write_timestamp(phases.clone(), q, PipelineStage::AllCommands) }
                        .unwrap();
                })
                .unwrap();
            ctx.submit_and_wait(b).unwrap();
            let mut ticks = vec![0u64; names.len()];
            phases
                .get_results(0..names.len() as u32, &mut ticks, QueryResultFlags::WAIT)
                .unwrap();
            let period = ctx.limits().timestamp_period_ns.unwrap();
            let profile: Vec<String> = (1..names.len())
                .map(|i| {
                    let ms = ticks[i].wrapping_sub(ticks[i - 1]) as f64 * period / 1e6;
                    format!("{} {ms:.3}", names[i])
                })
                .collect();
            println!("n=2^{log} {name} phases (ms): {}", profile.join(", "));
            if std::env::var("SORTNET_RADIX_LB_STATS").as_deref() == Ok("1") {
                print_lookback_stats(&ctx, &scratch, log, name);
            }

            // Check the last result.
            let mut b = ctx.command_builder().unwrap();
            b.copy_buffer(CopyBufferInfo::buffers(
                job.keys.clone(),
                staging.slice::<u32>(words),
            ))
            .unwrap();
            if pairs {
                b.copy_buffer(CopyBufferInfo::buffers(
                    vals.slice::<u32>(n),
                    staging_v.slice::<u32>(n),
                ))
                .unwrap();
            }
            ctx.submit_and_wait(b).unwrap();
            let out = staging.slice::<u32>(words).read().unwrap().to_vec();
            let key = |i: usize| -> u64 {
                if kw == 2 {
                    u64::from(out[2 * i]) | u64::from(out[2 * i + 1]) << 32
                } else {
                    u64::from(out[i])
                }
            };
            // In the key map's order.
            let mapped = |i: usize| -> u64 {
                if kw == 2 {
                    map.encode64(key(i))
                } else {
                    u64::from(map.encode32(key(i) as u32))
                }
            };
            let sorted = (1..n as usize).all(|i| mapped(i - 1) <= mapped(i));
            // The same multiset of keys: order-independent sums of the keys and of a mix of
            // them (a lost or duplicated key changes both).
            let digest = |k: &mut dyn Iterator<Item = u64>| {
                k.fold((0u64, 0u64), |(s, m), x| {
                    (
                        s.wrapping_add(x),
                        m.wrapping_add(x.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)),
                    )
                })
            };
            let input_digest = digest(&mut (0..n as usize).map(|i| {
                if kw == 2 {
                    u64::from(data[2 * i]) | u64::from(data[2 * i + 1]) << 32
                } else {
                    u64::from(data[i])
                }
            }));
            let output_digest = digest(&mut (0..n as usize).map(key));
            let mut ok = sorted && input_digest == output_digest;
            if pairs {
                let v = staging_v.slice::<u32>(n).read().unwrap().to_vec();
                ok &= v.iter().enumerate().all(|(i, &src)| {
                    let orig = if kw == 2 {
                        u64::from(data[2 * src as usize])
                            | u64::from(data[2 * src as usize + 1]) << 32
                    } else {
                        u64::from(data[src as usize])
                    };
                    orig == key(i)
                });
            }
            let (best, median) = stats(ms);
            let gkeys = n as f64 / (best * 1e6);
            let passes = 4.0 * kw as f64;
            let bytes_per_key =
                4.0 * kw as f64 + passes * 2.0 * (4.0 * kw as f64 + if pairs { 4.0 } else { 0.0 });
            let bound_ms = n as f64 * bytes_per_key / (copy_gbs * 1e6);
            println!(
                "n=2^{log} {name}: best {best:.3} ms median {median:.3} ms, {gkeys:.2} G keys/s, \
                 {bytes_per_key:.0} B/key model, {:.0}% of copy bound, check {}",
                100.0 * bound_ms / best,
                match (ok, sorted, input_digest == output_digest) {
                    (true, _, _) => "ok",
                    (false, false, _) => "FAILED (not sorted)",
                    (false, true, false) => "FAILED (keys lost or duplicated)",
                    (false, true, true) => "FAILED (values do not follow their keys)",
                }
            );
        }
        ctx.trim_pool();
    }

    if host {
        let b = backend::by_name("vulkan-radix").unwrap();
        use rayon::slice::ParallelSliceMut;
        for log in [14u32, 16, 18, 20, 22, 24, 26] {
            let n = 1usize << log;
            let mut data = vec![0u32; n];
            fill_random(&mut data, 77);
            if let Err(e) = b.sort(&mut data.clone()) {
                println!("host n=2^{log}: {e}");
                continue;
            }
            let mut best = f64::MAX;
            for _ in 0..3 {
                let mut v = data.clone();
                let t = Instant::now();
                b.sort(&mut v).unwrap();
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
                assert!(v.windows(2).all(|w| w[0] <= w[1]));
            }
            let mut par_ms = f64::MAX;
            for _ in 0..3 {
                let mut v = data.clone();
                let t = Instant::now();
                v.par_sort_unstable();
                par_ms = par_ms.min(t.elapsed().as_secs_f64() * 1e3);
            }
            let mut b64 = f64::MAX;
            let data64: Vec<u64> = data
                .iter()
                .map(|&x| u64::from(x) << 20 ^ u64::from(x))
                .collect();
            for _ in 0..3 {
                let mut v = data64.clone();
                let t = Instant::now();
                b.sort(&mut v).unwrap();
                b64 = b64.min(t.elapsed().as_secs_f64() * 1e3);
            }
            let mut par64 = f64::MAX;
            for _ in 0..3 {
                let mut v = data64.clone();
                let t = Instant::now();
                v.par_sort_unstable();
                par64 = par64.min(t.elapsed().as_secs_f64() * 1e3);
            }
            println!(
                "host n=2^{log} end-to-end: u32 {best:.2} ms ({:.2} G keys/s), rayon par_sort_unstable {par_ms:.2} ms (x{:.2}); \
                 u64 {b64:.2} ms, rayon {par64:.2} ms (x{:.2})",
                n as f64 / (best * 1e6),
                par_ms / best,
                par64 / b64
            );
            ctx.trim_pool();
        }
    }
}

/// Says why no sorter came up: loader, instance, devices and their subgroup support.
fn diagnose() {
    use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo};
    println!(
        "context: {:?}",
        sortnet::gpu::context::context().map(|c| c.status())
    );
    let lib = match vulkano::VulkanLibrary::new() {
        Ok(l) => l,
        Err(e) => return println!("loader: {e}"),
    };
    for flags in [
        InstanceCreateFlags::ENUMERATE_PORTABILITY,
        InstanceCreateFlags::empty(),
    ] {
        match Instance::new(
            lib.clone(),
            InstanceCreateInfo {
                flags,
                ..Default::default()
            },
        ) {
            Err(e) => println!("instance {flags:?}: {e} ({e:?})"),
            Ok(inst) => match inst.enumerate_physical_devices() {
                Err(e) => println!("devices: {e}"),
                Ok(devs) => {
                    for p in devs {
                        let pr = p.properties();
                        println!(
                            "device {} {:?} api {:?} subgroup {:?} min {:?} ops {:?} stages {:?}",
                            pr.device_name,
                            pr.device_type,
                            p.api_version(),
                            pr.subgroup_size,
                            pr.min_subgroup_size,
                            pr.subgroup_supported_operations,
                            pr.subgroup_supported_stages
                        );
                    }
                }
            },
        }
    }
}

/// Look-back statistics of the profiled sort (`SORTNET_RADIX_LB_STATS=1`): per step (the
/// passes that run, in order), the look-back's steps (reads of LOOKAHEAD earlier tiles'
/// words) and the steps that found a word not yet published, per digit and tile, and the
/// tiles that took the fallback.
fn print_lookback_stats(
    ctx: &Arc<GpuContext>,
    scratch: &sortnet::gpu::radix::RadixScratch,
    log: u32,
    name: &str,
) {
    use sortnet::gpu::radix_plan::{state, MAX_PASSES, RADIX};
    let words = u64::from(MAX_PASSES * 4);
    let at = u64::from(state::LB_STATS);
    let host = ctx.buffer(Memory::Staging, words * 4).unwrap();
    let mut b = ctx.command_builder().unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        scratch.state().clone().slice(at..at + words),
        host.slice::<u32>(words),
    ))
    .unwrap();
    ctx.submit_and_wait(b).unwrap();
    let w = host.slice::<u32>(words).read().unwrap().to_vec();
    let passes: Vec<String> = w
        .chunks(4)
        .enumerate()
        .filter(|(_, c)| c[2] > 0)
        .map(|(p, c)| {
            let lookbacks = f64::from(c[2]) * f64::from(RADIX);
            format!(
                "step {p}: {:.2} steps, {:.2} waits per digit, {} tiles, {} fallbacks",
                f64::from(c[0]) / lookbacks,
                f64::from(c[1]) / lookbacks,
                c[2],
                c[3]
            )
        })
        .collect();
    println!("n=2^{log} {name} look-back: {}", passes.join("; "));
}
