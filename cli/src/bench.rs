//! `sortnet bench`: times every backend and the peers on the same data per size and prints
//! one throughput table per workload and input order.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use sortnet::tuning;

use super::data::{contestants, measure, Contestant, Data, Kind, Policy, Rng, Sample, ToolKey};
use super::{fail, Outcome};

/// Sizes timed when `--sizes` is not given: one that fits in L1/L2, one in L2/L3, one in
/// memory. With every workload and the CPU backends this takes well under a minute on two
/// cores.
const DEFAULT_SIZES: [usize; 3] = [1 << 10, 1 << 16, 1 << 20];

/// The seed of the random inputs, fixed so that runs are comparable.
const SEED: u64 = 0x5eed_5047_7e75;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Stat {
    /// The median run (steadier under load).
    Median,
    /// The fastest run.
    Best,
}

#[derive(clap::Args)]
pub struct Args {
    /// Workloads to time, comma-separated; all when absent.
    #[arg(long, value_enum, value_delimiter = ',')]
    workload: Vec<Kind>,
    /// Element counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_SIZES)]
    sizes: Vec<usize>,
    /// Only these backends and peers (`std`, `rayon`, `reference`), comma-separated; ratios
    /// are printed when the base (std, or the nibble reference) is among them.
    #[arg(long, value_delimiter = ',')]
    backends: Vec<String>,
    /// Also write an SVG chart of throughput against size to this file.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Which run the tables and the chart report.
    #[arg(long, value_enum, default_value = "median")]
    stat: Stat,
    /// Seconds to spend timing each backend at each size (at least 3 runs).
    #[arg(long, default_value_t = 0.3)]
    seconds: f64,
    /// Input orders, comma-separated (key and pair sorts): the random keys as they are or
    /// arranged; with `random` among several, a last table gives each order's time
    /// relative to random keys.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "random")]
    order: Vec<Order>,
}

/// How the input keys are arranged: what users re-sort is often partly sorted already.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Order {
    /// Uniformly random bits.
    Random,
    Ascending,
    Descending,
    /// Ascending to the middle, then descending.
    OrganPipe,
    /// Two ascending halves one after the other.
    SortedHalves,
    /// Two ascending sequences taking turns, element by element.
    InterleavedHalves,
    /// Ascending runs of about sqrt(n) keys each.
    Sawtooth,
    /// Ascending, then 1% of the keys swapped to random places.
    Noisy,
    /// Sixteen distinct values in random order.
    FewDistinct,
}

impl Order {
    /// Arranges the random `keys` in this order (the same multiset, except
    /// [`FewDistinct`](Order::FewDistinct), which draws from 16 of them).
    fn arrange<K: ToolKey>(self, keys: &mut [K], rng: &mut Rng) {
        let n = keys.len();
        let below = |rng: &mut Rng, n: usize| (rng.next_u64() % n as u64) as usize;
        match self {
            Order::Random => {}
            Order::Ascending => keys.sort_unstable_by(K::key_cmp),
            Order::Descending => {
                keys.sort_unstable_by(K::key_cmp);
                keys.reverse();
            }
            Order::OrganPipe => {
                keys.sort_unstable_by(K::key_cmp);
                let sorted = keys.to_vec();
                let (front, back) = keys.split_at_mut(n.div_ceil(2));
                for (slot, key) in front.iter_mut().zip(sorted.iter().step_by(2)) {
                    *slot = *key;
                }
                for (slot, key) in back.iter_mut().rev().zip(sorted.iter().skip(1).step_by(2)) {
                    *slot = *key;
                }
            }
            Order::SortedHalves => {
                let (front, back) = keys.split_at_mut(n / 2);
                front.sort_unstable_by(K::key_cmp);
                back.sort_unstable_by(K::key_cmp);
            }
            Order::InterleavedHalves => {
                let (front, back) = keys.split_at_mut(n / 2);
                front.sort_unstable_by(K::key_cmp);
                back.sort_unstable_by(K::key_cmp);
                let (a, b) = (front.to_vec(), back.to_vec());
                let mut turns = b.iter().zip(&a).flat_map(|(x, y)| [*x, *y]);
                let mut rest = b.iter().skip(a.len());
                for slot in keys.iter_mut() {
                    *slot = turns
                        .next()
                        .or_else(|| rest.next().copied())
                        .expect("n keys");
                }
            }
            Order::Sawtooth => {
                let run = (n as f64).sqrt().ceil().max(1.0) as usize;
                keys.chunks_mut(run)
                    .for_each(|c| c.sort_unstable_by(K::key_cmp));
            }
            Order::Noisy => {
                keys.sort_unstable_by(K::key_cmp);
                for _ in 0..n / 100 {
                    let (i, j) = (below(rng, n), below(rng, n));
                    keys.swap(i, j);
                }
            }
            Order::FewDistinct => {
                let values: Vec<K> = keys.iter().take(16).copied().collect();
                for key in keys.iter_mut() {
                    *key = values[below(rng, values.len())];
                }
            }
        }
    }

    /// `data` arranged in this order; `Err` for calls whose keys are made later (records,
    /// argsort, select...) and for nibble words.
    fn apply(self, data: &mut Data, seed: u64) -> Result<(), String> {
        let rng = &mut Rng::new(seed ^ self as u64);
        match data {
            _ if self == Order::Random => {}
            Data::U32(k) | Data::Pairs32(k, _) | Data::PairsU64v(k, _) => self.arrange(k, rng),
            Data::I32(k) => self.arrange(k, rng),
            Data::F32(k) => self.arrange(k, rng),
            Data::U64(k) | Data::Pairs64(k, _) => self.arrange(k, rng),
            Data::I64(k) => self.arrange(k, rng),
            Data::F64(k) => self.arrange(k, rng),
            Data::U8(k) => self.arrange(k, rng),
            Data::U16(k) => self.arrange(k, rng),
            Data::Nibbles(_) | Data::Call(..) => {
                return Err("--order applies to key and pair sorts only".into())
            }
        }
        Ok(())
    }
}

/// The timings of one workload: one row per contestant, one cell per size.
pub struct Table {
    pub kind: Kind,
    pub order: Order,
    pub sizes: Vec<usize>,
    pub rows: Vec<(&'static str, Vec<Result<Sample, String>>)>,
}

impl Table {
    /// Millions of elements per second of row `r` at size index `s`, by `stat`.
    pub fn throughput(&self, r: usize, s: usize, stat: Stat) -> Option<f64> {
        let sample = self.rows[r].1[s].as_ref().ok()?;
        let secs = match stat {
            Stat::Median => sample.median,
            Stat::Best => sample.best,
        };
        Some(1e-6 / secs)
    }
}

pub fn run(args: &Args) -> Outcome {
    if args.sizes.contains(&0) {
        return Err(fail!("--sizes: every size must be at least 1"));
    }
    if !(args.seconds >= 0.0 && args.seconds < 3600.0) {
        return Err(fail!("--seconds must be at least 0 and under 3600"));
    }
    let kinds: Vec<Kind> = if args.workload.is_empty() {
        Kind::ALL.to_vec()
    } else {
        args.workload.clone()
    };
    let policy = Policy {
        min_reps: 3,
        max_reps: 50,
        budget: Duration::from_secs_f64(args.seconds),
    };
    let plan: Vec<(Kind, Vec<Contestant>)> = kinds
        .iter()
        .map(|&kind| contestants(kind, &args.backends).map(|c| (kind, c)))
        .collect::<Result<_, _>>()?;
    let cells: usize = plan
        .iter()
        .map(|(_, c)| c.len() * args.sizes.len())
        .sum::<usize>()
        * args.order.len();

    let interactive = std::io::stdout().is_terminal();
    let bar = if interactive {
        let bar = ProgressBar::new(cells as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}")
                .expect("a valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    println!("{}", machine_line());
    let mut tables = Vec::new();
    for (kind, who) in plan {
        for &order in &args.order {
            let mut table = Table {
                kind,
                order,
                sizes: args.sizes.clone(),
                rows: who.iter().map(|c| (c.name(), Vec::new())).collect(),
            };
            for &size in &args.sizes {
                let mut data = Data::random(kind, size, SEED);
                order.apply(&mut data, SEED).map_err(|e| fail!("{e}"))?;
                for (row, &c) in who.iter().enumerate() {
                    bar.set_message(format!("{kind:?} {order:?} {size} {}", c.name()));
                    table.rows[row].1.push(measure(&data, c, policy));
                    bar.inc(1);
                }
            }
            bar.suspend(|| print!("{}", render(&table, args.stat)));
            tables.push(table);
        }
    }
    bar.finish_and_clear();
    if args.order.len() > 1 && args.order.contains(&Order::Random) {
        print!("{}", render_against_random(&tables, args.stat));
    }

    if let Some(path) = &args.plot {
        super::plot::write_svg(path, &tables, args.stat)?;
        println!("chart written to {}", path.display());
    }
    let failures = tables
        .iter()
        .flat_map(|t| t.rows.iter())
        .filter(|(_, cells)| cells.iter().any(|c| c.is_err()))
        .count();
    if failures > 0 {
        return Err(fail!(
            "{failures} backend(s) failed; see the notes under the tables"
        ));
    }
    Ok(())
}

/// The CPU model and thread count, so that a pasted table says where it was measured.
pub fn machine_line() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("machine: {model}, {threads} threads")
}

/// One workload's table as text: throughput in M elements/s and the ratio to the first
/// peer; `*` marks the backend `auto` picks at that size.
pub fn render(table: &Table, stat: Stat) -> String {
    let base_row = table
        .rows
        .iter()
        .position(|(name, _)| *name == table.kind.peers()[0].name());
    let mut out = String::new();
    let ratio = match base_row {
        Some(_) => format!(" (ratio to {})", table.kind.peers()[0].name()),
        None => String::new(),
    };
    let order = match table.order {
        Order::Random => String::new(),
        other => format!(
            ", {} input",
            other
                .to_possible_value()
                .expect("no skipped variants")
                .get_name()
        ),
    };
    let _ = writeln!(
        out,
        "\n{}{order}: M elements/s, {} of the runs{ratio}; * = auto's pick",
        table.kind.title(),
        match stat {
            Stat::Median => "median",
            Stat::Best => "best",
        },
    );
    let _ = write!(out, "{:<16}", "backend");
    for size in &table.sizes {
        let _ = write!(out, "{size:>20}");
    }
    out.push('\n');
    let mut notes = Vec::new();
    for (r, (name, cells)) in table.rows.iter().enumerate() {
        let _ = write!(out, "{name:<16}");
        for (s, &size) in table.sizes.iter().enumerate() {
            let picked = table.kind.follows_auto_pick()
                && tuning::auto_pick_for(table.kind.workload(), size, table.kind.map())
                    .is_some_and(|b| b.name() == *name);
            let cell = match (
                table.throughput(r, s, stat),
                base_row.and_then(|b| table.throughput(b, s, stat)),
            ) {
                (Some(t), Some(base)) => format!("{t:.1} ({:.2}x)", t / base),
                (Some(t), None) => format!("{t:.1}"),
                (None, _) => {
                    if let Err(why) = &cells[s] {
                        notes.push(format!("{name} at {size}: {why}"));
                    }
                    "failed".to_string()
                }
            };
            let _ = write!(
                out,
                "{:>20}",
                format!("{cell}{}", if picked { "*" } else { " " })
            );
        }
        out.push('\n');
    }
    for note in notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

/// Each contestant's time on every arranged input relative to its time on random keys of the
/// same workload and size (below 1: faster than random).
fn render_against_random(tables: &[Table], stat: Stat) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\ntime relative to random keys ({} runs)",
        match stat {
            Stat::Median => "median",
            Stat::Best => "best",
        }
    );
    let sizes = tables.first().map_or(&[][..], |t| &t.sizes[..]);
    let _ = write!(out, "{:<12}{:<20}{:<12}", "workload", "order", "backend");
    for size in sizes {
        let _ = write!(out, "{size:>10}");
    }
    out.push('\n');
    for random in tables.iter().filter(|t| t.order == Order::Random) {
        for table in tables
            .iter()
            .filter(|t| t.kind == random.kind && t.order != Order::Random)
        {
            for (r, (name, _)) in table.rows.iter().enumerate() {
                let name_of = |o: Order| o.to_possible_value().expect("no skipped variants");
                let _ = write!(
                    out,
                    "{:<12}{:<20}{name:<12}",
                    format!("{:?}", table.kind).to_lowercase(),
                    name_of(table.order).get_name()
                );
                for s in 0..table.sizes.len() {
                    let cell = match (random.throughput(r, s, stat), table.throughput(r, s, stat)) {
                        (Some(base), Some(t)) => format!("{:.2}", base / t),
                        _ => "-".to_string(),
                    };
                    let _ = write!(out, "{cell:>10}");
                }
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arranged(order: Order, n: usize) -> Vec<u32> {
        let mut keys: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) % 1000)
            .collect();
        order.arrange(&mut keys, &mut Rng::new(7));
        keys
    }

    #[test]
    fn arranged_inputs_have_their_shape_and_keep_the_keys() {
        for n in [0, 1, 2, 3, 10, 101, 1000] {
            let mut want = arranged(Order::Random, n);
            want.sort_unstable();
            for order in Order::value_variants() {
                let keys = arranged(*order, n);
                let ascending = |s: &[u32]| s.windows(2).all(|w| w[0] <= w[1]);
                let descending = |s: &[u32]| s.windows(2).all(|w| w[0] >= w[1]);
                let half = n / 2;
                let shaped = match order {
                    Order::Random | Order::Noisy => true,
                    Order::Ascending => ascending(&keys),
                    Order::Descending => descending(&keys),
                    Order::OrganPipe => {
                        ascending(&keys[..n.div_ceil(2)]) && descending(&keys[n.div_ceil(2)..])
                    }
                    Order::SortedHalves => ascending(&keys[..half]) && ascending(&keys[half..]),
                    Order::InterleavedHalves => {
                        let (even, odd): (Vec<u32>, Vec<u32>) = (
                            keys.iter().step_by(2).copied().collect(),
                            keys.iter().skip(1).step_by(2).copied().collect(),
                        );
                        ascending(&even[..half.min(even.len())]) && ascending(&odd)
                    }
                    Order::Sawtooth => {
                        let run = (n as f64).sqrt().ceil().max(1.0) as usize;
                        keys.chunks(run).all(ascending)
                    }
                    Order::FewDistinct => {
                        let mut distinct = keys.clone();
                        distinct.sort_unstable();
                        distinct.dedup();
                        distinct.len() <= 16 && keys.iter().all(|k| want.binary_search(k).is_ok())
                    }
                };
                assert!(shaped, "{order:?} at {n}: {keys:?}");
                if *order != Order::FewDistinct {
                    let mut got = keys.clone();
                    got.sort_unstable();
                    assert_eq!(got, want, "{order:?} at {n} changed the keys");
                }
            }
        }
        let noisy = arranged(Order::Noisy, 1000);
        let out_of_place = noisy.windows(2).filter(|w| w[0] > w[1]).count();
        assert!((1..=20).contains(&out_of_place), "{out_of_place} descents");
    }
}
