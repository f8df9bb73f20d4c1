//! Key sort throughput: every available backend that sorts the key type, next to the crates a
//! user would pick instead, in the same criterion group.
//!
//! Groups are `keys-<type>-<distribution>` (`u32`, `u64`, `f32` × `random`, `few`), ids
//! `<sorter>/<n>` for n = 2^10, 2^16, 2^20, 2^24. Run a subset with criterion's filter (a
//! regular expression), e.g.
//!
//! ```text
//! cargo bench --bench keys -- 'keys-u32-random/.*/1048576'
//! cargo bench --bench keys -- 'keys-u64-few/(auto|rdst)/'
//! ```
//!
//! `SORTNET_BENCH_SIZES=10,16` picks the log2 sizes (default `10,16,20,24`). The
//! `keys-small-<type>` groups time slices of 16 to 4096 keys, where `auto`'s crossovers lie.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use rayon::slice::ParallelSliceMut;
use rdst::RadixSort as _;
use sortnet::{backend, Device, Key, Workload};
use voracious_radix_sort::RadixSort as _;

/// xorshift64*: fast, deterministic, good enough for benchmark inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The inputs: `random` covers the whole key range (floats: uniform in ±1e6), `few` draws
/// from 64 distinct random keys.
trait BenchKey: Key + Default + PartialOrd {
    fn random(r: &mut Rng) -> Self;
}

impl BenchKey for u32 {
    fn random(r: &mut Rng) -> Self {
        (r.next() >> 32) as u32
    }
}

impl BenchKey for u64 {
    fn random(r: &mut Rng) -> Self {
        r.next()
    }
}

impl BenchKey for f32 {
    fn random(r: &mut Rng) -> Self {
        ((r.next() >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6) as f32
    }
}

fn input<K: BenchKey>(dist: &str, n: usize) -> Vec<K> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ n as u64);
    match dist {
        "random" => (0..n).map(|_| K::random(&mut r)).collect(),
        _ => {
            let pool: Vec<K> = (0..64).map(|_| K::random(&mut r)).collect();
            (0..n).map(|_| pool[(r.next() % 64) as usize]).collect()
        }
    }
}

fn sizes() -> Vec<u32> {
    std::env::var("SORTNET_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10, 16, 20, 24])
}

/// A sort of a `Vec<K>`.
type SortFn<K> = Box<dyn Fn(&mut Vec<K>)>;

/// One sorter of `K`s under a name.
type Sorter<K> = (String, SortFn<K>);

/// The peers for each key type (each sorts in the same order as sortnet: `total_cmp` for
/// floats; no NaN is generated, so the radix crates' float orders agree).
trait Peers: BenchKey + Sized {
    fn peers() -> Vec<Sorter<Self>>;
}

macro_rules! int_peers {
    ($t:ty) => {
        impl Peers for $t {
            fn peers() -> Vec<Sorter<Self>> {
                let threads = rayon::current_num_threads();
                vec![
                    (
                        "std-unstable".into(),
                        Box::new(|v: &mut Vec<$t>| v.sort_unstable()),
                    ),
                    (
                        "rayon-par-unstable".into(),
                        Box::new(|v: &mut Vec<$t>| v.par_sort_unstable()),
                    ),
                    (
                        "radsort".into(),
                        Box::new(|v: &mut Vec<$t>| radsort::sort(v)),
                    ),
                    (
                        "voracious".into(),
                        Box::new(|v: &mut Vec<$t>| v.voracious_sort()),
                    ),
                    (
                        "voracious-mt".into(),
                        Box::new(move |v: &mut Vec<$t>| v.voracious_mt_sort(threads)),
                    ),
                    (
                        "rdst".into(),
                        Box::new(|v: &mut Vec<$t>| v.radix_sort_unstable()),
                    ),
                ]
            }
        }
    };
}
int_peers!(u32);
int_peers!(u64);

impl Peers for f32 {
    fn peers() -> Vec<Sorter<Self>> {
        let threads = rayon::current_num_threads();
        vec![
            (
                "std-unstable".into(),
                Box::new(|v: &mut Vec<f32>| v.sort_unstable_by(f32::total_cmp)),
            ),
            (
                "rayon-par-unstable".into(),
                Box::new(|v: &mut Vec<f32>| v.par_sort_unstable_by(f32::total_cmp)),
            ),
            (
                "radsort".into(),
                Box::new(|v: &mut Vec<f32>| radsort::sort(v)),
            ),
            (
                "voracious".into(),
                Box::new(|v: &mut Vec<f32>| v.voracious_sort()),
            ),
            (
                "voracious-mt".into(),
                Box::new(move |v: &mut Vec<f32>| v.voracious_mt_sort(threads)),
            ),
            (
                "rdst".into(),
                Box::new(|v: &mut Vec<f32>| v.radix_sort_unstable()),
            ),
        ]
    }
}

/// Not a sorter: copies the slice into a buffer that was written before (no page faults),
/// the bandwidth reference for "fraction of a plain copy" in BENCHMARKS.md ("CPU key sort, one thread" and "CPU key sort, all threads").
fn copy_baseline<K: Peers>() -> Sorter<K> {
    let buffer = std::cell::RefCell::new(Vec::<K>::new());
    (
        "copy-baseline".into(),
        Box::new(move |v: &mut Vec<K>| {
            let mut b = buffer.borrow_mut();
            if b.len() != v.len() {
                *b = v.clone();
            }
            b.copy_from_slice(v);
            std::hint::black_box(&mut *b);
        }),
    )
}

fn sorters<K: Peers>() -> Vec<Sorter<K>> {
    let mut list: Vec<Sorter<K>> = backend::available()
        .into_iter()
        .filter(|b| b.supports(Workload::Keys(K::WIDTH)))
        // Software GPU drivers (lavapipe) emulate the GPU on these same CPU cores: not a
        // figure anyone would use; real-GPU figures are measured on real GPUs.
        .filter(|b| b.device() != Device::Gpu { software: true })
        .map(|b| {
            let s: SortFn<K> =
                Box::new(move |v: &mut Vec<K>| b.sort(v).expect("backend sorts what it supports"));
            (b.name().to_string(), s)
        })
        .collect();
    list.extend(K::peers());
    list
}

fn group<K: Peers>(c: &mut Criterion) {
    for dist in ["random", "few"] {
        let mut g = c.benchmark_group(format!("keys-{}-{dist}", K::NAME));
        let mut sorters = sorters::<K>();
        sorters.push(copy_baseline::<K>());
        for log2 in sizes() {
            let n = 1usize << log2;
            let data = input::<K>(dist, n);
            g.throughput(Throughput::Elements(n as u64));
            if log2 >= 22 {
                g.sample_size(10)
                    .sampling_mode(criterion::SamplingMode::Flat)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(3));
            } else {
                g.sample_size(20)
                    .sampling_mode(criterion::SamplingMode::Auto)
                    .warm_up_time(Duration::from_millis(300))
                    .measurement_time(Duration::from_secs(1));
            }
            let batch = if n >= 1 << 16 {
                BatchSize::LargeInput
            } else {
                BatchSize::SmallInput
            };
            for (name, sort) in &sorters {
                g.bench_with_input(BenchmarkId::new(name, n), &data, |b, data| {
                    b.iter_batched(
                        || data.clone(),
                        |mut v| {
                            sort(&mut v);
                            v
                        },
                        batch,
                    )
                });
            }
        }
        g.finish();
    }
}

/// Small slices, where `auto` hands over from the SIMD networks to radix
/// (`thresholds::KEYS32_RADIX_MIN_LEN` and `KEYS64_RADIX_MIN_LEN`) and radix from insertion
/// sort to LSD (`radix::INSERTION_MAX_LEN`): `keys-small-<type>`, random keys.
fn small<K: Peers>(c: &mut Criterion) {
    let mut g = c.benchmark_group(format!("keys-small-{}", K::NAME));
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600));
    let sorters: Vec<Sorter<K>> = sorters::<K>()
        .into_iter()
        .filter(|(name, _)| !name.contains("voracious-mt") && !name.contains("rayon"))
        .collect();
    for n in [16, 48, 64, 256, 1000, 1500, 2048, 3072, 4096] {
        let data = input::<K>("random", n);
        g.throughput(Throughput::Elements(n as u64));
        for (name, sort) in &sorters {
            g.bench_with_input(BenchmarkId::new(name, n), &data, |b, data| {
                b.iter_batched(
                    || data.clone(),
                    |mut v| {
                        sort(&mut v);
                        v
                    },
                    BatchSize::SmallInput,
                )
            });
        }
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    group::<u32>(c);
    group::<u64>(c);
    group::<f32>(c);
    small::<u32>(c);
    small::<u64>(c);
}

criterion_group!(keys, benches);
criterion_main!(keys);
