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
//!
//! The keys analytics engines have, against std, up to 2^20 of the sizes: `keys-u128-random`
//! and `keys-u128-decimal` (`auto` and every CPU backend's `sort` against `sort_unstable`,
//! decimals being cents below 10^12 of either sign), and `strings-<shape>-<type>`
//! (`sort_strings` against `sort_unstable` and `sort`, and `argsort_strings` against a
//! stable `sort_by` of the indices) for `ascii` (random ASCII, 0 to 32 bytes) and `prefix20`
//! (the same behind 20 shared bytes), on `Vec<String>` and `Vec<&[u8]>`.

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

/// The sizes of the analytics groups: those of [`sizes`] up to 2^20.
fn sizes_to_20() -> Vec<u32> {
    sizes().into_iter().filter(|&l| l <= 20).collect()
}

/// Times `sorters` on `data` under `group`, one id per sorter and size.
fn run_group<T: Clone>(c: &mut Criterion, group: &str, inputs: &[Vec<T>], sorters: &[Sorter<T>]) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for data in inputs {
        let n = data.len();
        g.throughput(Throughput::Elements(n as u64));
        for (name, sort) in sorters {
            g.bench_with_input(BenchmarkId::new(name, n), data, |b, data| {
                b.iter_batched(
                    || data.clone(),
                    |mut v| {
                        sort(&mut v);
                        v
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    g.finish();
}

/// `u128` keys: random bits, and decimals (cents below 10^12, either sign, as `i128` bits).
fn wide(c: &mut Criterion) {
    for dist in ["random", "decimal"] {
        let inputs: Vec<Vec<u128>> = sizes_to_20()
            .into_iter()
            .map(|log2| {
                let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ log2 as u64);
                (0..1usize << log2)
                    .map(|_| match dist {
                        "random" => (u128::from(r.next()) << 64) | u128::from(r.next()),
                        _ => ((r.next() % 2_000_000_000_000) as i128 - 1_000_000_000_000) as u128,
                    })
                    .collect()
            })
            .collect();
        let mut sorters: Vec<Sorter<u128>> = backend::available()
            .into_iter()
            .filter(|b| b.supports_key::<u128>())
            .map(|b| {
                let s: SortFn<u128> = Box::new(move |v: &mut Vec<u128>| {
                    b.sort(v).expect("backend sorts what it supports")
                });
                (b.name().to_string(), s)
            })
            .collect();
        sorters.push((
            "std-unstable".into(),
            Box::new(|v: &mut Vec<u128>| v.sort_unstable()),
        ));
        run_group(c, &format!("keys-u128-{dist}"), &inputs, &sorters);
    }
}

/// Random ASCII strings of 0 to 32 bytes, behind `prefix` shared bytes.
fn ascii(n: usize, prefix: usize) -> Vec<String> {
    let mut r = Rng(0x2545_f491_4f6c_dd1d ^ n as u64);
    (0..n)
        .map(|_| {
            let len = (r.next() % 33) as usize;
            let mut s = "p".repeat(prefix);
            s.extend((0..len).map(|_| (b' ' + (r.next() % 95) as u8) as char));
            s
        })
        .collect()
}

/// The sorters of byte strings: `auto`'s `sort_strings` and `argsort_strings` against std.
fn string_sorters<T: AsRef<[u8]> + Ord + Send + Sync + 'static>() -> Vec<Sorter<T>> {
    let auto = backend::auto();
    vec![
        (
            "auto".into(),
            Box::new(move |v: &mut Vec<T>| auto.sort_strings(v).expect("CPU sorts strings")),
        ),
        (
            "std-unstable".into(),
            Box::new(|v: &mut Vec<T>| v.sort_unstable()),
        ),
        ("std-stable".into(), Box::new(|v: &mut Vec<T>| v.sort())),
        (
            "auto-argsort".into(),
            Box::new(move |v: &mut Vec<T>| {
                std::hint::black_box(auto.argsort_strings(v).expect("CPU sorts strings"));
            }),
        ),
        (
            "std-argsort".into(),
            Box::new(|v: &mut Vec<T>| {
                let mut order: Vec<usize> = (0..v.len()).collect();
                order.sort_by(|&a, &b| v[a].as_ref().cmp(v[b].as_ref()));
                std::hint::black_box(order);
            }),
        ),
    ]
}

fn strings(c: &mut Criterion) {
    for (shape, prefix) in [("ascii", 0), ("prefix20", 20)] {
        let owned: Vec<Vec<String>> = sizes_to_20()
            .into_iter()
            .map(|log2| ascii(1 << log2, prefix))
            .collect();
        run_group(
            c,
            &format!("strings-{shape}-String"),
            &owned,
            &string_sorters(),
        );
        // Borrowed slices of the same strings, which stay alive for the whole group.
        let owned: &'static [Vec<String>] = Box::leak(owned.into_boxed_slice());
        let borrowed: Vec<Vec<&'static [u8]>> = owned
            .iter()
            .map(|v| v.iter().map(String::as_bytes).collect())
            .collect();
        run_group(
            c,
            &format!("strings-{shape}-bytes"),
            &borrowed,
            &string_sorters(),
        );
    }
}

fn benches(c: &mut Criterion) {
    group::<u32>(c);
    group::<u64>(c);
    group::<f32>(c);
    small::<u32>(c);
    small::<u64>(c);
    wide(c);
    strings(c);
}

criterion_group!(keys, benches);
criterion_main!(keys);
