//! `sortnet`: the command-line tool. Sorts files of keys or nibble words with any backend,
//! benchmarks and calibrates the backends on this machine, and lists them.
//!
//! Argument parsing (clap) lives here, one module per command beside it.

mod backends;
mod bench;
mod calibrate;
mod calls;
mod data;
mod io;
mod plot;
mod sort;

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// SIMD sorting networks on the CPU, Vulkan compute on the GPU, one API.
#[derive(Parser)]
#[command(name = "sortnet", version, about, long_about = None)]
struct Cli {
    /// Neither read nor measure a calibration profile (same as SORTNET_PROFILE=0): `auto`
    /// uses the built-in thresholds.
    #[arg(long, global = true)]
    no_profile: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Time every backend and the std/rayon peers on random data; print throughput tables.
    ///
    /// Without options: every workload at 1024, 65536 and 1048576 elements (under a minute
    /// on two cores). Software GPU drivers (lavapipe) are skipped unless --backends names
    /// them. `*` marks the backend `auto` picks.
    Bench(bench::Args),
    /// Sort a file of keys: raw little-endian binary, or one number per line.
    Sort(sort::SortArgs),
    /// Sort the 16 nibbles of each 64-bit hex word, one word per line (0x prefix optional).
    Nibbles(sort::NibbleArgs),
    /// List the backends usable here, their status, and what `auto` picks.
    Backends,
    /// Measure which backend is fastest at each size here and save it as the profile
    /// `auto` follows.
    Calibrate(calibrate::Args),
}

/// What a command failed with: printed as `sortnet: <message>`, exit status 1.
#[derive(Debug)]
pub struct Failure(String);

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Failure {
    fn from(msg: String) -> Self {
        Failure(msg)
    }
}

/// Shorthand for command results.
pub type Outcome<T = ()> = Result<T, Failure>;

/// Builds a [`Failure`] from format arguments.
macro_rules! fail {
    ($($arg:tt)*) => { $crate::Failure(format!($($arg)*)) };
}
pub(crate) use fail;

/// The key types the tool reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeyType {
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
}

/// Where output goes: a file (written whole or not at all) or stdout (`-` or no `-o`).
fn output_target(out: &Option<PathBuf>) -> Option<&PathBuf> {
    out.as_ref().filter(|p| p.as_os_str() != "-")
}

/// Runs the command line; the exit status is 0 on success, 1 on a failure (message on
/// stderr), 2 on a usage error (clap's).
fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.no_profile {
        // Before any backend is touched, so the process-wide registry is built this way.
        sortnet::backend::configure(sortnet::backend::Options {
            profile: sortnet::backend::ProfileChoice::BuiltIn,
            ..sortnet::backend::Options::from_env()
        });
    }
    let result = match cli.command {
        Command::Bench(args) => bench::run(&args),
        Command::Sort(args) => sort::run_sort(&args),
        Command::Nibbles(args) => sort::run_nibbles(&args),
        Command::Backends => backends::run(),
        Command::Calibrate(args) => calibrate::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("sortnet: {failure}");
            ExitCode::FAILURE
        }
    }
}
