//! Nibble sort throughput of every available backend (`auto` included), with a plain copy
//! of the same buffer as the bandwidth peer.
//!
//! 1024 words is the contest's buffer (report ns/word: criterion's time / 1024). Run
//! single-threaded figures with `RAYON_NUM_THREADS=1`.

use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
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

criterion_group!(benches, nibbles);
criterion_main!(benches);
