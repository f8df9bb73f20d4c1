//! Nibble sort throughput of every available backend (`auto` included), with a plain copy
//! of the same buffer as the bandwidth peer.
//!
//! 1024 words is the contest's buffer (report ns/word: criterion's time / 1024). Run
//! single-threaded figures with `RAYON_NUM_THREADS=1`.
//!
//! `NIBBLES_CONTEST=1 cargo bench --bench nibbles` instead times each backend the way the
//! contest's harness did: the 1024-word buffer, best of many runs, in ns per word (the
//! minimum filters out the other processes sharing the CPU, which criterion's mean does not).

use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion, SamplingMode, Throughput};
use rayon::prelude::*;
use sortnet::backend;

/// Deterministic random words (xorshift64).
fn random_words(len: usize) -> Vec<u64> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// Backends worth timing: those that sort nibbles, except software GPU drivers (lavapipe
/// takes seconds at 2^24 words and says nothing about a real GPU).
fn measured(b: &dyn sortnet::SortBackend) -> bool {
    b.supports(sortnet::Workload::Nibbles) && b.device() != sortnet::Device::Gpu { software: true }
}

const SIZES: [usize; 4] = [1 << 10, 1 << 16, 1 << 20, 1 << 24];

fn nibbles(c: &mut Criterion) {
    let mut group = c.benchmark_group("nibbles");
    for &n in &SIZES {
        group.throughput(Throughput::Elements(n as u64));
        if n >= 1 << 20 {
            group.sampling_mode(SamplingMode::Flat);
            group.sample_size(10);
            group.warm_up_time(Duration::from_millis(500));
            group.measurement_time(Duration::from_secs(2));
        } else {
            group.sampling_mode(SamplingMode::Auto);
            group.sample_size(50);
            group.warm_up_time(Duration::from_millis(300));
            group.measurement_time(Duration::from_secs(1));
        }
        // Sorting is in place and leaves the multiset of nibbles of every word unchanged,
        // so every iteration does the same work on the same buffer (as the contest did).
        let mut words = random_words(n);
        for b in backend::available() {
            if !measured(b) {
                continue;
            }
            group.bench_with_input(BenchmarkId::new(b.name(), n), &n, |bench, _| {
                bench.iter(|| b.sort_nibbles(std::hint::black_box(&mut words)).unwrap())
            });
        }
        if n == 1 << 24 {
            let source = random_words(n);
            let mut target = vec![0u64; n];
            group.bench_with_input(BenchmarkId::new("copy", n), &n, |bench, _| {
                bench.iter(|| target.copy_from_slice(std::hint::black_box(&source)))
            });
            group.bench_with_input(BenchmarkId::new("copy-parallel", n), &n, |bench, _| {
                bench.iter(|| {
                    target
                        .par_chunks_mut(1 << 14)
                        .zip(std::hint::black_box(&source).par_chunks(1 << 14))
                        .for_each(|(t, s)| t.copy_from_slice(s))
                })
            });
        }
    }
    group.finish();
}

/// Short batches, where a partial SIMD block and `auto`'s routing weigh most: the evidence
/// for the nibble arm of `thresholds::preference`.
fn nibbles_small(c: &mut Criterion) {
    let mut group = c.benchmark_group("nibbles-small");
    group.sample_size(30);
    group.warm_up_time(Duration::from_millis(200));
    group.measurement_time(Duration::from_millis(400));
    for n in [1usize, 2, 3, 8, 31, 32, 33, 64, 65, 100, 200] {
        group.throughput(Throughput::Elements(n as u64));
        let mut words = random_words(n);
        for b in backend::available() {
            if !measured(b) {
                continue;
            }
            group.bench_with_input(BenchmarkId::new(b.name(), n), &n, |bench, _| {
                bench.iter(|| b.sort_nibbles(std::hint::black_box(&mut words)).unwrap())
            });
        }
    }
    group.finish();
}

/// The contest's way of timing: best of many runs, per backend, at each length of
/// `NIBBLES_CONTEST_LENGTHS` (default: the contest's 1024 words). Each run sorts the buffer
/// back to back enough times to last about a microsecond, so the clock's resolution does
/// not matter, and the minimum filters out the other processes sharing the CPU, which
/// criterion's mean does not.
fn contest() {
    let runs: usize = std::env::var("NIBBLES_CONTEST_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2000);
    let lengths: Vec<usize> = std::env::var("NIBBLES_CONTEST_LENGTHS")
        .unwrap_or_else(|_| "1024".into())
        .split(',')
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    // What splitting a call over the pool costs before any sorting: the floor under which
    // the parallel thresholds in `thresholds.rs` must stay.
    let threads = rayon::current_num_threads();
    let mut empty = vec![0u64; 64 * threads];
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let start = std::time::Instant::now();
        empty.par_chunks_mut(64).for_each(|c| {
            std::hint::black_box(c);
        });
        best = best.min(start.elapsed().as_nanos() as f64);
    }
    println!("contest rayon fork-join over {threads} threads: {best:.0} ns (best of {runs})");
    for len in lengths {
        let mut words = random_words(len);
        let reps = (8192 / len.max(1)).clamp(1, 64);
        for b in backend::available() {
            if !measured(b) {
                continue;
            }
            let mut best = f64::INFINITY;
            for _ in 0..runs {
                let start = std::time::Instant::now();
                for _ in 0..reps {
                    b.sort_nibbles(std::hint::black_box(&mut words)).unwrap();
                }
                best = best.min(start.elapsed().as_nanos() as f64 / reps as f64);
            }
            report(len, b.name(), best, runs, reps);
        }
        if len >= 1 << 20 {
            // The bandwidth peers: the same buffer copied, by one thread and by the pool.
            let source = random_words(len);
            let mut target = vec![0u64; len];
            let mut time = |copy: &mut dyn FnMut(&mut [u64], &[u64])| {
                let mut best = f64::INFINITY;
                for _ in 0..runs {
                    let start = std::time::Instant::now();
                    copy(&mut target, std::hint::black_box(&source));
                    best = best.min(start.elapsed().as_nanos() as f64);
                }
                best
            };
            let single = time(&mut |t, s| t.copy_from_slice(s));
            report(len, "copy", single, runs, 1);
            let parallel = time(&mut |t, s| {
                t.par_chunks_mut(1 << 14)
                    .zip(s.par_chunks(1 << 14))
                    .for_each(|(t, s)| t.copy_from_slice(s))
            });
            report(len, "copy-par", parallel, runs, 1);
        }
    }
}

fn report(len: usize, name: &str, best_ns: f64, runs: usize, reps: usize) {
    // Bytes read plus bytes written: the in-place sort and the copy move the same amount.
    let gb_per_s = (16 * len) as f64 / best_ns;
    println!(
        "contest len {len:>8} {name:>10}: {best_ns:>12.1} ns/call {:>8.3} ns/word {gb_per_s:>7.2} GB/s (best of {runs} x {reps})",
        best_ns / len.max(1) as f64
    );
}

criterion_group!(benches, nibbles, nibbles_small);

fn main() {
    if std::env::var_os("NIBBLES_CONTEST").is_some() {
        contest();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
