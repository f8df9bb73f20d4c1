//! `auto` and the named backends against std's `sort_unstable` (floats:
//! `sort_unstable_by(total_cmp)`), one call at a time, for every key type at every power of
//! two: the table behind BENCHMARKS.md, "Every key type against std". Best-of-N timing as in
//! `crossovers.rs`: for each length, 9 rounds of calls over 8 random inputs (each round times
//! every contestant in turn), the best round's mean ns per call, a copy of the input included
//! (the same for every contestant). Floats are uniform in ±1e6 (no NaN: std's comparison
//! needs `total_cmp` for them anyway).
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo bench --bench against_std -- [TYPES] [FROM-TO] [BACKENDS]
//! RAYON_NUM_THREADS=1 cargo bench --bench against_std -- u8,u16 4-20 avx2,radix
//! ```
//!
//! TYPES defaults to every key type, FROM-TO to 4-20 (powers of two), BACKENDS to none
//! (`auto` and std only). Each row: std's and each contestant's ns per call, `auto`'s speed as
//! a multiple of std's, and (with BACKENDS) `auto`'s as a fraction of the fastest backend's.

use std::time::Instant;

use sortnet::{backend, Key};

/// A key type of the table: how to make one from random bits, and std's sort of it.
trait Contestant: Key {
    fn from_bits(bits: u64) -> Self;
    fn std_sort(keys: &mut [Self]);
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Contestant for $t {
            fn from_bits(bits: u64) -> Self {
                bits as $t
            }
            fn std_sort(keys: &mut [Self]) {
                keys.sort_unstable();
            }
        }
    )*};
}
integer!(u8, i8, u16, i16, u32, i32, u64, i64);

impl Contestant for f32 {
    fn from_bits(bits: u64) -> Self {
        ((bits >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6) as f32
    }
    fn std_sort(keys: &mut [Self]) {
        keys.sort_unstable_by(f32::total_cmp);
    }
}

impl Contestant for f64 {
    fn from_bits(bits: u64) -> Self {
        (bits >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6
    }
    fn std_sort(keys: &mut [Self]) {
        keys.sort_unstable_by(f64::total_cmp);
    }
}

/// xorshift64*: deterministic inputs.
fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut state = seed | 1;
    (0..n)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

/// A contestant: a sort of one slice.
type Sort<'a, K> = Box<dyn FnMut(&mut [K]) + 'a>;

/// Each contestant's best round's mean ns per call of its sort on a fresh copy of one of
/// `inputs`. The rounds take the contestants in turn, so a change of clock or load during
/// the measurement reaches every contestant alike (one after the other, the last ones
/// measured under other conditions than the first).
fn best_ns<K: Copy>(inputs: &[Vec<K>], sorts: &mut [Sort<'_, K>]) -> Vec<f64> {
    let n = inputs[0].len();
    let calls = (400_000 / n.max(1)).clamp(8, 40_000);
    let mut best = vec![f64::MAX; sorts.len()];
    let mut copy = inputs[0].clone();
    for round in 0..ROUNDS {
        for (sort, best) in sorts.iter_mut().zip(best.iter_mut()) {
            let t = Instant::now();
            for call in 0..calls {
                copy.copy_from_slice(&inputs[(call + round) % inputs.len()]);
                sort(&mut copy);
                std::hint::black_box(&copy);
            }
            *best = best.min(t.elapsed().as_nanos() as f64 / calls as f64);
        }
    }
    best
}

/// Rounds per length: the best one counts.
const ROUNDS: usize = 9;

fn table<K: Contestant>(sizes: &[usize], names: &[&str]) {
    print!(
        "{:<4} {:>8} {:>10} {:>10}",
        <K as Key>::NAME,
        "n",
        "std ns",
        "auto ns"
    );
    let named: Vec<Option<&'static dyn backend::SortBackend>> =
        names.iter().map(|name| backend::by_name(name)).collect();
    for name in names {
        print!(" {:>10}", format!("{name} ns"));
    }
    print!(" {:>9}", "auto/std");
    if !names.is_empty() {
        print!(" {:>10}", "auto/best");
    }
    println!();
    let auto = backend::auto();
    for &n in sizes {
        let inputs: Vec<Vec<K>> = (0..8)
            .map(|s| random(n, s + 1).into_iter().map(K::from_bits).collect())
            .collect();
        let mut sorts: Vec<Sort<'_, K>> = vec![
            Box::new(K::std_sort),
            Box::new(|k: &mut [K]| auto.sort(k).expect("auto sorts keys")),
        ];
        for b in named.iter().flatten() {
            sorts.push(Box::new(move |k: &mut [K]| b.sort(k).expect("sorts keys")));
        }
        let ns = best_ns(&inputs, &mut sorts);
        let (std_ns, auto_ns) = (ns[0], ns[1]);
        let mut own = ns[2..].iter().copied();
        print!("{:<4} {n:>8} {std_ns:>10.0} {auto_ns:>10.0}", "");
        for b in &named {
            match b {
                Some(_) => print!(" {:>10.0}", own.next().expect("one time per backend")),
                None => print!(" {:>10}", "n/a"),
            }
        }
        // Speeds: std's time over auto's; the fastest backend's time over auto's.
        print!(" {:>9.2}", std_ns / auto_ns);
        let fastest = ns[2..].iter().copied().fold(f64::MAX, f64::min);
        if fastest < f64::MAX {
            print!(" {:>10.2}", fastest / auto_ns);
        }
        println!();
    }
}

fn main() {
    // `cargo bench` passes `--bench`; the rest are ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let all = "u8,i8,u16,i16,u32,i32,f32,u64,i64,f64";
    let types: Vec<&str> = args
        .first()
        .map_or(all, String::as_str)
        .split(',')
        .collect();
    let (from, to) = args
        .get(1)
        .and_then(|r| r.split_once('-'))
        .map(|(a, b)| (a.parse().expect("FROM"), b.parse().expect("TO")))
        .unwrap_or((4u32, 20u32));
    let names: Vec<&str> = args
        .get(2)
        .map(|s| s.split(',').collect())
        .unwrap_or_default();
    let sizes: Vec<usize> = (from..=to).map(|k| 1usize << k).collect();
    println!(
        "one call at a time on {} rayon thread(s); ns per call, best of {ROUNDS} rounds, contestants in turn",
        rayon::current_num_threads()
    );
    for t in types {
        match t {
            "u8" => table::<u8>(&sizes, &names),
            "i8" => table::<i8>(&sizes, &names),
            "u16" => table::<u16>(&sizes, &names),
            "i16" => table::<i16>(&sizes, &names),
            "u32" => table::<u32>(&sizes, &names),
            "i32" => table::<i32>(&sizes, &names),
            "f32" => table::<f32>(&sizes, &names),
            "u64" => table::<u64>(&sizes, &names),
            "i64" => table::<i64>(&sizes, &names),
            "f64" => table::<f64>(&sizes, &names),
            other => eprintln!("unknown key type {other}"),
        }
    }
}
