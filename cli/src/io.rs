//! Files in and out for the commands that read their input whole (`nibbles`, the bench
//! chart): reading a file or stdin, and output that appears whole or not at all (the
//! library's `sortnet::file::write_to_path`). `sortnet sort` goes through `sortnet::file`.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::data::ToolKey;
use super::{fail, Outcome};

/// The name of an input in messages: its path, or `<stdin>` for `-`.
pub fn display_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// The bytes of a slice of keys, in memory order.
pub fn key_bytes<K: ToolKey>(keys: &[K]) -> &[u8] {
    // SAFETY: `ToolKey: sortnet::Key`, which is sealed to the primitive integers and floats:
    // plain data without padding, so every byte is initialized; the view covers exactly
    // the slice's memory and borrows it immutably for its lifetime.
    unsafe { std::slice::from_raw_parts(keys.as_ptr().cast::<u8>(), std::mem::size_of_val(keys)) }
}

/// Reads a whole input: the file at `path`, or stdin for `-`.
pub fn read_all(path: &Path) -> Outcome<Vec<u8>> {
    let name = display_name(path);
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        io::stdin().lock().read_to_end(&mut bytes).map(|_| ())
    } else {
        File::open(path).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    read.map_err(|e| fail!("{name}: cannot read: {e}"))?;
    Ok(bytes)
}

/// Runs `write` into the output: the file `out` (see `sortnet::file::write_to_path`) or stdout when `out`
/// is `None`. Every write error (a full disk, a closed device) is a failure.
pub fn write_output(
    out: Option<&PathBuf>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Outcome {
    match out {
        Some(path) => sortnet::file::write_to_path(path, write)
            .map_err(|e| fail!("{}: cannot write: {e}", path.display())),
        None => {
            let stdout = io::stdout();
            let mut lock = io::BufWriter::with_capacity(1 << 20, stdout.lock());
            match write(&mut lock).and_then(|()| lock.flush()) {
                Ok(()) => Ok(()),
                // `sortnet ... | head` closes the pipe early: not a failure of ours.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(fail!("<stdout>: cannot write: {e}")),
            }
        }
    }
}

/// Splits text into numbered lines (from 1) for parsing; a final newline ends the last
/// line rather than starting an empty one, and a `\r` before `\n` is dropped.
pub fn numbered_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let empty_input = bytes.is_empty();
    body.split(|&b| b == b'\n')
        .filter(move |_| !empty_input)
        .enumerate()
        .map(|(i, line)| (i + 1, line.strip_suffix(b"\r").unwrap_or(line)))
}

/// A line as text for parsing, trimmed, or why it cannot be: `Err` is a reason.
pub fn line_text(line: &[u8]) -> Result<&str, String> {
    let text = std::str::from_utf8(line).map_err(|_| "not UTF-8 text".to_string())?;
    Ok(text.trim())
}

/// A line quoted for a message, cut to a readable length.
pub fn quote(text: &str) -> String {
    const MAX: usize = 40;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("`{}...`", &text[..cut]),
        None => format!("`{text}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_lines_handle_final_newline_crlf_and_empty_input() {
        let lines: Vec<_> = numbered_lines(b"1\r\n2\n\n3\n").collect();
        assert_eq!(
            lines,
            [
                (1, &b"1"[..]),
                (2, &b"2"[..]),
                (3, &b""[..]),
                (4, &b"3"[..])
            ]
        );
        assert_eq!(numbered_lines(b"").count(), 0);
        assert_eq!(numbered_lines(b"7").collect::<Vec<_>>(), [(1, &b"7"[..])]);
    }
}
