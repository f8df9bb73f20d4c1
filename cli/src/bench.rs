//! `sortnet bench`: times every backend and the peers on the same random data per size and
//! prints one throughput table per workload.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use sortnet::backend;

use super::data::{contestants, measure, Contestant, Data, Kind, Policy, Sample};
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
}

/// The timings of one workload: one row per contestant, one cell per size.
pub struct Table {
    pub kind: Kind,
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
    let cells: usize = plan.iter().map(|(_, c)| c.len() * args.sizes.len()).sum();

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
        let mut table = Table {
            kind,
            sizes: args.sizes.clone(),
            rows: who.iter().map(|c| (c.name(), Vec::new())).collect(),
        };
        for &size in &args.sizes {
            let data = Data::random(kind, size, SEED);
            for (row, &c) in who.iter().enumerate() {
                bar.set_message(format!("{:?} {size} {}", kind, c.name()));
                table.rows[row].1.push(measure(&data, c, policy));
                bar.inc(1);
            }
        }
        bar.suspend(|| print!("{}", render(&table, args.stat)));
        tables.push(table);
    }
    bar.finish_and_clear();

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
    let _ = writeln!(
        out,
        "\n{}: M elements/s, {} of the runs{ratio}; * = auto's pick",
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
                && backend::auto_pick_for(table.kind.workload(), size, table.kind.map())
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
