//! `sortnet calibrate`: finds the fastest backend at each size of a ladder for every
//! workload on this machine and saves the crossovers as the profile `auto` follows. The
//! timing is the library's ([`sortnet::tuning::calibration`]), the same code that `auto`'s
//! short once-per-machine measurement runs, over more workloads, sizes and backends.

use std::io::IsTerminal;
use std::path::PathBuf;

use indicatif::ProgressBar;
use sortnet::backend;
use sortnet::tuning::calibration::{self, Plan};
use sortnet::tuning::profile;
use sortnet::SortBackend;

use super::{fail, Outcome};

#[derive(clap::Args)]
pub struct Args {
    /// The largest size measured; the ladder is 16, 64, 256, ... (powers of 4) up to it.
    #[arg(long, default_value_t = 1 << 22)]
    max_size: usize,
    /// Seconds spent timing each backend at each size (in 3 interleaved rounds of at least
    /// one run; the best run counts).
    #[arg(long, default_value_t = 0.1)]
    seconds: f64,
    /// Write the profile here instead of the cache folder.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Print the profile without saving it.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(args: &Args) -> Outcome {
    if args.max_size < 16 {
        return Err(fail!("--max-size must be at least 16"));
    }
    if !(args.seconds >= 0.0 && args.seconds < 3600.0) {
        return Err(fail!("--seconds must be at least 0 and under 3600"));
    }
    let plan = Plan::full(args.max_size, args.seconds);
    let concrete: Vec<&'static dyn SortBackend> = backend::available()
        .into_iter()
        .filter(|b| b.name() != "auto")
        .collect();
    let mut cells = 0;
    for (row, wname) in profile::rows() {
        match &plan.candidates(&concrete, row.workload, 0)[..] {
            [] => println!("{wname}: no backend here does it"),
            [only] => println!("{wname}: only {} does it", only.name()),
            several => cells += several.len() * plan.sizes.len(),
        }
    }
    let bar = if std::io::stdout().is_terminal() {
        ProgressBar::new(cells as u64)
    } else {
        ProgressBar::hidden()
    };
    let result = calibration::measure(&concrete, &plan, &mut |cell| {
        bar.inc(cell.times.len() as u64);
        let wname = profile::row_name(cell.row);
        let size = cell.size;
        for (name, time) in &cell.times {
            if let Err(why) = time {
                bar.suspend(|| println!("  {name} at {size}: {why}"));
            }
        }
        let Some((name, best)) = cell.winner() else {
            return;
        };
        let next = cell
            .times
            .iter()
            .filter_map(|(n, t)| Some((*n, *t.as_ref().ok()?)))
            .filter(|&(n, _)| n != name)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let margin = next.map_or(String::new(), |(next_name, next)| {
            format!(", {:.2}x {next_name}", next / best)
        });
        bar.suspend(|| println!("{wname} {size:>9}: {name} ({:.1} M/s{margin})", 1e-6 / best));
    });
    bar.finish_and_clear();

    let text = result.to_text();
    if args.dry_run {
        print!("{text}");
        return Ok(());
    }
    let names: Vec<&str> = concrete.iter().map(|b| b.name()).collect();
    let path = match &args.output {
        Some(path) => path.clone(),
        // The file `SORTNET_PROFILE` names, else this machine's in the cache folder.
        None => match backend::Options::from_env().profile {
            backend::ProfileChoice::File(path) => Some(path),
            _ => profile::cache_path(&names),
        }
        .ok_or_else(|| {
            fail!(
                "no cache folder to save the profile in: set XDG_CACHE_HOME or HOME, or \
                     pass --output"
            )
        })?,
    };
    result
        .save(&path)
        .map_err(|e| fail!("{}: cannot save the profile: {e}", path.display()))?;
    println!(
        "profile saved to {}; `auto` follows it from now on",
        path.display()
    );
    Ok(())
}
