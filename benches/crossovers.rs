//! Best-of-N timing of key sorts on short, cache-resident slices, where criterion's medians
//! on a loaded machine scatter: for each length, 7 rounds of calls over 8 random inputs,
//! the best round's mean ns per call (a copy of the input included, the same for every
//! backend). Used next to the `keys-small-*` criterion groups for
//! the crossovers in `src/backend/thresholds.rs` (BENCHMARKS.md, "Auto's crossovers").
//!
//! ```text
//! cargo bench --bench crossovers -- avx2,avx512,radix 256,1000,2048 [32|64]
//! ```

use std::time::Instant;

use sortnet::backend;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: cargo bench --bench crossovers -- BACKENDS SIZES [32|64]");
        std::process::exit(2);
    }
    let names: Vec<&str> = args[1].split(',').collect();
    let sizes: Vec<usize> = args[2]
        .split(',')
        .map(|s| s.parse().expect("sizes are numbers"))
        .collect();
    let wide = args.get(3).is_some_and(|s| s == "64");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut rng = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    for &n in &sizes {
        let calls = (200_000 / n.max(1)).clamp(20, 20_000);
        let keys64: Vec<Vec<u64>> = (0..8).map(|_| (0..n).map(|_| rng()).collect()).collect();
        let keys32: Vec<Vec<u32>> = keys64
            .iter()
            .map(|v| v.iter().map(|&x| (x >> 32) as u32).collect())
            .collect();
        print!("n={n:6}");
        for name in &names {
            let Some(b) = backend::by_name(name) else {
                print!("  {name}=n/a");
                continue;
            };
            let mut best = f64::MAX;
            for round in 0..7 {
                let t = Instant::now();
                for call in 0..calls {
                    let input = (call + round) % 8;
                    if wide {
                        let mut v = keys64[input].clone();
                        b.sort(&mut v).expect("sorts keys");
                        std::hint::black_box(&v);
                    } else {
                        let mut v = keys32[input].clone();
                        b.sort(&mut v).expect("sorts keys");
                        std::hint::black_box(&v);
                    }
                }
                best = best.min(t.elapsed().as_nanos() as f64 / calls as f64);
            }
            print!("  {name}={best:8.0}ns ({:.2}/key)", best / n.max(1) as f64);
        }
        println!();
    }
}
