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
            if !b.supports(sortnet::Workload::Nibbles) {
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

/// Best-of-`runs` ns per word for each backend on the contest's 1024-word buffer; each run
/// times `reps` back-to-back sorts so the clock's resolution does not matter.
fn contest() {
    const WORDS: usize = 1024;
    let runs: usize = std::env::var("NIBBLES_CONTEST_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2000);
    let reps = 8;
    let mut words = random_words(WORDS);
    for b in backend::available() {
        if !b.supports(sortnet::Workload::Nibbles) {
            continue;
        }
        let mut best = f64::INFINITY;
        for _ in 0..runs {
            let start = std::time::Instant::now();
            for _ in 0..reps {
                b.sort_nibbles(std::hint::black_box(&mut words)).unwrap();
            }
            let ns = start.elapsed().as_nanos() as f64 / (reps * WORDS) as f64;
            best = best.min(ns);
        }
        println!(
            "contest {:>10}: {best:.3} ns/word (best of {runs} x {reps} sorts)",
            b.name()
        );
    }
}

criterion_group!(benches, nibbles);

fn main() {
    if std::env::var_os("NIBBLES_CONTEST").is_some() {
        contest();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
