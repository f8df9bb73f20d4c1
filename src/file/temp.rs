//! Temporary files that never outlive the sort: the run folder and the output's temporary
//! file are registered while they exist, so that a signal handler can remove them all with
//! [`remove_temporary_files`] before the process exits; otherwise each is removed when its
//! owner drops (on success and on every error).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::direct::DirectFile;

/// The temporary paths alive now, and whether new ones are still allowed.
struct Registry {
    closed: bool,
    paths: Vec<(u64, PathBuf)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    closed: false,
    paths: Vec::new(),
});

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Removes every temporary file and folder of the file sorts running in this process, and
/// makes any later attempt to create one fail, so that nothing new appears between this call
/// and the process's exit.
///
/// For a signal handler that runs on an ordinary thread (as the `ctrlc` crate's do), called
/// just before exiting on Ctrl-C or `SIGTERM`. Not async-signal-safe: it takes a lock and
/// removes files.
pub fn remove_temporary_files() {
    let mut registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    registry.closed = true;
    for (_, path) in registry.paths.drain(..) {
        remove_path(&path);
    }
}

fn remove_path(path: &Path) {
    if std::fs::remove_dir_all(path).is_err() {
        let _ = std::fs::remove_file(path);
    }
}

/// A registered temporary path; removed from the registry (not from the disk) on drop.
#[derive(Debug)]
pub(crate) struct Registered(u64);

impl Drop for Registered {
    fn drop(&mut self) {
        let mut registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        registry.paths.retain(|(id, _)| *id != self.0);
    }
}

/// Creates `path` with `create` and registers it, under the registry's lock so that
/// [`remove_temporary_files`] sees either nothing or the registered path.
pub(crate) fn create_registered<T>(
    path: &Path,
    create: impl FnOnce(&Path) -> io::Result<T>,
) -> io::Result<(T, Registered)> {
    let mut registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    if registry.closed {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the process is exiting",
        ));
    }
    let made = create(path)?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    registry.paths.push((id, path.to_path_buf()));
    Ok((made, Registered(id)))
}

/// Creates the run file `path` inside a [`RunDir`], under the registry's lock: a run made
/// while [`remove_temporary_files`] empties the folder would keep the folder from being
/// removed, so once that has run no run is made any more.
pub(crate) fn create_run_file(path: &Path) -> io::Result<DirectFile> {
    let registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    if registry.closed {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the process is exiting",
        ));
    }
    DirectFile::create(path)
}

/// A folder of sorted runs, made inside the temporary folder and removed with everything in
/// it on drop.
#[derive(Debug)]
pub(crate) struct RunDir {
    path: PathBuf,
    next_run: u64,
    _registered: Registered,
}

impl RunDir {
    /// A new, empty folder `sortnet-<pid>-<n>` inside `parent`.
    pub(crate) fn create(parent: &Path) -> io::Result<RunDir> {
        let pid = std::process::id();
        loop {
            let n = NEXT_ID.fetch_add(1, Ordering::Relaxed);
            let path = parent.join(format!("sortnet-{pid}-{n}"));
            match create_registered(&path, |p| std::fs::create_dir(p)) {
                Ok(((), registered)) => {
                    return Ok(RunDir {
                        path,
                        next_run: 0,
                        _registered: registered,
                    })
                }
                // Left by an earlier process with the same id: pick another name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The path for the next run file.
    pub(crate) fn next_run_path(&mut self) -> PathBuf {
        self.next_run += 1;
        self.path.join(format!("run-{}", self.next_run))
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
