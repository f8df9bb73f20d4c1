//! Files in and out: reading a whole input (file or stdin), viewing keys as bytes for the
//! binary format, and output that appears whole or not at all.

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
    // SAFETY: `ToolKey: sortnet::Key`, which is sealed to u32, i32, f32, u64, i64 and f64:
    // plain data without padding, so every byte is initialized; the view covers exactly
    // the slice's memory and borrows it immutably for its lifetime.
    unsafe { std::slice::from_raw_parts(keys.as_ptr().cast::<u8>(), std::mem::size_of_val(keys)) }
}

/// The bytes of a slice of keys, writable.
fn key_bytes_mut<K: ToolKey>(keys: &mut [K]) -> &mut [u8] {
    let len = std::mem::size_of_val(keys);
    // SAFETY: as in `key_bytes`; in addition every bit pattern is a valid u32/i32/f32/u64/
    // i64/f64, so any bytes written through the view leave valid keys, and the exclusive
    // borrow of `keys` makes the view the only access.
    unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<u8>(), len) }
}

/// Swaps each key's bytes between little-endian (the file format) and native order: a
/// no-op on little-endian machines.
fn le_to_native<K: ToolKey>(keys: &mut [K]) {
    if cfg!(target_endian = "big") {
        let width = std::mem::size_of::<K>();
        key_bytes_mut(keys)
            .chunks_exact_mut(width)
            .for_each(|key| key.reverse());
    }
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

/// The refusal for a binary input whose length is not a whole number of keys.
fn ragged<K: ToolKey>(name: &str, len: u64) -> super::Failure {
    let width = std::mem::size_of::<K>() as u64;
    fail!(
        "{name}: {len} bytes is not a whole number of {width}-byte {} keys ({} bytes left \
         over); nothing was written",
        K::NAME,
        len % width
    )
}

/// Reads raw little-endian keys. A regular file is read straight into the key vector (one
/// allocation, no conversion pass on little-endian machines); stdin, pipes and other
/// streams are read whole first.
pub fn read_binary_keys<K: ToolKey>(path: &Path) -> Outcome<Vec<K>> {
    let name = display_name(path);
    let width = std::mem::size_of::<K>();
    let regular = path.as_os_str() != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if !regular {
        let bytes = read_all(path)?;
        if !bytes.len().is_multiple_of(width) {
            return Err(ragged::<K>(&name, bytes.len() as u64));
        }
        let mut keys = vec![K::default(); bytes.len() / width];
        key_bytes_mut(&mut keys).copy_from_slice(&bytes);
        le_to_native(&mut keys);
        return Ok(keys);
    }
    let cannot = |e: io::Error| fail!("{name}: cannot read: {e}");
    let mut file = File::open(path).map_err(cannot)?;
    let len = file.metadata().map_err(cannot)?.len();
    if !len.is_multiple_of(width as u64) {
        return Err(ragged::<K>(&name, len));
    }
    let count = usize::try_from(len / width as u64)
        .map_err(|_| fail!("{name}: {len} bytes do not fit in this machine's memory"))?;
    // Zeroed keys come straight from the allocator (calloc), so this costs no extra pass.
    let mut keys = vec![K::default(); count];
    file.read_exact(key_bytes_mut(&mut keys)).map_err(cannot)?;
    // A file that grew while we read it would be silently cut: refuse instead.
    let mut probe = [0u8; 1];
    if file.read(&mut probe).map_err(cannot)? != 0 {
        return Err(fail!(
            "{name}: the file grew while it was read; nothing was written"
        ));
    }
    le_to_native(&mut keys);
    Ok(keys)
}

/// Writes keys as raw little-endian bytes.
pub fn write_binary_keys<K: ToolKey>(out: &mut dyn Write, keys: &mut [K]) -> io::Result<()> {
    // Convert in place rather than copying a second buffer of the same size.
    le_to_native(keys);
    out.write_all(key_bytes(keys))
}

/// A file that appears at its path only when complete: written to a temporary file in the
/// same folder, then renamed over the destination. Dropped without `commit`, it removes
/// the temporary file and leaves the destination as it was.
pub struct AtomicFile {
    tmp: PathBuf,
    dest: PathBuf,
    file: Option<io::BufWriter<File>>,
}

impl AtomicFile {
    /// Starts the file that will replace `dest` (a regular file or nothing yet), with the
    /// permissions of the file it replaces.
    pub fn create(dest: &Path) -> io::Result<AtomicFile> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        let tmp = dir.join(format!(
            ".{}.sortnet-{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::create(&tmp)?;
        let atomic = AtomicFile {
            tmp,
            dest: dest.to_path_buf(),
            file: Some(io::BufWriter::with_capacity(1 << 20, file)),
        };
        if let Ok(old) = std::fs::metadata(dest) {
            // On failure `atomic` drops and removes the temporary file.
            std::fs::set_permissions(&atomic.tmp, old.permissions())?;
        }
        Ok(atomic)
    }

    pub fn writer(&mut self) -> &mut dyn Write {
        self.file.as_mut().expect("present until commit")
    }

    /// Flushes, syncs (so that a full disk reports here, not after the rename) and renames
    /// the file into place.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("present until commit");
        let result = file
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .and_then(|()| std::fs::rename(&self.tmp, &self.dest));
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        result
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            self.file = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The path a write to `path` lands on: symbolic links followed to their final target (which
/// need not exist yet), so that `-o link` writes the file the link names and keeps the link.
fn final_target(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    // Linux gives up after 40 links (ELOOP); so do we.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// Writes to `path`: a regular file (or a new one) is replaced whole or not at all; anything
/// else (a device such as `/dev/null`, a FIFO, a terminal) is written in place, as a shell's
/// `>` would, since renaming over it would replace the node itself.
fn write_path(path: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let target = final_target(path)?;
    match std::fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => {
            let file = std::fs::OpenOptions::new().write(true).open(&target)?;
            let mut out = io::BufWriter::with_capacity(1 << 20, file);
            write(&mut out)?;
            out.flush()
        }
        _ => {
            let mut file = AtomicFile::create(&target)?;
            write(file.writer())?;
            file.commit()
        }
    }
}

/// Runs `write` into the output: the file `out` (see [`write_path`]) or stdout when `out`
/// is `None`. Every write error (a full disk, a closed device) is a failure.
pub fn write_output(
    out: Option<&PathBuf>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Outcome {
    match out {
        Some(path) => {
            write_path(path, write).map_err(|e| fail!("{}: cannot write: {e}", path.display()))
        }
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

    #[test]
    fn atomic_file_appears_only_on_commit() {
        let dir = std::env::temp_dir().join(format!("sortnet-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dest = dir.join("out.bin");
        let mut f = AtomicFile::create(&dest).unwrap();
        f.writer().write_all(b"abc").unwrap();
        drop(f);
        assert!(!dest.exists());
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "temp file removed"
        );
        let mut f = AtomicFile::create(&dest).unwrap();
        f.writer().write_all(b"abc").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"abc");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
