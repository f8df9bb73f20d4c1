//! Best-of-N wall-clock timing of key sorts on one random input: the loop behind the
//! measurements quoted in `src/keys/radix.rs` and BENCHMARKS.md ("the best-of loop").
//! Criterion (`benches/keys.rs`) gives the medians the targets are judged by; this loop gives
//! quick A/B figures while tuning.
//!
//! ```text
//! cargo run --release --example radix_timing -- TYPE LOG2 REPS NAMES
//! ```
//!
//! TYPE: `u32` (uniform), `u32lo` / `u32hi` (a constant top byte / bottom byte), `u64`,
//! `f32` / `f64` (uniform in ±1e6); LOG2: log2 of the length; REPS: repetitions, each on a
//! fresh copy of the input; NAMES: comma-separated backend names (`radix`, `auto`, ...) or
//! `std` (`sort_unstable_by`), `vor` / `vor-mt` (`voracious_sort` / `voracious_mt_sort(2)`).
//! Prints the best time and every repetition's, in ms.
use sortnet::backend;
use std::time::Instant;
use voracious_radix_sort::RadixSort as _;

// The integration tests' generator (xorshift64*).
#[path = "../tests/common/mod.rs"]
mod common;
fn run<
    K: sortnet::Key
        + Copy
        + PartialOrd
        + Default
        + voracious_radix_sort::Radixable<K>
        + voracious_radix_sort::RadixKey
        + Send
        + Sync,
>(
    v0: &[K],
    reps: usize,
    names: &[&str],
) {
    for name in names {
        let mut best = f64::MAX;
        let mut all = vec![];
        for _ in 0..reps {
            let mut v = v0.to_vec();
            let t = Instant::now();
            match *name {
                "vor-mt" => v.voracious_mt_sort(2),
                "vor" => v.voracious_sort(),
                "std" => v.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap()),
                n => backend::by_name(n).unwrap().sort(&mut v).unwrap(),
            }
            let e = t.elapsed().as_secs_f64() * 1e3;
            best = best.min(e);
            all.push(format!("{e:.1}"));
            std::hint::black_box(&v);
        }
        println!("{name:8} best {best:9.4} ms  [{}]", all.join(" "));
    }
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n = 1usize << a[2].parse::<u32>().unwrap();
    let reps: usize = a[3].parse().unwrap();
    let names: Vec<&str> = a[4].split(',').collect();
    let mut r = common::Rng::new(n as u64);
    match a[1].as_str() {
        "u32" => run::<u32>(
            &(0..n)
                .map(|_| (r.next_u64() >> 32) as u32)
                .collect::<Vec<_>>(),
            reps,
            &names,
        ),
        "u32lo" => run::<u32>(
            &(0..n)
                .map(|_| 0x5a00_0000 | (r.next_u64() >> 40) as u32)
                .collect::<Vec<_>>(),
            reps,
            &names,
        ),
        "u32hi" => run::<u32>(
            &(0..n)
                .map(|_| 0x5a | ((r.next_u64() >> 40) as u32) << 8)
                .collect::<Vec<_>>(),
            reps,
            &names,
        ),
        "u64" => run::<u64>(
            &(0..n).map(|_| r.next_u64()).collect::<Vec<_>>(),
            reps,
            &names,
        ),
        "f64" => run::<f64>(
            &(0..n)
                .map(|_| (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6)
                .collect::<Vec<_>>(),
            reps,
            &names,
        ),
        _ => run::<f32>(
            &(0..n)
                .map(|_| ((r.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6) as f32)
                .collect::<Vec<_>>(),
            reps,
            &names,
        ),
    }
}
