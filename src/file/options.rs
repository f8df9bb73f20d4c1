//! What a file sort is asked to do (typed options, `Default` = what the `sortnet` tool ships)
//! and what it reports back.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::SortBackend;

/// The key type of a file: every key has the same type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `f32`, in IEEE-754 total order.
    F32,
    /// `u64`
    #[default]
    U64,
    /// `i64`
    I64,
    /// `f64`, in IEEE-754 total order.
    F64,
}

impl KeyType {
    /// Bytes per key in the binary format.
    pub fn bytes(self) -> usize {
        match self {
            KeyType::U32 | KeyType::I32 | KeyType::F32 => 4,
            KeyType::U64 | KeyType::I64 | KeyType::F64 => 8,
        }
    }

    /// The Rust name of the type, e.g. `"f32"`.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::I32 => "i32",
            KeyType::F32 => "f32",
            KeyType::U64 => "u64",
            KeyType::I64 => "i64",
            KeyType::F64 => "f64",
        }
    }
}

/// How keys are stored in the input and output files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// Raw little-endian keys, back to back; the length must be a whole number of keys.
    #[default]
    Binary,
    /// One number per line, as Rust parses them (`-0.0`, `1e-45`, `inf`, `NaN`; surrounding
    /// spaces and a `\r` before the `\n` are ignored). The output prints each key with the
    /// shortest text that parses back to it; the sign and payload of a NaN survive only the
    /// binary format.
    Text,
}

/// The order of the output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest first (floats: -NaN first, +NaN last).
    #[default]
    Ascending,
    /// Largest first (floats: +NaN first).
    Descending,
}

/// The stage a file sort is in, for [`Progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Reading the input: the whole of it (an in-memory sort), or a budget-sized chunk at a
    /// time, each sorted and written to a temporary run.
    Read,
    /// Sorting the keys of an input that fits the budget.
    Sort,
    /// Merging runs: `step` counts from 1 to `steps`. One step merges every run into the
    /// output when they are no more than the fan-in; more runs take earlier steps that each
    /// merge up to fan-in runs into a longer one.
    Merge {
        /// This merge, from 1.
        step: usize,
        /// Merges in all.
        steps: usize,
    },
    /// Writing the output of an in-memory sort.
    Write,
}

/// How far a file sort has come, handed to [`FileSortOptions::progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The current stage.
    pub phase: Phase,
    /// Bytes done in this phase: of the input while reading, of keys while merging or
    /// writing.
    pub done: u64,
    /// Bytes this phase will take in all, when known (not for a stream's input).
    pub total: Option<u64>,
}

/// A progress callback; called from the sort's own threads, a few times a second at most
/// per phase and at each phase's start and end.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// The choices of a file sort. `Default` sorts binary `u64` keys ascending with `auto`, half
/// of the memory available now, and the system's temporary folder.
#[derive(Clone)]
pub struct FileSortOptions {
    /// The type of every key.
    pub key_type: KeyType,
    /// Binary or text, for the input and the output alike.
    pub format: Format,
    /// Ascending or descending.
    pub order: Order,
    /// The most memory the sort may hold, in bytes: keys, the sort's scratch and the I/O
    /// blocks. An input up to half of it is sorted in memory (the radix sort needs scratch as
    /// large as the keys); a larger one is sorted in runs of a quarter of it and merged. A
    /// ceiling: buffers grow with the input, so a small input costs its own size.
    /// Budgets under [`MIN_MEMORY`] are raised to it.
    pub memory: usize,
    /// Where the temporary runs go (a folder of their own is made inside it and removed at
    /// the end); `None` is [`std::env::temp_dir`] (`TMPDIR`, else `/tmp`). It needs room for
    /// the input's keys, and for a second copy while a multi-pass merge runs.
    pub temp_dir: Option<PathBuf>,
    /// Threads for sorting the chunks and merging the runs; `None` is rayon's global pool.
    pub threads: Option<usize>,
    /// The most runs one merge reads at once; more runs take more than one merge pass. The
    /// memory budget may lower it, so that every run gets blocks of a useful size.
    pub fan_in: usize,
    /// The backend that sorts each chunk; `None` is [`crate::backend::auto`].
    pub backend: Option<&'static dyn SortBackend>,
    /// Called as the sort advances, e.g. to draw a progress bar.
    pub progress: Option<ProgressFn>,
}

/// The smallest memory budget a file sort uses: room for the input's read buffer, a chunk, and
/// a few blocks for each of a few runs.
pub const MIN_MEMORY: usize = 1 << 20;

/// The default fan-in: 64 runs of 8 MiB blocks, double-buffered, take 1 GiB; more runs than
/// this in one pass would cut the blocks to sizes where a disk's seeks start to show.
pub const DEFAULT_FAN_IN: usize = 64;

impl Default for FileSortOptions {
    fn default() -> Self {
        FileSortOptions {
            key_type: KeyType::default(),
            format: Format::default(),
            order: Order::default(),
            memory: default_memory(),
            temp_dir: None,
            threads: None,
            fan_in: DEFAULT_FAN_IN,
            backend: None,
            progress: None,
        }
    }
}

impl fmt::Debug for FileSortOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileSortOptions")
            .field("key_type", &self.key_type)
            .field("format", &self.format)
            .field("order", &self.order)
            .field("memory", &self.memory)
            .field("temp_dir", &self.temp_dir)
            .field("threads", &self.threads)
            .field("fan_in", &self.fan_in)
            .field("backend", &self.backend.map(|b| b.name()))
            .field("progress", &self.progress.as_ref().map(|_| "callback"))
            .finish()
    }
}

/// The default memory budget: half of the memory available now (`MemAvailable` in
/// `/proc/meminfo`), which leaves the other half to the page cache that the runs pass
/// through and to other programs; 1 GiB where that is not known.
pub fn default_memory() -> usize {
    available_memory().map_or(1 << 30, |bytes| bytes / 2)
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// What a file sort did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSortReport {
    /// Keys sorted.
    pub keys: u64,
    /// The memory budget used (the one asked for, raised to [`MIN_MEMORY`]).
    pub memory: usize,
    /// Sorted runs written to the temporary folder; 0 when the input was sorted in memory.
    pub runs: usize,
    /// Merges of runs (the last one writes the output): 1 when the runs are no more than the
    /// fan-in; 0 in memory.
    pub merges: usize,
    /// The backend that sorted the chunks (the one `auto` picked for the first chunk).
    pub backend: &'static str,
    /// Time spent reading the input (in memory) or forming the runs (reading, sorting and
    /// writing overlap there).
    pub read: Duration,
    /// Time spent in the sort calls.
    pub sort: Duration,
    /// Time spent writing the output of an in-memory sort, or merging.
    pub write: Duration,
}
