//! Where sorted keys go: a regular file is replaced whole or not at all (a temporary file
//! beside it, renamed into place once complete); a device, FIFO or terminal is written in
//! place, as a shell's `>` would, since renaming over it would replace the node itself;
//! symbolic links are followed to the file they name.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::direct::DirectFile;
use super::temp::{self, Registered};

/// A file that appears at its path only when complete: written to a temporary file in the
/// same folder, then renamed over the destination. Dropped without `commit`, it removes the
/// temporary file and leaves the destination as it was.
pub(crate) struct AtomicFile {
    tmp: PathBuf,
    dest: PathBuf,
    file: Option<DirectFile>,
    _registered: Registered,
}

impl AtomicFile {
    /// Starts the file that will replace `dest` (a regular file or nothing yet), with the
    /// permissions of the file it replaces.
    fn create(dest: &Path) -> io::Result<AtomicFile> {
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
        let (file, registered) = temp::create_registered(&tmp, DirectFile::create)?;
        let atomic = AtomicFile {
            tmp,
            dest: dest.to_path_buf(),
            file: Some(file),
            _registered: registered,
        };
        if let Ok(old) = std::fs::metadata(dest) {
            // On failure `atomic` drops and removes the temporary file.
            std::fs::set_permissions(&atomic.tmp, old.permissions())?;
        }
        Ok(atomic)
    }

    /// Syncs (so that a full disk reports here, not after the rename) and renames the file
    /// into place.
    fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("present until commit");
        let result = file
            .file()
            .sync_all()
            .and_then(|()| std::fs::rename(&self.tmp, &self.dest));
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        result
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The path a write to `path` lands on: symbolic links followed to their final target (which
/// need not exist yet), so that writing to a link writes the file it names and keeps the link.
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

/// An open output: see the module docs. Nothing is visible at a regular file's path until
/// [`Destination::commit`].
pub(crate) enum Destination {
    Replace(AtomicFile),
    InPlace(File),
    Stdout(io::Stdout),
}

impl Destination {
    /// Opens `path` for writing, or stdout for `None`.
    pub(crate) fn open(path: Option<&Path>) -> io::Result<Destination> {
        let Some(path) = path else {
            return Ok(Destination::Stdout(io::stdout()));
        };
        let target = final_target(path)?;
        match std::fs::metadata(&target) {
            Ok(meta) if !meta.is_file() => Ok(Destination::InPlace(
                std::fs::OpenOptions::new().write(true).open(&target)?,
            )),
            _ => Ok(Destination::Replace(AtomicFile::create(&target)?)),
        }
    }

    /// The writer for the sorted output (unbuffered: callers write large blocks).
    pub(crate) fn writer(&mut self) -> &mut (dyn Write + Send) {
        match self {
            Destination::Replace(atomic) => atomic.file.as_mut().expect("present until commit"),
            Destination::InPlace(file) => file,
            Destination::Stdout(out) => out,
        }
    }

    /// Finishes the output: a replaced file is synced and renamed into place.
    pub(crate) fn commit(self) -> io::Result<()> {
        match self {
            Destination::Replace(atomic) => atomic.commit(),
            Destination::InPlace(mut file) => file.flush(),
            Destination::Stdout(mut out) => out.flush(),
        }
    }
}

/// Writes to `path` with `write`: a regular file (or a new one) is replaced whole or not at
/// all, anything else (a device such as `/dev/null`, a FIFO) is written in place, and a
/// symbolic link is followed to the file it names. Every write error (a full disk, a closed
/// device) is returned, and leaves a regular file as it was.
pub fn write_to_path(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut dest = Destination::open(Some(path))?;
    let mut buffered = io::BufWriter::with_capacity(1 << 20, dest.writer());
    write(&mut buffered)?;
    buffered.flush()?;
    drop(buffered);
    dest.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_file_appears_only_on_commit() {
        let dir = std::env::temp_dir().join(format!("sortnet-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dest = dir.join("out.bin");
        let mut f = Destination::open(Some(&dest)).unwrap();
        f.writer().write_all(b"abc").unwrap();
        drop(f);
        assert!(!dest.exists());
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "temp file removed"
        );
        write_to_path(&dest, |w| w.write_all(b"abc")).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"abc");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
