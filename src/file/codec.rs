//! Keys in and out of files: the input read a chunk at a time (binary or text, with the
//! line numbers that errors cite), and blocks of keys encoded for the output or a run.

use std::fmt::{Debug, Display};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::str::FromStr;

use super::direct::DirectFile;
use super::error::FileSortError;
use super::options::Format;
use crate::Key;

/// A key type as files hold it: parsed from and printed to text as well.
pub(crate) trait FileKey: Key + Default + FromStr<Err: Display> + Debug {}

impl FileKey for u32 {}
impl FileKey for i32 {}
impl FileKey for f32 {}
impl FileKey for u64 {}
impl FileKey for i64 {}
impl FileKey for f64 {}

/// The bytes of a slice of keys, in memory order.
pub(crate) fn key_bytes<K: Key>(keys: &[K]) -> &[u8] {
    // SAFETY: `Key` is sealed to u32, i32, f32, u64, i64 and f64: plain data without
    // padding, so every byte is initialized; the view covers exactly the slice's memory and
    // borrows it immutably for its lifetime.
    unsafe { std::slice::from_raw_parts(keys.as_ptr().cast::<u8>(), std::mem::size_of_val(keys)) }
}

/// The bytes of a slice of keys, writable.
pub(crate) fn key_bytes_mut<K: Key>(keys: &mut [K]) -> &mut [u8] {
    let len = std::mem::size_of_val(keys);
    // SAFETY: as in `key_bytes`; in addition every bit pattern is a valid u32/i32/f32/u64/
    // i64/f64, so any bytes written through the view leave valid keys, and the exclusive
    // borrow of `keys` makes the view the only access.
    unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<u8>(), len) }
}

/// Swaps each key's bytes between little-endian (the file format) and native order: a no-op
/// on little-endian machines.
pub(crate) fn swap_le<K: Key>(keys: &mut [K]) {
    if cfg!(target_endian = "big") {
        let width = std::mem::size_of::<K>();
        key_bytes_mut(keys)
            .chunks_exact_mut(width)
            .for_each(|key| key.reverse());
    }
}

/// Reads whole keys from a file or stdin, a chunk at a time.
pub(crate) struct InputReader {
    /// The input as messages name it.
    pub(crate) name: String,
    source: Box<dyn Read + Send>,
    format: Format,
    /// The input's length, for a regular file.
    pub(crate) len: Option<u64>,
    /// Bytes taken from `source` so far.
    pub(crate) consumed: u64,
    /// Text: bytes read but not yet parsed (`text[start..end]`, whole lines then a partial
    /// one); the number of the next line.
    text: Vec<u8>,
    start: usize,
    end: usize,
    line: u64,
    eof: bool,
}

/// Text is read in slices of this size: large enough that the read calls cost nothing next
/// to the parsing, small enough to count as I/O buffering in the memory budget.
const TEXT_READ_BYTES: usize = 64 << 10;

/// Binary input is read in slices of this size so that progress advances during a large
/// chunk.
const BINARY_READ_BYTES: usize = 8 << 20;

impl InputReader {
    /// Opens `path` (stdin for `None`). A regular binary file whose length is not a whole
    /// number of `width`-byte keys is refused here, before any work. A regular binary file
    /// longer than `cached_max` bytes is read direct; a shorter one through the page cache.
    pub(crate) fn open(
        path: Option<&Path>,
        format: Format,
        width: usize,
        type_name: &str,
        cached_max: u64,
    ) -> Result<InputReader, FileSortError> {
        let (name, source, len): (String, Box<dyn Read + Send>, Option<u64>) = match path {
            None => ("<stdin>".to_string(), Box::new(io::stdin()), None),
            Some(path) => {
                let name = path.display().to_string();
                let cannot = |e| FileSortError::io(name.clone(), "read", e);
                let file = File::open(path).map_err(cannot)?;
                let meta = file.metadata().map_err(cannot)?;
                let len = meta.is_file().then_some(meta.len());
                // A regular binary file sorted in runs is read direct: the chunks are aligned,
                // whole units, and a read straight into them saves a copy per byte.
                let direct = meta.is_file() && format == Format::Binary && meta.len() > cached_max;
                let source: Box<dyn Read + Send> = if direct {
                    Box::new(DirectFile::open(path).map_err(cannot)?)
                } else {
                    Box::new(file)
                };
                (name, source, len)
            }
        };
        let reader = InputReader {
            name,
            source,
            format,
            len,
            consumed: 0,
            text: Vec::new(),
            start: 0,
            end: 0,
            line: 1,
            eof: false,
        };
        if let (Format::Binary, Some(len)) = (format, len) {
            if len % width as u64 != 0 {
                return Err(reader.ragged(len, width, type_name));
            }
        }
        Ok(reader)
    }

    /// The refusal for a binary input whose length is not a whole number of keys.
    fn ragged(&self, len: u64, width: usize, type_name: &str) -> FileSortError {
        FileSortError::Input {
            path: self.name.clone(),
            line: None,
            reason: format!(
                "{len} bytes is not a whole number of {width}-byte {type_name} keys ({} bytes \
                 left over)",
                len % width as u64
            ),
        }
    }

    /// Whether every key has been handed out: the source is at its end (or, for a regular
    /// file, all its bytes were taken) and, for text, no line waits in the buffer.
    pub(crate) fn exhausted(&self) -> bool {
        let source_done = self.eof || self.len.is_some_and(|len| self.consumed >= len);
        source_done && (self.format == Format::Binary || self.start == self.end)
    }

    fn read_error(&self, e: io::Error) -> FileSortError {
        FileSortError::io(self.name.clone(), "read", e)
    }

    /// Fills `keys` from the front with the next keys of the input; returns how many were
    /// read (fewer than `keys.len()` only at the end of the input). `report` is told the
    /// bytes consumed so far as reading advances.
    pub(crate) fn fill<K: FileKey>(
        &mut self,
        keys: &mut [K],
        report: &mut dyn FnMut(u64),
    ) -> Result<usize, FileSortError> {
        match self.format {
            Format::Binary => self.fill_binary(keys, report),
            Format::Text => self.fill_text(keys, report),
        }
    }

    fn fill_binary<K: FileKey>(
        &mut self,
        keys: &mut [K],
        report: &mut dyn FnMut(u64),
    ) -> Result<usize, FileSortError> {
        let width = std::mem::size_of::<K>();
        let bytes = key_bytes_mut(keys);
        let mut filled = 0;
        while filled < bytes.len() && !self.eof {
            let want = (bytes.len() - filled).min(BINARY_READ_BYTES);
            match self.source.read(&mut bytes[filled..filled + want]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    filled += n;
                    self.consumed += n as u64;
                    report(self.consumed);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.read_error(e)),
            }
        }
        if filled % width != 0 {
            return Err(self.ragged(self.consumed, width, K::NAME));
        }
        if self.len.is_some_and(|len| self.consumed > len) {
            return Err(FileSortError::Input {
                path: self.name.clone(),
                line: None,
                reason: "the file grew while it was read".to_string(),
            });
        }
        let count = filled / width;
        swap_le(&mut keys[..count]);
        Ok(count)
    }

    fn fill_text<K: FileKey>(
        &mut self,
        keys: &mut [K],
        report: &mut dyn FnMut(u64),
    ) -> Result<usize, FileSortError> {
        let mut count = 0;
        while count < keys.len() {
            let pending = &self.text[self.start..self.end];
            let line_end = pending.iter().position(|&b| b == b'\n');
            let line = match (line_end, self.eof) {
                (Some(at), _) => {
                    let line = self.start..self.start + at;
                    self.start += at + 1;
                    line
                }
                // The last line, without a final newline.
                (None, true) if !pending.is_empty() => {
                    let line = self.start..self.end;
                    self.start = self.end;
                    line
                }
                (None, true) => break,
                (None, false) => {
                    self.read_text(report)?;
                    continue;
                }
            };
            keys[count] = self.parse_line(line)?;
            count += 1;
            self.line += 1;
        }
        Ok(count)
    }

    /// Moves the partial line to the front of the buffer and reads more after it.
    fn read_text(&mut self, report: &mut dyn FnMut(u64)) -> Result<(), FileSortError> {
        self.text.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        // A line longer than the buffer grows it; no number is that long, so the parse that
        // follows refuses the line.
        if self.text.len() - self.end < TEXT_READ_BYTES / 2 {
            self.text.resize(self.end + TEXT_READ_BYTES, 0);
        }
        loop {
            match self.source.read(&mut self.text[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.end += n;
                    self.consumed += n as u64;
                    report(self.consumed);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.read_error(e)),
            }
            return Ok(());
        }
    }

    fn parse_line<K: FileKey>(&self, range: std::ops::Range<usize>) -> Result<K, FileSortError> {
        let raw = &self.text[range];
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let bad = |reason: String| FileSortError::Input {
            path: self.name.clone(),
            line: Some(self.line),
            reason,
        };
        let text = std::str::from_utf8(raw)
            .map_err(|_| bad("not UTF-8 text".to_string()))?
            .trim();
        if text.is_empty() {
            return Err(bad(format!("empty line, expected a {} number", K::NAME)));
        }
        text.parse::<K>()
            .map_err(|e| bad(format!("{} is not a {} ({e})", quote(text), K::NAME)))
    }
}

/// A line quoted for a message, cut to a readable length.
fn quote(text: &str) -> String {
    const MAX: usize = 40;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("`{}...`", &text[..cut]),
        None => format!("`{text}`"),
    }
}

/// How a block of keys is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// In memory order: temporary runs, read back by the same process.
    Native,
    /// The binary file format, little-endian.
    Binary,
    /// One key per line, the shortest text that parses back to the same key.
    Text,
}

impl Encoding {
    /// The encoding of the output in `format`.
    pub(crate) fn of(format: Format) -> Encoding {
        match format {
            Format::Binary => Encoding::Binary,
            Format::Text => Encoding::Text,
        }
    }
}

/// Writes `keys` to `out` in `encoding`; `text` is a reusable buffer for the text and
/// big-endian cases. Binary keys on a big-endian machine are swapped in place and back.
pub(crate) fn write_keys<K: FileKey>(
    out: &mut dyn Write,
    keys: &mut [K],
    encoding: Encoding,
    text: &mut Vec<u8>,
) -> io::Result<()> {
    match encoding {
        Encoding::Native => out.write_all(key_bytes(keys)),
        Encoding::Binary => {
            swap_le(keys);
            let result = out.write_all(key_bytes(keys));
            swap_le(keys);
            result
        }
        Encoding::Text => {
            // Formatting goes to memory a slice at a time, so that one write call carries
            // many lines without the buffer growing with the block.
            const SLICE: usize = 1 << 12;
            for part in keys.chunks(SLICE) {
                text.clear();
                for k in part {
                    // Debug prints the shortest text that parses back to the same key, with
                    // an exponent for tiny and huge floats (Display would print 1e-45 with 45
                    // digits).
                    writeln!(text, "{k:?}")?;
                }
                out.write_all(text)?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(bytes: &'static [u8], format: Format) -> InputReader {
        InputReader {
            name: "in".to_string(),
            source: Box::new(bytes),
            format,
            len: None,
            consumed: 0,
            text: Vec::new(),
            start: 0,
            end: 0,
            line: 1,
            eof: false,
        }
    }

    #[test]
    fn text_lines_parse_across_chunks_with_their_numbers() {
        let mut r = reader(b"3\r\n-1\n 2 \n7", Format::Text);
        let mut keys = [0i32; 3];
        assert_eq!(r.fill(&mut keys, &mut |_| {}).unwrap(), 3);
        assert_eq!(keys, [3, -1, 2]);
        assert_eq!(r.fill(&mut keys, &mut |_| {}).unwrap(), 1);
        assert_eq!(keys[0], 7);
        assert_eq!(r.fill(&mut keys, &mut |_| {}).unwrap(), 0);

        let mut r = reader(b"1\n2\nx3\n", Format::Text);
        let err = r.fill(&mut [0u32; 8], &mut |_| {}).unwrap_err();
        assert!(
            err.to_string().starts_with("in:3: `x3` is not a u32"),
            "{err}"
        );
        let mut r = reader(b"1\n\n2\n", Format::Text);
        let err = r.fill(&mut [0u32; 8], &mut |_| {}).unwrap_err();
        assert!(err.to_string().starts_with("in:2: empty line"), "{err}");
    }

    #[test]
    fn a_stream_that_ends_inside_a_key_is_refused() {
        let mut r = reader(&[1, 0, 0, 0, 2, 0], Format::Binary);
        let err = r.fill(&mut [0u32; 4], &mut |_| {}).unwrap_err();
        assert!(
            err.to_string()
                .contains("6 bytes is not a whole number of 4-byte u32"),
            "{err}"
        );
    }

    #[test]
    fn text_output_parses_back() {
        let mut keys = [f32::NEG_INFINITY, -0.0, 1e-45, f32::NAN];
        let mut out = Vec::new();
        write_keys(&mut out, &mut keys, Encoding::Text, &mut Vec::new()).unwrap();
        assert_eq!(out, b"-inf\n-0.0\n1e-45\nNaN\n");
    }
}
