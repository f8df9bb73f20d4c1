//! Run formation: the input read a chunk at a time, each chunk sorted and written to a
//! temporary run, with reading, sorting and writing overlapped on three threads: three chunk
//! buffers circulate, so that chunk i+1 is read while chunk i is sorted and chunk i-1
//! written (with two, the disk waited for every sort that outlasted a read).

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::codec::{FileKey, InputReader};
use super::direct::{write_keys_direct, AlignedBuf};
use super::error::FileSortError;
use super::options::{Order, Phase, Progress, ProgressFn};
use super::temp::{create_run_file, RunDir};
use crate::SortBackend;

/// A sorted run on disk.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) path: PathBuf,
    pub(crate) keys: u64,
}

/// What run formation made of the input.
pub(crate) enum Formed<K: FileKey> {
    /// The whole input fit in the first chunk: `keys[..len]`, sorted, no run written.
    Whole { keys: AlignedBuf<K>, len: usize },
    /// Sorted runs, in input order.
    Runs(Vec<Run>),
}

/// How the chunks are sorted.
pub(crate) struct Sorting<'a> {
    pub(crate) backend: &'static dyn SortBackend,
    pub(crate) order: Order,
    pub(crate) pool: Option<&'a rayon::ThreadPool>,
    /// The radix sort's scratch, kept from one chunk to the next: a backend call allocates
    /// scratch as large as the chunk and frees it, and faulting in those fresh pages again
    /// for every chunk took a sixth of run formation's cycles. Dropped with `Sorting`, before
    /// the merge allocates its blocks.
    pub(crate) radix: crate::keys::CpuRadixSorter,
}

impl Sorting<'_> {
    /// Sorts `keys` in the requested order.
    pub(crate) fn sort<K: FileKey>(&mut self, keys: &mut [K]) -> crate::Result<()> {
        // The process-wide `auto` is asked which backend it would take, so that a pick of
        // `radix` sorts with the kept scratch; any other backend (another registry's `auto`
        // too, which routes by its own profile) sorts the chunk itself.
        let process_auto = std::ptr::addr_eq(self.backend, crate::backend::auto());
        let backend = if process_auto {
            crate::backend::auto_pick_for(crate::Workload::Keys(K::WIDTH), keys.len(), K::MAP)
                .unwrap_or(self.backend)
        } else {
            self.backend
        };
        let radix = &mut self.radix;
        // Descending comes from the key map (the image inverted in the sort's first and
        // last pass), not a sort and a reversal.
        let descending = self.order == Order::Descending;
        let mut run = || -> crate::Result<()> {
            match (backend.name() == "radix", descending) {
                (true, false) => radix.sort(keys),
                (true, true) => radix.sort_descending(keys),
                (false, false) => backend.sort(keys)?,
                (false, true) => backend.sort_descending(keys)?,
            }
            Ok(())
        };
        match self.pool {
            Some(pool) => pool.install(run)?,
            None => run()?,
        }
        Ok(())
    }
}

/// Chunk buffers in circulation: one read, one sorted, one written.
pub(crate) const CHUNK_BUFFERS: usize = 3;

/// Calls the progress callback at most every [`PROGRESS_EVERY`], and always for `force`.
pub(crate) struct Ticker<'a> {
    progress: Option<&'a ProgressFn>,
    last: Option<Instant>,
}

/// The shortest time between two progress calls of one phase.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

impl<'a> Ticker<'a> {
    pub(crate) fn new(progress: Option<&'a ProgressFn>) -> Self {
        Ticker {
            progress,
            last: None,
        }
    }

    pub(crate) fn tick(&mut self, phase: Phase, done: u64, total: Option<u64>, force: bool) {
        let Some(progress) = self.progress else {
            return;
        };
        let now = Instant::now();
        if force || self.last.is_none_or(|t| now - t >= PROGRESS_EVERY) {
            self.last = Some(now);
            progress(&Progress { phase, done, total });
        }
    }
}

/// Keys a chunk buffer starts with (1 MiB of `u64` keys): buffers grow to the chunk's length
/// as input arrives, so that a small input costs its own size, not the memory budget's.
const FIRST_FILL_KEYS: usize = 1 << 17;

/// Fills `buf` with the next keys of `input`, lengthening it (doubling, up to `chunk_keys`)
/// while the input has more; returns how many keys it holds, fewer than `chunk_keys` only at
/// the end of the input. A lengthened buffer's pages move without a copy and cost memory
/// only once written (see `crate::pages`).
fn fill_chunk<K: FileKey>(
    input: &mut InputReader,
    buf: &mut AlignedBuf<K>,
    chunk_keys: usize,
    report: &mut dyn FnMut(u64),
) -> Result<usize, FileSortError> {
    let mut n = 0;
    loop {
        let end = chunk_keys.min(buf.len());
        n += input.fill(&mut buf[n..end], report)?;
        if n >= chunk_keys || n < buf.len() || input.exhausted() {
            return Ok(n);
        }
        buf.grow(buf.len().saturating_mul(2).clamp(1, chunk_keys));
    }
}

/// Time spent in run formation.
#[derive(Default)]
pub(crate) struct FormTimes {
    pub(crate) wall: Duration,
    pub(crate) sort: Duration,
}

/// Reads `input` in chunks of `chunk_keys` keys, sorts each, and writes each to a run in the
/// folder that `make_dir` creates (only once a second chunk is needed: an input that fits
/// one chunk comes back whole and sorted, and needs no temporary folder).
pub(crate) fn form_runs<K: FileKey>(
    mut input: InputReader,
    chunk_keys: usize,
    sorting: &mut Sorting<'_>,
    make_dir: &mut dyn FnMut() -> Result<RunDir, FileSortError>,
    dir: &mut Option<RunDir>,
    progress: Option<&ProgressFn>,
) -> Result<(Formed<K>, FormTimes), FileSortError> {
    let started = Instant::now();
    let mut times = FormTimes::default();
    let total = input.len;
    let chunk_keys = chunk_keys.max(1);
    // A regular file known to span several chunks makes its folder now, so that an unusable
    // temporary folder is reported before any work.
    if total.is_some_and(|len| len > (chunk_keys * std::mem::size_of::<K>()) as u64) {
        *dir = Some(make_dir()?);
    }
    let name = input.name.clone();

    // reader -> sorter: filled chunks (buffer, keys in it, whether the input ended).
    let (full_tx, full_rx) = mpsc::channel::<Result<(AlignedBuf<K>, usize, bool), FileSortError>>();
    // sorter -> writer: sorted chunks and the run to write each to.
    let (sorted_tx, sorted_rx) = mpsc::channel::<(AlignedBuf<K>, usize, PathBuf)>();
    // writer -> reader: buffers to fill again.
    let (free_tx, free_rx) = mpsc::channel::<AlignedBuf<K>>();

    thread::scope(|scope| {
        scope.spawn(move || {
            let mut ticker = Ticker::new(progress);
            let mut allocated = 0;
            loop {
                let mut buf = if allocated < CHUNK_BUFFERS {
                    allocated += 1;
                    AlignedBuf::zeroed(chunk_keys.min(FIRST_FILL_KEYS))
                } else {
                    match free_rx.recv() {
                        Ok(buf) => buf,
                        Err(_) => return, // the writer stopped: an error is on its way
                    }
                };
                let filled = fill_chunk(&mut input, &mut buf, chunk_keys, &mut |done| {
                    ticker.tick(Phase::Read, done, total, false)
                });
                let message = filled.map(|n| {
                    let last = n < chunk_keys || input.exhausted();
                    (buf, n, last)
                });
                let stop = !matches!(message, Ok((_, _, false)));
                if stop {
                    ticker.tick(Phase::Read, input.consumed, total, true);
                }
                if full_tx.send(message).is_err() || stop {
                    return;
                }
            }
        });

        let writer = scope.spawn(move || -> Result<Vec<Run>, FileSortError> {
            let mut runs = Vec::new();
            for (buf, n, path) in sorted_rx {
                // One write of the whole run: with direct I/O the kernel keeps the disk's
                // queue full, and no dirty pages pile up behind it.
                let written = create_run_file(&path)
                    .and_then(|mut file| write_keys_direct(&mut file, &buf[..n]))
                    .map_err(|e| {
                        let folder = path.parent().unwrap_or(&path).display().to_string();
                        FileSortError::io(folder, "write a sorted run in", e)
                    });
                written?;
                runs.push(Run {
                    path,
                    keys: n as u64,
                });
                let _ = free_tx.send(buf);
            }
            Ok(runs)
        });

        let mut outcome: Result<Option<(AlignedBuf<K>, usize)>, FileSortError> = Ok(None);
        let mut first = true;
        for message in &full_rx {
            let (mut buf, n, last) = match message {
                Ok(m) => m,
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            };
            if first && last {
                // The whole input is in memory: say so before the one long sort.
                let bytes = (n * std::mem::size_of::<K>()) as u64;
                Ticker::new(progress).tick(Phase::Sort, 0, Some(bytes), true);
            }
            let t = Instant::now();
            let sorted = sorting.sort(&mut buf[..n]);
            times.sort += t.elapsed();
            if let Err(source) = sorted {
                outcome = Err(FileSortError::Sort {
                    path: name.clone(),
                    source,
                });
                break;
            }
            if first && last {
                outcome = Ok(Some((buf, n)));
                break;
            }
            first = false;
            if n == 0 {
                continue; // the input ended exactly at a chunk's end
            }
            if dir.is_none() {
                match make_dir() {
                    Ok(d) => *dir = Some(d),
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                }
            }
            let path = dir.as_mut().expect("made above").next_run_path();
            if sorted_tx.send((buf, n, path)).is_err() {
                break; // the writer failed: its error is below
            }
        }
        // Hang up on both threads: the writer finishes what it has, the reader stops at its
        // next send or when the writer's buffers stop coming back.
        drop(sorted_tx);
        drop(full_rx);
        let runs = writer.join().expect("run writer panicked");
        times.wall = started.elapsed();
        match (outcome, runs) {
            (Err(e), _) | (Ok(_), Err(e)) => Err(e),
            (Ok(Some((keys, len))), Ok(_)) => Ok((Formed::Whole { keys, len }, times)),
            (Ok(None), Ok(runs)) => Ok((Formed::Runs(runs), times)),
        }
    })
}
