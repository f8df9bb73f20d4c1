//! The calls beyond `sort` against the peers a user would pick instead, in the same
//! criterion group: records by key, argsort, pairs with 8-byte values, select, partial sort,
//! small keys and descending order.
//!
//! Groups (ids `<contestant>/<n>`, n = 2^16, 2^20, 2^24):
//! `calls-by-key-rec16` (16-byte records, `u32` key) and `calls-by-key-rec32` (32-byte
//! records, `u64` key): `sort_by_key` against std, rayon, radsort, rdst and voracious;
//! `calls-argsort-{u32,f32,u64}` on one thread against `sort_unstable_by_key` on indices;
//! `calls-pairs-values`: `sort_pairs` with `u32` and `u64` values; `calls-select` and
//! `calls-partial` on one thread against `select_nth_unstable` (+ sorting the prefix);
//! `calls-small`: `u8`/`u16` keys against a copy of the slice; `calls-descending`. Run a
//! subset with criterion's filter, e.g.
//!
//! ```text
//! cargo bench --bench calls -- 'calls-argsort-u32/.*/1048576'
//! ```

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use rayon::slice::ParallelSliceMut;
use rdst::RadixSort as _;
use sortnet::backend;
use voracious_radix_sort::{RadixSort as _, Radixable};

const SIZES: [usize; 3] = [1 << 16, 1 << 20, 1 << 24];

/// xorshift64*: deterministic benchmark inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut r = Rng(seed | 1);
    (0..n).map(|_| r.next()).collect()
}

/// A 16-byte record keyed by a `u32` field.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Rec16 {
    key: u32,
    a: u32,
    b: u64,
}

/// A 32-byte record keyed by a `u64` field.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Rec32 {
    key: u64,
    rest: [u64; 3],
}

impl rdst::RadixKey for Rec16 {
    const LEVELS: usize = 4;
    fn get_level(&self, level: usize) -> u8 {
        (self.key >> (level * 8)) as u8
    }
}

impl rdst::RadixKey for Rec32 {
    const LEVELS: usize = 8;
    fn get_level(&self, level: usize) -> u8 {
        (self.key >> (level * 8)) as u8
    }
}

impl Radixable<u32> for Rec16 {
    type Key = u32;
    fn key(&self) -> u32 {
        self.key
    }
}

impl Radixable<u64> for Rec32 {
    type Key = u64;
    fn key(&self) -> u64 {
        self.key
    }
}

/// A one-thread rayon pool, for the calls the issue times on one thread.
fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    g
}

/// Times `f` on a fresh copy of `input` per run, as `n` elements.
fn time<T: Clone>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    who: &str,
    n: usize,
    input: &[T],
    mut f: impl FnMut(&mut Vec<T>),
) {
    g.throughput(Throughput::Elements(n as u64));
    g.bench_with_input(BenchmarkId::new(who, n), &n, |b, _| {
        b.iter_batched_ref(|| input.to_vec(), &mut f, BatchSize::LargeInput)
    });
}

/// One `sort_by_key` group: records made by `make` from random words, keyed by `key`,
/// against every peer that sorts records.
fn by_key_group<R, K>(
    c: &mut Criterion,
    name: &str,
    seed: u64,
    make: fn(u64) -> R,
    key: fn(&R) -> K,
) where
    R: Copy + Send + Sync + PartialOrd + rdst::RadixKey + Radixable<K>,
    K: sortnet::Key + Ord + radsort::Key + voracious_radix_sort::RadixKey,
{
    let auto = backend::auto();
    let mut g = group(c, name);
    for n in SIZES {
        let input: Vec<R> = random(n, seed).into_iter().map(make).collect();
        time(&mut g, "sortnet", n, &input, |v| {
            auto.sort_by_key(v, key).unwrap()
        });
        time(&mut g, "std", n, &input, |v| v.sort_by_key(key));
        time(&mut g, "std-unstable", n, &input, |v| {
            v.sort_unstable_by_key(key)
        });
        time(&mut g, "rayon", n, &input, |v| v.par_sort_by_key(key));
        time(&mut g, "rayon-unstable", n, &input, |v| {
            v.par_sort_unstable_by_key(key)
        });
        time(&mut g, "radsort", n, &input, |v| {
            radsort::sort_by_key(v, key)
        });
        time(&mut g, "rdst", n, &input, |v| v.radix_sort_unstable());
        time(&mut g, "voracious-mt", n, &input, |v| {
            v.voracious_mt_sort(rayon::current_num_threads())
        });
    }
    g.finish();
}

fn by_key(c: &mut Criterion) {
    let rec16 = |x: u64| Rec16 {
        key: x as u32,
        a: (x >> 32) as u32,
        b: x,
    };
    by_key_group(c, "calls-by-key-rec16", 1, rec16, |r| r.key);
    let rec32 = |x: u64| Rec32 {
        key: x,
        rest: [x; 3],
    };
    by_key_group(c, "calls-by-key-rec32", 2, rec32, |r| r.key);
}

/// argsort on one thread against sorting indices by key with std.
fn argsort_of<K: sortnet::Key + PartialOrd>(c: &mut Criterion, name: &str, make: fn(u64) -> K) {
    let pool = one_thread();
    let auto = backend::auto();
    let mut g = group(c, name);
    for n in SIZES {
        let keys: Vec<K> = random(n, 3).into_iter().map(make).collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("sortnet", n), &n, |b, _| {
            b.iter(|| pool.install(|| auto.argsort(&keys).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("std-indices", n), &n, |b, _| {
            b.iter(|| {
                let mut idx: Vec<usize> = (0..keys.len()).collect();
                idx.sort_unstable_by(|&i, &j| keys[i].key_cmp(&keys[j]));
                idx
            })
        });
    }
    g.finish();
}

fn argsort(c: &mut Criterion) {
    argsort_of::<u32>(c, "calls-argsort-u32", |x| x as u32);
    argsort_of::<f32>(c, "calls-argsort-f32", |x| {
        ((x >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6) as f32
    });
    argsort_of::<u64>(c, "calls-argsort-u64", |x| x);
}

fn pairs_values(c: &mut Criterion) {
    let auto = backend::auto();
    let mut g = group(c, "calls-pairs-values");
    for n in SIZES {
        let keys: Vec<u32> = random(n, 4).into_iter().map(|x| x as u32).collect();
        let v32: Vec<(Vec<u32>, Vec<u32>)> = vec![(keys.clone(), (0..n as u32).collect())];
        let v64: Vec<(Vec<u32>, Vec<u64>)> = vec![(keys.clone(), (0..n as u64).collect())];
        time(&mut g, "u32-values", n, &v32, |v| {
            let (k, x) = &mut v[0];
            auto.sort_pairs(k, x).unwrap()
        });
        time(&mut g, "u64-values", n, &v64, |v| {
            let (k, x) = &mut v[0];
            auto.sort_pairs(k, x).unwrap()
        });
    }
    g.finish();
}

fn select(c: &mut Criterion) {
    let pool = one_thread();
    let auto = backend::auto();
    let mut g = group(c, "calls-select");
    for n in SIZES {
        let keys: Vec<u32> = random(n, 5).into_iter().map(|x| x as u32).collect();
        time(&mut g, "sortnet", n, &keys, |v| {
            pool.install(|| auto.select_nth(v, n / 2).unwrap())
        });
        time(&mut g, "std", n, &keys, |v| {
            v.select_nth_unstable(n / 2);
        });
    }
    g.finish();
    let mut g = group(c, "calls-partial");
    for n in SIZES {
        let keys: Vec<u32> = random(n, 6).into_iter().map(|x| x as u32).collect();
        let k = n / 100;
        time(&mut g, "sortnet", n, &keys, |v| {
            pool.install(|| auto.partial_sort(v, k).unwrap())
        });
        time(&mut g, "std", n, &keys, |v| {
            v.select_nth_unstable(k);
            v[..k].sort_unstable();
        });
    }
    g.finish();
}

fn small_and_descending(c: &mut Criterion) {
    let auto = backend::auto();
    let mut g = group(c, "calls-small");
    let n = 1 << 24;
    let bytes: Vec<u8> = random(n, 7).into_iter().map(|x| x as u8).collect();
    let halves: Vec<u16> = random(n, 8).into_iter().map(|x| x as u16).collect();
    time(&mut g, "sortnet-u8", n, &bytes, |v| auto.sort(v).unwrap());
    let mut out8 = vec![0u8; n];
    time(&mut g, "copy-u8", n, &bytes, |v| {
        out8.copy_from_slice(v);
        std::hint::black_box(&out8);
    });
    time(&mut g, "sortnet-u16", n, &halves, |v| auto.sort(v).unwrap());
    let mut out16 = vec![0u16; n];
    time(&mut g, "copy-u16", n, &halves, |v| {
        out16.copy_from_slice(v);
        std::hint::black_box(&out16);
    });
    g.finish();
    let mut g = group(c, "calls-descending");
    for n in SIZES {
        let keys: Vec<u32> = random(n, 9).into_iter().map(|x| x as u32).collect();
        time(&mut g, "sort", n, &keys, |v| auto.sort(v).unwrap());
        time(&mut g, "sort_descending", n, &keys, |v| {
            auto.sort_descending(v).unwrap()
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    by_key,
    argsort,
    pairs_values,
    select,
    small_and_descending
);
criterion_main!(benches);
