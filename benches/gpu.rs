//! GPU benchmarks that reproduce the GPU tables of BENCHMARKS.md, through the public API.
//!
//! ```text
//! cargo bench --bench gpu -- radix [--keys u32,u64,pairs32,pairs64] [--map unsigned|signed|float]
//!                                  [--scheme measured|lookback|reduce] [--tile WGxKPI]
//!                                  [--partitions P] [--key-bits B,..] [--one-workgroup-max N]
//!                                  [--small-below N] [--short-max N] [--histogram-kpi N]
//!                                  [--histogram-batch N] [--variants V,..]
//!                                  [--phases] [--one-top-digit | --shape NAME]
//!                                  [--reps N] LOG2..
//! cargo bench --bench gpu -- nibble [--reps N] LOG2..
//! cargo bench --bench gpu -- bitonic [--reps N] LOG2..
//! cargo bench --bench gpu -- roundtrip [--reps N] LOG2..
//! ```
//!
//! `radix`, `nibble` and `bitonic` time sorts of data already on the GPU: each sort alone in
//! its command buffer between two GPU timestamps, the input restored before each one, best
//! and median of N after a warm-up sort, next to a plain copy kernel over the same bytes
//! (the bandwidth yardstick). `radix` with no options runs the shipped `RadixSorter` (the
//! "GPU radix sort" table; CUB's figures come from `scripts/cub_bench.sh` in the same call
//! on the same machine); `--scheme`, `--tile` and `--partitions` reproduce "GPU radix
//! tiles"; `--key-bits B` sorts by the low B bits (a list: a row each); `--variants`
//! compares tunings in one process, a row each: `base` (the options' tuning) or parts joined
//! by `+`: `direct` / `indirect` (the look-back passes dispatched directly, as shipped, or
//! sized by the plan), `kpiN` (`--histogram-kpi`), `batchN` (`--histogram-batch`);
//! `--one-workgroup-max`, `--short-max` and `--small-below` set the small sorts' crossovers
//! (0: off);
//! `--one-top-digit` gives 32-bit keys one top byte (the short path's worst case split by the
//! top digit), `--shape` other inputs of that kind: `one-top-digit`, `equal` (one key), `two`
//! (two keys), `depths` (floats of one narrow range, with `--map float`). Each `radix` row
//! also gives the same sort of no keys in the same buffers (the empty dispatch chain: every dispatch, each with nothing to
//! do) and the CPU time of one `record` call (median of 200, after the first); `--phases`
//! adds each phase's GPU time (a timestamp after every dispatch, medians).
//! `roundtrip` times host slices end to end (wall clock, best of N): the registry's
//! `vulkan-radix` (which gives its buffers back after each call), one that keeps them
//! between calls (from a `Vec` and from a `HostBuffer`), and rayon's `par_sort_unstable`
//! ("GPU host path"). Every result is checked.

// The tests' vulkano helpers (buffers as a caller allocates them).
#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Instant;

use common::gpu::Memory;

use rayon::slice::ParallelSliceMut;
use sortnet::backend;
use sortnet::gpu::bitonic::BitonicSorter;
use sortnet::gpu::context::{context, GpuContext};
use sortnet::gpu::radix::{Count, RadixSorter, SortJob, VulkanRadix};
use sortnet::gpu::vulkano::buffer::{BufferContents, Subbuffer};
use sortnet::gpu::vulkano::command_buffer::{
    AutoCommandBufferBuilder, CopyBufferInfo, PrimaryAutoCommandBuffer,
};
use sortnet::gpu::vulkano::query::{QueryPool, QueryPoolCreateInfo, QueryResultFlags, QueryType};
use sortnet::gpu::vulkano::sync::PipelineStage;
use sortnet::gpu::{nibble, HostBuffer};
use sortnet::tuning::gpu::{self as tuning, PassScheme, RadixConfig};
use sortnet::{KeyMap, KeyWidth, SortBackend};

type Builder = AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>;

fn usage() -> ! {
    eprintln!(
        "usage: cargo bench --bench gpu -- radix|nibble|bitonic|roundtrip [options] LOG2..\n\
         (see the header of benches/gpu.rs)"
    );
    std::process::exit(2)
}

struct Args {
    workload: String,
    sizes: Vec<u32>,
    reps: usize,
    keys: Vec<String>,
    map: KeyMap,
    config: RadixConfig,
    /// Sort by these low bits, one row each (`None`: every bit).
    key_bits: Vec<Option<u32>>,
    /// Tunings to compare in one process (`--variants`), each a label and its config.
    variants: Vec<(String, RadixConfig)>,
    phases: bool,
    /// 32-bit keys of a shape other than random (`--shape`; the short path's hard cases).
    shape: Option<String>,
}

fn parse() -> Args {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let workload = args.next().unwrap_or_else(|| usage());
    let mut a = Args {
        workload,
        sizes: Vec::new(),
        reps: 10,
        keys: vec![
            "u32".into(),
            "u64".into(),
            "pairs32".into(),
            "pairs64".into(),
        ],
        map: KeyMap::Unsigned,
        config: RadixConfig::default(),
        key_bits: vec![None],
        variants: Vec::new(),
        phases: false,
        shape: None,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--reps" => a.reps = value().parse().unwrap_or_else(|_| usage()),
            "--keys" => a.keys = value().split(',').map(str::to_string).collect(),
            "--map" => {
                a.map = match value().as_str() {
                    "unsigned" => KeyMap::Unsigned,
                    "signed" => KeyMap::Signed,
                    "float" => KeyMap::Float,
                    _ => usage(),
                }
            }
            "--scheme" => {
                a.config.scheme = match value().as_str() {
                    "measured" => PassScheme::Measured,
                    "lookback" => PassScheme::LookBack,
                    "reduce" => PassScheme::ReduceThenScan,
                    _ => usage(),
                }
            }
            "--tile" => {
                let v = value();
                let (wg, kpi) = v.split_once('x').unwrap_or_else(|| usage());
                a.config.workgroup = Some(wg.parse().unwrap_or_else(|_| usage()));
                a.config.keys_per_invocation = Some(kpi.parse().unwrap_or_else(|_| usage()));
            }
            "--partitions" => a.config.partitions = value().parse().unwrap_or_else(|_| usage()),
            "--phases" => a.phases = true,
            "--one-top-digit" => a.shape = Some("one-top-digit".into()),
            "--shape" => a.shape = Some(value()),
            "--histogram-kpi" => {
                a.config.histogram_keys_per_invocation = value().parse().unwrap_or_else(|_| usage())
            }
            "--key-bits" => {
                a.key_bits = value()
                    .split(',')
                    .map(|b| Some(b.parse().unwrap_or_else(|_| usage())))
                    .collect()
            }
            "--histogram-batch" => {
                a.config.histogram_batch = Some(value().parse().unwrap_or_else(|_| usage()))
            }
            "--variants" => {
                a.variants = value()
                    .split(',')
                    .map(|v| (v.to_string(), Default::default()))
                    .collect()
            }
            "--one-workgroup-max" => {
                a.config.one_workgroup_max = Some(value().parse().unwrap_or_else(|_| usage()))
            }
            "--small-below" => a.config.small_below = value().parse().unwrap_or_else(|_| usage()),
            "--short-max" => a.config.short_max = Some(value().parse().unwrap_or_else(|_| usage())),
            s if s.starts_with("--") => usage(),
            s => a.sizes.push(s.parse().unwrap_or_else(|_| usage())),
        }
    }
    if a.sizes.is_empty() {
        a.sizes = vec![20, 24, 26];
    }
    // Each variant is the options' config changed by its parts, joined by `+`: `base`,
    // `direct` / `indirect` (the passes' dispatches), `kpiN` (histogram keys per invocation),
    // `batchN`.
    if a.variants.is_empty() {
        a.variants = vec![("options".into(), a.config.clone())];
    } else {
        for (label, config) in &mut a.variants {
            *config = a.config.clone();
            for part in label.split('+') {
                let num = |p: &str| part[p.len()..].parse::<u32>().unwrap_or_else(|_| usage());
                match part {
                    "base" => {}
                    "direct" => config.direct_passes = true,
                    "indirect" => config.direct_passes = false,
                    p if p.starts_with("kpi") => config.histogram_keys_per_invocation = num("kpi"),
                    p if p.starts_with("batch") => config.histogram_batch = Some(num("batch")),
                    _ => usage(),
                }
            }
        }
    }
    a
}

fn main() {
    let args = parse();
    let Some(ctx) = context() else {
        println!("no Vulkan device: nothing to measure");
        return;
    };
    println!("device: {}", ctx.status());
    match args.workload.as_str() {
        "radix" => radix(&ctx, &args),
        "nibble" => nibbles(&ctx, &args),
        "bitonic" => bitonic(&ctx, &args),
        "roundtrip" => roundtrip(&ctx, &args),
        _ => usage(),
    }
}

/// A device-local storage buffer of `len` elements.
fn device<T: BufferContents>(ctx: &GpuContext, len: u64) -> Subbuffer<[T]> {
    common::gpu::typed(ctx, Memory::Device, len).unwrap()
}

/// A host-visible buffer holding `data`.
fn host<T: BufferContents + Copy>(ctx: &GpuContext, data: &[T]) -> Subbuffer<[T]> {
    common::gpu::filled(ctx, Memory::Staging, data).unwrap()
}

/// Copies `src` into `dst` and waits.
fn upload<T: BufferContents>(ctx: &GpuContext, src: Subbuffer<[T]>, dst: Subbuffer<[T]>) {
    let mut b = ctx.command_builder().unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(src, dst)).unwrap();
    ctx.submit_and_wait(b).unwrap();
}

/// Timestamp queries of the timer's pool: the two of a timing, or a sort's phases.
const PHASE_QUERIES: u32 = 32;

/// GPU milliseconds of what `record` records, alone between two timestamps.
///
/// A data-center GPU drops its clocks within half a second of idling (an H200's SM clock
/// falls to 345-975 MHz), and the untimed restore between repetitions is such an idle gap.
/// So each timed command buffer first keeps the GPU busy with copy kernels over a buffer of
/// its own ([`WARM_COPIES`] of [`WARM_WORDS`] words, tens of milliseconds), and the first
/// timestamp waits for them: the sort starts at full clock on a cold L2, as in the figures.
struct Timer {
    pool: Arc<QueryPool>,
    period_ns: f64,
    /// The warm-up copy's buffers; none on a software driver, whose clocks are the CPU's.
    warm: Option<[Subbuffer<[u32]>; 2]>,
}

/// Words of the warm-up copy's buffers: 64 MiB, larger than any GPU's L2.
const WARM_WORDS: u64 = 16 << 20;
/// Warm-up copies before each timed sort: about 40 ms on an H200 at full clock.
const WARM_COPIES: usize = 1000;

impl Timer {
    fn new(ctx: &GpuContext) -> Timer {
        let pool = QueryPool::new(
            ctx.device().clone(),
            QueryPoolCreateInfo {
                query_count: PHASE_QUERIES,
                ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
            },
        )
        .expect("a timestamp query pool");
        let period_ns = tuning::limits(ctx)
            .timestamp_period_ns
            .expect("a compute queue with timestamps");
        let warm = (!ctx.is_software()).then(|| [(); 2].map(|()| device::<u32>(ctx, WARM_WORDS)));
        let timer = Timer {
            pool,
            period_ns,
            warm,
        };
        // Bring the clocks up from idle once (about a second of copies) before any timing.
        let start = Instant::now();
        while timer.warm.is_some() && start.elapsed().as_millis() < 1000 {
            let mut b = ctx.command_builder().unwrap();
            timer.record_warm_up(ctx, &mut b);
            ctx.submit_and_wait(b).unwrap();
        }
        timer
    }

    fn record_warm_up(&self, ctx: &GpuContext, b: &mut Builder) {
        if let Some([src, dst]) = &self.warm {
            for _ in 0..WARM_COPIES {
                tuning::record_copy(ctx, b, src.clone(), dst.clone()).unwrap();
            }
        }
    }

    fn time(&self, ctx: &GpuContext, record: impl FnOnce(&mut Builder)) -> f64 {
        let mut b = ctx.command_builder().unwrap();
        self.record_warm_up(ctx, &mut b);
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
        ticks[1].wrapping_sub(ticks[0]) as f64 * self.period_ns / 1e6
    }

    /// Median GPU milliseconds of each phase that `record` stamps (`tuning::gpu::record_timed`
    /// on this pool), over `reps` runs each after `restore`, after one warm-up.
    fn phases(
        &self,
        ctx: &GpuContext,
        reps: usize,
        mut restore: impl FnMut(),
        mut record: impl FnMut(&mut Builder, &Arc<QueryPool>) -> Vec<&'static str>,
    ) -> Vec<(&'static str, f64)> {
        let mut runs: Vec<Vec<f64>> = Vec::new();
        let mut names = Vec::new();
        for rep in 0..=reps.max(1) {
            restore();
            let mut b = ctx.command_builder().unwrap();
            self.record_warm_up(ctx, &mut b);
            // SAFETY: the pool's queries are used only by this command buffer, which is
            // waited for before the next one is recorded; they are reset before being written.
            unsafe {
                b.reset_query_pool(self.pool.clone(), 0..PHASE_QUERIES)
                    .unwrap();
                b.write_timestamp(self.pool.clone(), 0, PipelineStage::AllCommands)
                    .unwrap();
            }
            names = record(&mut b, &self.pool);
            ctx.submit_and_wait(b).unwrap();
            let mut ticks = vec![0u64; names.len() + 1];
            self.pool
                .get_results(0..ticks.len() as u32, &mut ticks, QueryResultFlags::WAIT)
                .unwrap();
            if rep > 0 {
                let ms = ticks.windows(2);
                runs.push(
                    ms.map(|w| w[1].wrapping_sub(w[0]) as f64 * self.period_ns / 1e6)
                        .collect(),
                );
            }
        }
        (0..names.len())
            .map(|i| {
                let mut v: Vec<f64> = runs.iter().map(|r| r[i]).collect();
                v.sort_by(f64::total_cmp);
                (names[i], v[v.len() / 2])
            })
            .collect()
    }

    /// Best and median of `reps` timings of `record`, each after `restore` (untimed), after
    /// one warm-up.
    fn best_of(
        &self,
        ctx: &GpuContext,
        reps: usize,
        mut restore: impl FnMut(),
        mut record: impl FnMut(&mut Builder),
    ) -> (f64, f64) {
        let mut ms = Vec::new();
        for rep in 0..=reps.max(1) {
            restore();
            let t = self.time(ctx, &mut record);
            if rep > 0 {
                ms.push(t);
            }
        }
        ms.sort_by(f64::total_cmp);
        (ms[0], ms[ms.len() / 2])
    }
}

fn random_words(n: usize, seed: u64) -> Vec<u32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 16) as u32
        })
        .collect()
}

/// The copy kernel over `words` words, best of `reps`: the bandwidth yardstick.
fn copy_ms(ctx: &Arc<GpuContext>, timer: &Timer, words: u64, reps: usize) -> f64 {
    let words = words.next_multiple_of(4);
    let (src, dst) = (device::<u32>(ctx, words), device::<u32>(ctx, words));
    let (best, _) = timer.best_of(
        ctx,
        reps,
        || {},
        |b| tuning::record_copy(ctx, b, src.clone(), dst.clone()).unwrap(),
    );
    let gbs = 2.0 * words as f64 * 4.0 / (best * 1e6);
    println!(
        "  copy kernel, {} MiB: {best:.3} ms, {gbs:.0} GB/s (read + write)",
        (words * 4) >> 20
    );
    best
}

fn radix(ctx: &Arc<GpuContext>, args: &Args) {
    let timer = Timer::new(ctx);
    // Per variant, the sorter and the one whose empty dispatch chain is that of the passes
    // (a sort of no keys would otherwise run in one workgroup).
    let sorters: Vec<(&str, RadixSorter, RadixSorter)> = args
        .variants
        .iter()
        .map(|(label, config)| {
            let mut passes_config = config.clone();
            passes_config.one_workgroup_max = Some(0);
            passes_config.short_max = Some(0);
            (
                label.as_str(),
                RadixSorter::with_config(ctx.clone(), config.clone()).unwrap(),
                RadixSorter::with_config(ctx.clone(), passes_config).unwrap(),
            )
        })
        .collect();
    println!("config: {:?}, key bits {:?}", args.config, args.key_bits);
    println!(
        "| keys | n | tile keys | scheme | best ms | median ms | G keys/s | vs copy \
         | empty chain ms | record us | variant | key bits |"
    );
    for &log in &args.sizes {
        let n = 1u64 << log;
        let copy = copy_ms(ctx, &timer, n, args.reps);
        for name in &args.keys {
            for key_bits in &args.key_bits {
                for (label, sorter, passes) in &sorters {
                    let (width, pairs) = match name.as_str() {
                        "u32" | "k32" => (KeyWidth::W32, false),
                        "u64" | "k64" => (KeyWidth::W64, false),
                        "pairs32" | "p32" => (KeyWidth::W32, true),
                        "pairs64" | "p64" => (KeyWidth::W64, true),
                        _ => usage(),
                    };
                    let kw = if width == KeyWidth::W64 { 2 } else { 1 };
                    let words = n * kw;
                    let mut data = random_words(words as usize, 0x1234_5678 + u64::from(log));
                    if let (Some(shape), 1) = (&args.shape, kw) {
                        let f: fn(u32) -> u32 = match shape.as_str() {
                            "one-top-digit" => |w| w & 0x00FF_FFFF | 0x5A00_0000,
                            "equal" => |_| 0x8000_0001,
                            "two" => |w| if w & 1 == 0 { 7 } else { 0xC000_0000 },
                            "depths" => |w| (100.0f32 + (w >> 12) as f32 * 1e-5).to_bits(),
                            _ => usage(),
                        };
                        data.iter_mut().for_each(|w| *w = f(*w));
                    }
                    let values: Vec<u32> = (0..n as u32).collect();
                    let (pristine, pristine_v) = (host(ctx, &data), host(ctx, &values));
                    let keys = device::<u32>(ctx, words);
                    let vals = device::<u32>(ctx, n);
                    let scratch = match sorter.new_scratch(width, pairs, n) {
                        Ok(s) => s,
                        Err(e) => {
                            println!("| {name} | 2^{log} | {e} |");
                            continue;
                        }
                    };
                    let job = SortJob {
                        keys: keys.clone(),
                        values: pairs.then(|| vals.clone()),
                        width,
                        map: args.map,
                        count: Count::Known(n as u32),
                        key_bits: *key_bits,
                    };
                    let restore = || {
                        upload(ctx, pristine.clone(), keys.clone());
                        if pairs {
                            upload(ctx, pristine_v.clone(), vals.clone());
                        }
                    };
                    let (best, median) = timer.best_of(ctx, args.reps, restore, |b| {
                        sorter.record(b, &job, &scratch).unwrap()
                    });
                    if args.phases {
                        let phases = timer.phases(ctx, args.reps, restore, |b, pool| {
                            tuning::record_timed(sorter, b, &job, &scratch, pool).unwrap()
                        });
                        let list: Vec<String> = phases
                            .iter()
                            .map(|(name, ms)| format!("{name} {:.1}", ms * 1e3))
                            .collect();
                        println!(
                            "  phases of {name} 2^{log} {label} bits {} (median µs): {}",
                            key_bits.unwrap_or(32 * kw as u32),
                            list.join(", ")
                        );
                    }
                    let bits = key_bits.unwrap_or(32 * kw as u32);
                    let ok = check_radix(
                        ctx,
                        &keys,
                        pairs.then_some(&vals),
                        &data,
                        width,
                        args.map,
                        bits,
                    );
                    let passes_scratch = passes.new_scratch(width, pairs, n).unwrap();
                    let empty_job = SortJob {
                        count: Count::Known(0),
                        ..job.clone()
                    };
                    let (empty, _) = timer.best_of(
                        ctx,
                        args.reps,
                        || {},
                        |b| passes.record(b, &empty_job, &passes_scratch).unwrap(),
                    );
                    if args.phases {
                        let phases = timer.phases(
                            ctx,
                            args.reps,
                            || {},
                            |b, pool| {
                                tuning::record_timed(passes, b, &empty_job, &passes_scratch, pool)
                                    .unwrap()
                            },
                        );
                        let list: Vec<String> = phases
                            .iter()
                            .map(|(name, ms)| format!("{name} {:.1}", ms * 1e3))
                            .collect();
                        println!(
                            "  phases of empty {name} 2^{log} {label} bits {} (median µs): {}",
                            key_bits.unwrap_or(32 * kw as u32),
                            list.join(", ")
                        );
                    }
                    // CPU time of `record` into a fresh builder (not submitted), after the first.
                    let mut record_us: Vec<f64> = (0..200)
                        .map(|_| {
                            let mut b = ctx.command_builder().unwrap();
                            let start = Instant::now();
                            sorter.record(&mut b, &job, &scratch).unwrap();
                            start.elapsed().as_secs_f64() * 1e6
                        })
                        .collect();
                    record_us.sort_by(f64::total_cmp);
                    println!(
                "| {name} | 2^{log} | {} | {} | {best:.3} | {median:.3} | {:.2} | {:.2}x{} \
                 | {empty:.3} | {:.1} | {label} | {} |",
                tuning::tile_keys(sorter, width, pairs).unwrap(),
                if tuning::runs_in_one_workgroup(sorter, width, pairs, n).unwrap() {
                    "one workgroup"
                } else if tuning::takes_short_path(sorter, width, pairs, n).unwrap() {
                    "short path"
                } else if tuning::reduces_then_scans(sorter, width, pairs, n).unwrap() {
                    "reduce-then-scan"
                } else {
                    "look-back"
                },
                n as f64 / (best * 1e6),
                best / copy,
                if ok { "" } else { " WRONG" },
                record_us[record_us.len() / 2],
                key_bits.unwrap_or(32 * kw as u32),
            );
                }
            }
        }
    }
}

/// Whether the sorted keys (and values) on the GPU are the stable sort of `data`.
fn check_radix(
    ctx: &GpuContext,
    keys: &Subbuffer<[u32]>,
    vals: Option<&Subbuffer<[u32]>>,
    data: &[u32],
    width: KeyWidth,
    map: KeyMap,
    bits: u32,
) -> bool {
    let read = |b: &Subbuffer<[u32]>| {
        let out = host(ctx, &vec![0u32; b.len() as usize]);
        upload(ctx, b.clone(), out.clone());
        let v = out.read().unwrap().to_vec();
        v
    };
    let got = read(keys);
    let mask = u64::MAX >> (64 - bits);
    let key = |w: &[u32], i: usize| -> u64 {
        mask & match width {
            KeyWidth::W32 => u64::from(map.encode32(w[i])),
            KeyWidth::W64 => map.encode64(u64::from(w[2 * i]) | u64::from(w[2 * i + 1]) << 32),
        }
    };
    let n = match width {
        KeyWidth::W32 => data.len(),
        KeyWidth::W64 => data.len() / 2,
    };
    // The stable order, as (key, index) pairs sorted on every core: a one-thread sort of
    // indices by a looked-up key would dominate a run at 2^28 keys.
    let mut order: Vec<(u64, u32)> = (0..n).map(|i| (key(data, i), i as u32)).collect();
    order.par_sort_unstable();
    let keys_ok = (0..n).all(|i| key(&got, i) == order[i].0);
    keys_ok && vals.is_none_or(|v| read(v).iter().zip(&order).all(|(&v, o)| v == o.1))
}

fn nibbles(ctx: &Arc<GpuContext>, args: &Args) {
    if !nibble::supported(ctx) {
        println!("this device has no shaderInt64: no GPU nibble sort");
        return;
    }
    let timer = Timer::new(ctx);
    println!("| n words | best ms | median ms | G words/s | vs copy |");
    for &log in &args.sizes {
        let n = 1u64 << log;
        let copy = copy_ms(ctx, &timer, 2 * n, args.reps);
        let data: Vec<u64> = random_words(2 * n as usize, u64::from(log))
            .chunks(2)
            .map(|w| u64::from(w[0]) | u64::from(w[1]) << 32)
            .collect();
        let pristine = host(ctx, &data);
        let words = device::<u64>(ctx, n);
        let (best, median) = timer.best_of(
            ctx,
            args.reps,
            || upload(ctx, pristine.clone(), words.clone()),
            |b| nibble::record(ctx, b, words.clone()).unwrap(),
        );
        let out = host(ctx, &vec![0u64; n as usize]);
        upload(ctx, words.clone(), out.clone());
        let ok = out
            .read()
            .unwrap()
            .iter()
            .zip(&data)
            .all(|(&g, &w)| g == sortnet::nibble::reference(w));
        println!(
            "| 2^{log} | {best:.3} | {median:.3} | {:.2} | {:.2}x{} |",
            n as f64 / (best * 1e6),
            best / copy,
            if ok { "" } else { " WRONG" }
        );
    }
}

fn bitonic(ctx: &Arc<GpuContext>, args: &Args) {
    let timer = Timer::new(ctx);
    let sorter = BitonicSorter::new(ctx.clone());
    println!("| u32 keys | best ms | median ms | G keys/s |");
    for &log in &args.sizes {
        let n = 1u64 << log;
        let data = random_words(n as usize, u64::from(log));
        let pristine = host(ctx, &data);
        let keys = device::<u32>(ctx, n);
        let (best, median) = timer.best_of(
            ctx,
            args.reps,
            || upload(ctx, pristine.clone(), keys.clone()),
            |b| sorter.record(b, keys.clone()).unwrap(),
        );
        let out = host(ctx, &vec![0u32; n as usize]);
        upload(ctx, keys.clone(), out.clone());
        let mut want = data.clone();
        want.sort_unstable();
        let ok = *out.read().unwrap() == want[..];
        println!(
            "| 2^{log} | {best:.3} | {median:.3} | {:.2} |{}",
            n as f64 / (best * 1e6),
            if ok { "" } else { " WRONG" }
        );
    }
}

fn roundtrip(ctx: &Arc<GpuContext>, args: &Args) {
    let shared = backend::by_name("vulkan-radix").expect("vulkan-radix on this device");
    let mut config = RadixConfig::default();
    config.transfer.keep_bytes = u64::MAX;
    let kept = VulkanRadix::new(RadixSorter::with_config(ctx.clone(), config).unwrap()).unwrap();
    let kept: &(dyn SortBackend + 'static) = &kept;
    let best = |reps: usize, data: &[u32], sort: &dyn Fn(&mut Vec<u32>)| {
        let mut best = f64::MAX;
        for _ in 0..=reps.max(1) {
            let mut v = data.to_vec();
            let t = Instant::now();
            sort(&mut v);
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            assert!(v.windows(2).all(|w| w[0] <= w[1]), "not sorted");
        }
        best
    };
    println!(
        "| u32 keys | Vec, vulkan-radix ms | Vec, kept buffers ms | HostBuffer, kept buffers ms \
         | Vec, rayon ms | rayon / kept |"
    );
    for &log in &args.sizes {
        let data = random_words(1 << log, 77);
        let one = best(args.reps, &data, &|v| shared.sort(v).unwrap());
        let two = best(args.reps, &data, &|v| kept.sort(v).unwrap());
        let mut pinned = HostBuffer::from_slice(&data).unwrap();
        let mut three = f64::MAX;
        for _ in 0..=args.reps.max(1) {
            pinned.copy_from_slice(&data);
            let t = Instant::now();
            kept.sort(&mut pinned[..]).unwrap();
            three = three.min(t.elapsed().as_secs_f64() * 1e3);
            assert!(pinned.windows(2).all(|w| w[0] <= w[1]), "not sorted");
        }
        let par = best(args.reps, &data, &|v| v.par_sort_unstable());
        println!(
            "| 2^{log} | {one:.2} | {two:.2} | {three:.2} | {par:.2} | {:.2}x |",
            par / two
        );
    }
}
