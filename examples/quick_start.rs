//! Quick start: `backend::auto()` on every workload, with the backend it picked and the
//! time it took.
//!
//! ```text
//! cargo run --release --example quick_start
//! ```

use std::time::Instant;

use sortnet::{backend, KeyWidth, Workload};

/// A small reproducible generator (SplitMix64), so the example needs no `rand`.
fn random_words(n: usize, mut seed: u64) -> Vec<u64> {
    (0..n)
        .map(|_| {
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// Which backend `auto` sends this call to, for the printout.
fn picked(workload: Workload, len: usize) -> &'static str {
    sortnet::tuning::auto_pick(workload, len).map_or("none", |b| b.name())
}

fn main() -> Result<(), sortnet::Error> {
    let n = 1 << 20;
    println!("backends usable here:");
    for b in backend::available() {
        println!("  {:<16} {}", b.name(), b.status());
    }

    // Nibble sort: every word's 16 nibbles, largest on top.
    let mut words = vec![0x42badc0ffeed00d5u64, 0x0badbeef];
    backend::auto().sort_nibbles(&mut words)?;
    assert_eq!(words, [0xffeedddcba542000, 0xfeedbba000000000]);
    println!("\nnibbles: 0x42badc0ffeed00d5 -> {:#018x}", words[0]);

    let mut words = random_words(n, 1);
    let t = Instant::now();
    backend::auto().sort_nibbles(&mut words)?;
    report("nibbles", n, t, picked(Workload::Nibbles, n));

    // Keys: the same call for every key type; floats sort in IEEE-754 total order.
    let bits = random_words(n, 2);
    let mut u32s: Vec<u32> = bits.iter().map(|&b| b as u32).collect();
    let t = Instant::now();
    backend::auto().sort(&mut u32s)?;
    report("u32", n, t, picked(Workload::Keys(KeyWidth::W32), n));
    assert!(u32s.windows(2).all(|w| w[0] <= w[1]));

    let mut i64s: Vec<i64> = bits.iter().map(|&b| b as i64).collect();
    let t = Instant::now();
    backend::auto().sort(&mut i64s)?;
    report("i64", n, t, picked(Workload::Keys(KeyWidth::W64), n));
    assert!(i64s.windows(2).all(|w| w[0] <= w[1]));

    let mut f32s: Vec<f32> = bits.iter().map(|&b| (b as i32) as f32 / 1e3).collect();
    f32s[..4].copy_from_slice(&[f32::NAN, -0.0, f32::NEG_INFINITY, 0.0]);
    let t = Instant::now();
    backend::auto().sort(&mut f32s)?;
    report("f32", n, t, picked(Workload::Keys(KeyWidth::W32), n));
    assert!(f32s.windows(2).all(|w| w[0].total_cmp(&w[1]).is_le()));
    println!(
        "  f32 ends: first {} last {} (NaN sorts after +inf)",
        f32s[0],
        f32s[n - 1]
    );

    let mut f64s: Vec<f64> = bits.iter().map(|&b| (b as i64) as f64).collect();
    let t = Instant::now();
    backend::auto().sort(&mut f64s)?;
    report("f64", n, t, picked(Workload::Keys(KeyWidth::W64), n));

    // Bad input is an Err, never a panic, and leaves the data alone.
    let mut keys = [3u32, 1, 2];
    let mut values = [30u32, 10];
    let err = backend::auto()
        .sort_pairs(&mut keys, &mut values)
        .unwrap_err();
    println!("\nmismatched pairs: {err}");
    assert_eq!(keys, [3, 1, 2]);
    Ok(())
}

fn report(what: &str, n: usize, started: Instant, backend: &str) {
    let secs = started.elapsed().as_secs_f64();
    println!(
        "  {what:<8} {n} elements in {:>8.3} ms ({:.0} M/s) by {backend}",
        secs * 1e3,
        n as f64 / secs / 1e6
    );
}
