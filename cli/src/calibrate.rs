//! `sortnet calibrate`: finds the fastest backend at each size of a ladder for every
//! workload on this machine and saves the crossovers as the profile `auto` follows.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use indicatif::ProgressBar;
use sortnet::backend::{self, profile, profile::Profile, Device};
use sortnet::{KeyWidth, SortBackend, Workload};

use super::data::{measure, Contestant, Data, Kind};
use super::{fail, Outcome};

/// The seed of the random inputs (any fixed value; differs from bench's on purpose).
const SEED: u64 = 0xca11_b4a7_e000;

/// Each backend is timed in this many interleaved rounds per size.
const ROUNDS: usize = 3;

#[derive(clap::Args)]
pub struct Args {
    /// The largest size measured; the ladder is 16, 64, 256, ... (powers of 4) up to it.
    #[arg(long, default_value_t = 1 << 22)]
    max_size: usize,
    /// Seconds spent timing each backend at each size (in 3 interleaved rounds of at least
    /// 3 runs; the best run counts).
    #[arg(long, default_value_t = 0.1)]
    seconds: f64,
    /// Write the profile here instead of the cache folder.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Print the profile without saving it.
    #[arg(long)]
    dry_run: bool,
}

/// The data a workload is measured with (the key type does not change which backend wins:
/// every key type goes through the same unsigned core).
fn kind_for(workload: Workload) -> Kind {
    match workload {
        Workload::Nibbles => Kind::Nibbles,
        Workload::Keys(KeyWidth::W32) => Kind::U32,
        Workload::Keys(KeyWidth::W64) => Kind::U64,
        Workload::Pairs(KeyWidth::W32) => Kind::Pairs,
        Workload::Pairs(KeyWidth::W64) => Kind::Pairs64,
    }
}

/// Where a switch from one winner to the next is placed: the geometric middle of the two
/// ladder sizes, since throughput curves are smooth in log(size).
fn boundary(below: usize, above: usize) -> usize {
    ((below as f64 * above as f64).sqrt().round() as usize).clamp(below + 1, above)
}

/// The profile entries for one workload from the winner at each ladder size: one entry per
/// change of winner, the first from length 0.
fn crossovers<'a>(winners: &[(usize, &'a str)]) -> Vec<(usize, &'a str)> {
    let mut entries: Vec<(usize, &str)> = Vec::new();
    for (i, &(size, name)) in winners.iter().enumerate() {
        match entries.last() {
            None => entries.push((0, name)),
            Some(&(_, current)) if current != name => {
                entries.push((boundary(winners[i - 1].0, size), name))
            }
            _ => {}
        }
    }
    entries
}

pub fn run(args: &Args) -> Outcome {
    if args.max_size < 16 {
        return Err(fail!("--max-size must be at least 16"));
    }
    if !(args.seconds >= 0.0 && args.seconds < 3600.0) {
        return Err(fail!("--seconds must be at least 0 and under 3600"));
    }
    let ladder: Vec<usize> = std::iter::successors(Some(16usize), |s| s.checked_mul(4))
        .take_while(|&s| s <= args.max_size)
        .collect();
    let concrete: Vec<&'static dyn SortBackend> = backend::available()
        .into_iter()
        .filter(|b| b.name() != "auto")
        .collect();
    // `auto` never routes to a software GPU driver, so there is nothing to measure there.
    let candidates = |w: Workload| -> Vec<&'static dyn SortBackend> {
        concrete
            .iter()
            .copied()
            .filter(|b| b.supports(w) && b.device() != (Device::Gpu { software: true }))
            .collect()
    };
    let cells: usize = profile::WORKLOADS
        .iter()
        .map(|(w, _)| match candidates(*w).len() {
            0 | 1 => 0,
            n => n * ladder.len(),
        })
        .sum();
    let bar = if std::io::stdout().is_terminal() {
        ProgressBar::new(cells as u64)
    } else {
        ProgressBar::hidden()
    };
    let policy = super::data::Policy {
        min_reps: 3,
        max_reps: 50,
        budget: Duration::from_secs_f64(args.seconds / ROUNDS as f64),
    };

    let mut result = Profile {
        backends: concrete.iter().map(|b| b.name().to_string()).collect(),
        entries: Vec::new(),
    };
    for (workload, wname) in profile::WORKLOADS {
        let who = candidates(workload);
        match who.len() {
            0 => {
                println!("{wname}: no backend here does it");
                continue;
            }
            1 => {
                println!("{wname}: only {} does it", who[0].name());
                result
                    .entries
                    .push((workload, 0, who[0].name().to_string()));
                continue;
            }
            _ => {}
        }
        let kind = kind_for(workload);
        let mut winners: Vec<(usize, &'static str)> = Vec::new();
        for &size in &ladder {
            let data = Data::random(kind, size, SEED);
            // Interleaved rounds, best of all: a burst of load from other processes then
            // slows one round of every backend instead of every run of one backend.
            let mut best: Vec<Option<f64>> = vec![None; who.len()];
            let mut failed = vec![false; who.len()];
            for _ in 0..ROUNDS {
                for (i, &b) in who.iter().enumerate() {
                    if failed[i] {
                        continue;
                    }
                    bar.set_message(format!("{wname} {size} {}", b.name()));
                    match measure(&data, Contestant::Backend(b), policy) {
                        Ok(sample) => {
                            best[i] = Some(best[i].map_or(sample.best, |t| t.min(sample.best)))
                        }
                        Err(why) => {
                            failed[i] = true;
                            bar.suspend(|| println!("  {} at {size}: {why}", b.name()));
                        }
                    }
                }
            }
            bar.inc(who.len() as u64);
            // A backend that failed at this size is not a candidate here.
            let mut times: Vec<(f64, &'static str)> = (0..who.len())
                .filter(|&i| !failed[i])
                .filter_map(|i| Some((best[i]?, who[i].name())))
                .collect();
            times.sort_by(|a, b| a.0.total_cmp(&b.0));
            if let Some(&(best, name)) = times.first() {
                let margin = times.get(1).map_or(String::new(), |&(next, next_name)| {
                    format!(", {:.2}x {next_name}", next / best)
                });
                bar.suspend(|| {
                    println!("{wname} {size:>9}: {name} ({:.1} M/s{margin})", 1e-6 / best)
                });
                winners.push((size, name));
            }
        }
        for (from, name) in crossovers(&winners) {
            result.entries.push((workload, from, name.to_string()));
        }
    }
    bar.finish_and_clear();

    let text = result.to_text();
    if args.dry_run {
        print!("{text}");
        return Ok(());
    }
    let path = args.output.clone().or_else(profile::default_path).ok_or_else(|| {
        fail!("no cache folder to save the profile in: set XDG_CACHE_HOME or HOME, or pass --output")
    })?;
    result
        .save(&path)
        .map_err(|e| fail!("{}: cannot save the profile: {e}", path.display()))?;
    println!(
        "profile saved to {}; `auto` follows it from now on",
        path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{boundary, crossovers};

    #[test]
    fn crossovers_keep_one_entry_per_change_of_winner() {
        assert_eq!(crossovers(&[]), []);
        assert_eq!(crossovers(&[(16, "a"), (64, "a")]), [(0, "a")]);
        assert_eq!(
            crossovers(&[(16, "a"), (64, "b"), (256, "b"), (1024, "a")]),
            [(0, "a"), (32, "b"), (512, "a")]
        );
    }

    #[test]
    fn boundaries_sit_between_the_ladder_sizes() {
        assert_eq!(boundary(16, 64), 32);
        assert_eq!(boundary(1 << 20, 1 << 22), 1 << 21);
        assert_eq!(boundary(1, 2), 2);
    }
}
