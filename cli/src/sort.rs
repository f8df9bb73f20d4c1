//! `sortnet sort` and `sortnet nibbles`: sort a file with a backend. The input is read and
//! checked whole before anything is written, so bad input leaves no output behind.

use std::path::PathBuf;
use std::time::Instant;

use clap::ValueEnum;
use sortnet::{backend, SortBackend};

use super::data::ToolKey;
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
    /// The output file (replaced whole once sorted); stdout when absent or `-`.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Sort with this backend instead of `auto` (see `sortnet backends`).
    #[arg(long)]
    backend: Option<String>,
    /// Print the time spent reading, sorting and writing on stderr.
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

pub fn run_sort(args: &SortArgs) -> Outcome {
    match args.key_type {
        KeyType::U32 => sort_file::<u32>(args),
        KeyType::I32 => sort_file::<i32>(args),
        KeyType::F32 => sort_file::<f32>(args),
        KeyType::U64 => sort_file::<u64>(args),
        KeyType::I64 => sort_file::<i64>(args),
        KeyType::F64 => sort_file::<f64>(args),
    }
}

/// Parses one number per line; `Err` names the file, line and reason.
fn parse_text_keys<K: ToolKey>(name: &str, bytes: &[u8]) -> Outcome<Vec<K>> {
    let mut keys = Vec::with_capacity(bytes.len() / 8);
    for (n, line) in numbered_lines(bytes) {
        let bad = |why: String| fail!("{name}:{n}: {why}; nothing was written");
        let text = line_text(line).map_err(bad)?;
        if text.is_empty() {
            return Err(bad(format!("empty line, expected a {} number", K::NAME)));
        }
        let key = text
            .parse::<K>()
            .map_err(|e| bad(format!("{} is not a {} ({e})", quote(text), K::NAME)))?;
        keys.push(key);
    }
    Ok(keys)
}

fn sort_file<K: ToolKey>(args: &SortArgs) -> Outcome {
    let sorter = chosen_backend(&args.backend)?;
    let name = display_name(&args.input);
    let t0 = Instant::now();
    let mut keys: Vec<K> = match args.format {
        Format::Bin => io::read_binary_keys(&args.input)?,
        Format::Text => parse_text_keys(&name, &io::read_all(&args.input)?)?,
    };
    let t1 = Instant::now();
    sorter.sort(&mut keys).map_err(|e| {
        fail!(
            "{name}: sorting {} {} keys failed: {e}",
            keys.len(),
            K::NAME
        )
    })?;
    let t2 = Instant::now();
    io::write_output(output_target(&args.output), |out| match args.format {
        Format::Bin => io::write_binary_keys(out, &mut keys),
        // Debug prints the shortest text that parses back to the same key, and uses an
        // exponent for tiny and huge floats (Display would print 1e-45 with 45 digits).
        Format::Text => keys.iter().try_for_each(|k| writeln!(out, "{k:?}")),
    })?;
    if args.timings {
        let t3 = Instant::now();
        eprintln!(
            "sortnet: {} {} keys: read {:.3} s, sort {:.3} s ({}), write {:.3} s",
            keys.len(),
            K::NAME,
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64(),
            match args.backend {
                Some(_) => sorter.name(),
                None =>
                    backend::auto_pick_for(sortnet::Workload::Keys(K::WIDTH), keys.len(), K::MAP)
                        .map_or("auto", |b| b.name()),
            },
            (t3 - t2).as_secs_f64()
        );
    }
    Ok(())
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
    fn text_keys_refuse_bad_lines_with_their_number() {
        assert_eq!(
            parse_text_keys::<i32>("f", b"3\n-1\n 2 \n").unwrap(),
            [3, -1, 2]
        );
        let err = parse_text_keys::<u32>("in.txt", b"1\n2\nx3\n").unwrap_err();
        assert!(err.0.starts_with("in.txt:3: `x3` is not a u32"), "{err}");
        let err = parse_text_keys::<u32>("in.txt", b"1\n\n2\n").unwrap_err();
        assert!(err.0.starts_with("in.txt:2: empty line"), "{err}");
        let err = parse_text_keys::<u32>("in.txt", b"-1\n").unwrap_err();
        assert!(err.0.starts_with("in.txt:1:"), "{err}");
        let floats = parse_text_keys::<f32>("f", b"NaN\n-inf\n-0\n1e3\n").unwrap();
        assert!(floats[0].is_nan() && floats[1] == f32::NEG_INFINITY && floats[3] == 1000.0);
    }
}
