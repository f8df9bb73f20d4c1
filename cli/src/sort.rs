//! `sortnet sort` and `sortnet nibbles`. `sort` goes through `sortnet::file` (inputs larger
//! than the memory budget are sorted in runs on disk and merged), with a progress bar on a
//! terminal and temporary runs removed on Ctrl-C; `nibbles` reads its input whole and checks
//! it before anything is written.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sortnet::file::{self, FileSortOptions, FileSortReport, Phase, Progress};
use sortnet::{backend, SortBackend};

use super::io::{self, display_name, line_text, numbered_lines, quote};
use super::{fail, output_target, KeyType, Outcome};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Raw little-endian keys, back to back.
    Bin,
    /// One number per line (floats as Rust prints and parses them: `-0.0`, `1e-45`, `inf`,
    /// `NaN`; the sign and payload of a NaN are kept only by the binary format).
    Text,
}

#[derive(clap::Args)]
pub struct SortArgs {
    /// The key type.
    #[arg(long = "type", value_enum)]
    key_type: KeyType,
    /// The input and output format.
    #[arg(long, value_enum, default_value = "bin")]
    format: Format,
    /// The input file; `-` reads stdin.
    input: PathBuf,
    /// The output file (replaced whole once sorted; it may be the input); stdout when absent
    /// or `-`.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Largest first (floats: +NaN first).
    #[arg(long)]
    descending: bool,
    /// The most memory to use, e.g. 512M or 4G (K, M, G, T are powers of 1024). An input up
    /// to half of it is sorted in memory; a larger one in sorted runs on disk, then merged.
    /// Default: half of the memory available now (MemAvailable).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    memory: Option<usize>,
    /// The folder for the temporary runs (it needs room for the input's keys); default
    /// $TMPDIR, else /tmp.
    #[arg(long, value_name = "DIR")]
    temp_dir: Option<PathBuf>,
    /// Threads that sort each chunk and merge the runs (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Sort with this backend instead of `auto` (see `sortnet backends`).
    #[arg(long)]
    backend: Option<String>,
    /// Print the time spent reading, sorting and writing (or merging) on stderr.
    #[arg(long)]
    timings: bool,
}

#[derive(clap::Args)]
pub struct NibbleArgs {
    /// The input: 64-bit hex words, one per line, `0x` optional; stdin when absent or `-`.
    input: Option<PathBuf>,
    /// The output file (replaced whole once sorted); stdout when absent or `-`.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Sort with this backend instead of `auto` (see `sortnet backends`).
    #[arg(long)]
    backend: Option<String>,
}

/// The backend named on the command line, or `auto`.
fn chosen_backend(name: &Option<String>) -> Outcome<&'static dyn SortBackend> {
    match name {
        None => Ok(backend::auto()),
        Some(name) => backend::by_name(name).ok_or_else(|| {
            let usable: Vec<&str> = backend::available().iter().map(|b| b.name()).collect();
            fail!(
                "`{name}` is not a backend usable here; choose from {}",
                usable.join(", ")
            )
        }),
    }
}

/// Parses a size: a number of bytes with an optional K, M, G or T (powers of 1024; `KiB`,
/// `kB` and the like also read as powers of 1024), e.g. `512M`, `1.5G`.
fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("`{text}`: expected a size such as 512M or 4G")),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}`: expected a size such as 512M or 4G"))?;
    let bytes = value * (1u64 << shift) as f64;
    if !(1.0..=usize::MAX as f64).contains(&bytes) {
        return Err(format!("`{text}`: the size must be at least one byte"));
    }
    Ok(bytes as usize)
}

/// The library's key type for the tool's.
fn file_key_type(key_type: KeyType) -> file::KeyType {
    match key_type {
        KeyType::U32 => file::KeyType::U32,
        KeyType::I32 => file::KeyType::I32,
        KeyType::F32 => file::KeyType::F32,
        KeyType::U64 => file::KeyType::U64,
        KeyType::I64 => file::KeyType::I64,
        KeyType::F64 => file::KeyType::F64,
    }
}

/// A progress bar on stderr when it is a terminal (phase, bytes, rate, ETA); nothing
/// otherwise, so that logs and pipes stay clean.
fn progress_bar() -> Option<(ProgressBar, file::ProgressFn)> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:>12} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {bytes_per_sec} \
             ETA {eta}",
        )
        .expect("a valid template"),
    );
    let shown = bar.clone();
    let phase = Mutex::new(None::<Phase>);
    let callback = move |p: &Progress| {
        let mut current = phase.lock().unwrap_or_else(|e| e.into_inner());
        if *current != Some(p.phase) {
            *current = Some(p.phase);
            shown.reset();
            shown.set_message(match p.phase {
                Phase::Read => "reading".to_string(),
                Phase::Sort => "sorting".to_string(),
                Phase::Merge { step, steps } if steps > 1 => format!("merge {step}/{steps}"),
                Phase::Merge { .. } => "merging".to_string(),
                Phase::Write => "writing".to_string(),
            });
        }
        // A stream's length is not known: the bar then shows the bytes so far.
        shown.set_length(p.total.unwrap_or(p.done).max(1));
        shown.set_position(p.done);
    };
    Some((bar, Arc::new(callback)))
}

pub fn run_sort(args: &SortArgs) -> Outcome {
    let sorter = chosen_backend(&args.backend)?;
    // Ctrl-C and SIGTERM remove the temporary runs and the unfinished output before the
    // process exits (130, as a shell reports a SIGINT): the library registers each while it
    // exists. The handler runs on its own thread, so it may take locks and remove files.
    let _ = ctrlc::set_handler(|| {
        file::remove_temporary_files();
        std::process::exit(130);
    });
    let bar = progress_bar();
    let options = FileSortOptions {
        key_type: file_key_type(args.key_type),
        format: match args.format {
            Format::Bin => file::Format::Binary,
            Format::Text => file::Format::Text,
        },
        order: if args.descending {
            file::Order::Descending
        } else {
            file::Order::Ascending
        },
        memory: args.memory.unwrap_or_else(file::default_memory),
        temp_dir: args.temp_dir.clone(),
        threads: args.threads.map(usize::from),
        backend: args.backend.as_ref().map(|_| sorter),
        progress: bar.as_ref().map(|(_, callback)| callback.clone()),
        ..FileSortOptions::default()
    };
    let input = (args.input.as_os_str() != "-").then_some(args.input.as_path());
    let output = output_target(&args.output).map(PathBuf::as_path);
    let result = file::sort_streams(input, output, &options);
    if let Some((bar, _)) = bar {
        bar.finish_and_clear();
    }
    let report = match result {
        Ok(report) => report,
        // `sortnet ... | head` closes the pipe early: not a failure of ours.
        Err(e) if output.is_none() && e.io_kind() == Some(std::io::ErrorKind::BrokenPipe) => {
            return Ok(())
        }
        Err(e) => return Err(fail!("{e}")),
    };
    if args.timings {
        print_timings(&report, args.key_type);
    }
    Ok(())
}

fn print_timings(r: &FileSortReport, key_type: KeyType) {
    let name = file_key_type(key_type).name();
    if r.runs == 0 {
        eprintln!(
            "sortnet: {} {name} keys: read {:.3} s, sort {:.3} s ({}), write {:.3} s",
            r.keys,
            r.read.as_secs_f64(),
            r.sort.as_secs_f64(),
            r.backend,
            r.write.as_secs_f64()
        );
    } else {
        eprintln!(
            "sortnet: {} {name} keys in {} runs ({} MiB memory), {} merge(s): runs {:.3} s \
             (sorting {:.3} s, {}), merge {:.3} s",
            r.keys,
            r.runs,
            r.memory >> 20,
            r.merges,
            r.read.as_secs_f64() + r.sort.as_secs_f64(),
            r.sort.as_secs_f64(),
            r.backend,
            r.write.as_secs_f64()
        );
    }
}

/// Parses a 64-bit hex word, `0x` optional: `Err` is the reason.
fn parse_hex_word(text: &str) -> Result<u64, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.is_empty() {
        return Err(format!("{} has no hex digits", quote(text)));
    }
    if let Some(c) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(format!(
            "{} is not a hex word ({c:?} is not a hex digit)",
            quote(text)
        ));
    }
    if digits.len() > 16 {
        return Err(format!("{} has more than 16 hex digits", quote(text)));
    }
    u64::from_str_radix(digits, 16).map_err(|e| format!("{} is not a hex word ({e})", quote(text)))
}

pub fn run_nibbles(args: &NibbleArgs) -> Outcome {
    let sorter = chosen_backend(&args.backend)?;
    let input = args.input.clone().unwrap_or_else(|| PathBuf::from("-"));
    let name = display_name(&input);
    let bytes = io::read_all(&input)?;
    let mut words = Vec::with_capacity(bytes.len() / 17);
    for (n, line) in numbered_lines(&bytes) {
        let bad = |why: String| fail!("{name}:{n}: {why}; nothing was written");
        let text = line_text(line).map_err(bad)?;
        if text.is_empty() {
            return Err(bad("empty line, expected a hex word".to_string()));
        }
        words.push(parse_hex_word(text).map_err(bad)?);
    }
    sorter
        .sort_nibbles(&mut words)
        .map_err(|e| fail!("{name}: sorting {} words failed: {e}", words.len()))?;
    io::write_output(output_target(&args.output), |out| {
        words.iter().try_for_each(|w| writeln!(out, "0x{w:016x}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_words_parse_with_or_without_prefix_and_refuse_junk() {
        assert_eq!(parse_hex_word("0x42badc0ffeed00d5"), Ok(0x42badc0ffeed00d5));
        assert_eq!(parse_hex_word("0XBADBEEF"), Ok(0xbadbeef));
        assert_eq!(parse_hex_word("f"), Ok(15));
        for bad in ["0x", "+f", "-1", "0x12345678901234567", "12g", "0x 1"] {
            assert!(parse_hex_word(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        for bad in ["", "M", "12Q", "-1G", "0", "1..2M"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
