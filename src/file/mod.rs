//! Sorting files of keys, larger than memory too.
//!
//! ```no_run
//! use std::path::Path;
//! use sortnet::file::{self, FileSortOptions, KeyType};
//!
//! let options = FileSortOptions {
//!     key_type: KeyType::U64,
//!     memory: 1 << 30, // 1 GiB
//!     ..FileSortOptions::default()
//! };
//! let report = file::sort_file(Path::new("keys.bin"), Path::new("sorted.bin"), &options)?;
//! println!("{} keys, {} runs", report.keys, report.runs);
//! # Ok::<(), file::FileSortError>(())
//! ```
//!
//! An input up to half of the memory budget is read whole, sorted with the backend (`auto`
//! by default) and written. A larger one is an external sort: chunks of a quarter of the
//! budget are read, sorted and written as runs to a folder of their own inside the
//! temporary folder (reading the next chunk overlaps sorting this one and writing the last),
//! then a k-way merge (batches of the blocks in memory merged on all threads, with
//! read-ahead and write-behind threads) writes the output; runs beyond the fan-in take
//! extra merges first. The keys and buffers stay within the budget: three chunks and the
//! sort's scratch while forming runs, two blocks per run and three output blocks while
//! merging. The budget is a ceiling, not an allocation: chunk buffers start at 1 MiB and
//! double as keys arrive, and their pages cost memory only once written, so an input smaller
//! than a chunk costs its own size (three keys of text: a few MiB, whatever the budget). The
//! process itself adds its code and, where `auto` loads a Vulkan driver, the driver's
//! libraries (about 70 MiB resident with lavapipe).
//!
//! The runs, a binary input sorted in runs and a binary output go around the page cache
//! (`O_DIRECT`, from page-aligned buffers, in blocks of up to 32 MiB) where the file system
//! allows it: on a virtual disk buffered write-back reached a third of the direct
//! throughput, and the copies in and out of the cache cost as many cycles as the merge. An
//! input read whole, file systems that refuse direct I/O, unaligned tails and text get
//! ordinary buffered I/O.
//!
//! Nothing is lost or left behind: a regular output file is written to a temporary file
//! beside it and renamed over it only once complete (so the input and output may be the
//! same path: the input is read to the end before the rename replaces it), devices and
//! FIFOs are written in place, and the runs are removed on success and on every error. A
//! program that exits on a signal calls [`remove_temporary_files`] first (the `sortnet`
//! tool does on Ctrl-C and `SIGTERM`). Errors name the file and the reason
//! ([`FileSortError`]).

mod batch;
mod codec;
mod direct;
mod error;
mod merge;
mod options;
mod output;
mod runs;
mod temp;

use std::collections::VecDeque;
use std::path::Path;
use std::time::Instant;

pub use error::FileSortError;
pub use options::{
    default_memory, FileSortOptions, FileSortReport, Format, KeyType, Order, Phase, Progress,
    ProgressFn, DEFAULT_FAN_IN, MIN_MEMORY,
};
pub use output::write_to_path;
pub use temp::remove_temporary_files;

use codec::{write_keys, Encoding, FileKey, InputReader};
use direct::ALIGN;
use merge::{block_keys, max_fan_in, merge, Sink};
use output::Destination;
use runs::{form_runs, Formed, Run, Sorting, Ticker, CHUNK_BUFFERS};
use temp::RunDir;

/// Sorts the keys in the file `input` into the file `output` (which may be the same path);
/// see the [module docs](self).
pub fn sort_file(
    input: &Path,
    output: &Path,
    options: &FileSortOptions,
) -> Result<FileSortReport, FileSortError> {
    sort_streams(Some(input), Some(output), options)
}

/// [`sort_file`] where `None` reads stdin or writes stdout. Stdout is written as the merge
/// goes, so on an error it may have received part of the output.
pub fn sort_streams(
    input: Option<&Path>,
    output: Option<&Path>,
    options: &FileSortOptions,
) -> Result<FileSortReport, FileSortError> {
    match options.key_type {
        KeyType::U32 => sort_typed::<u32>(input, output, options),
        KeyType::I32 => sort_typed::<i32>(input, output, options),
        KeyType::F32 => sort_typed::<f32>(input, output, options),
        KeyType::U64 => sort_typed::<u64>(input, output, options),
        KeyType::I64 => sort_typed::<i64>(input, output, options),
        KeyType::F64 => sort_typed::<f64>(input, output, options),
    }
}

fn sort_typed<K: FileKey>(
    input: Option<&Path>,
    output: Option<&Path>,
    options: &FileSortOptions,
) -> Result<FileSortReport, FileSortError> {
    let width = std::mem::size_of::<K>();
    let memory = options.memory.max(MIN_MEMORY);
    // A binary file up to half the budget is read whole (the sort's scratch takes the other
    // half), through the page cache as a plain in-memory sort reads it: a file still cached
    // from its writing is copied from memory, not read from the disk again (read direct, a
    // cached 4 GiB file took 1.5-2.2x as long on the build machine; uncached, about as long).
    let whole_max = (memory / 2) as u64;
    let reader = InputReader::open(input, options.format, width, K::NAME, whole_max)?;
    let input_name = reader.name.clone();
    let pool = match options.threads {
        Some(threads) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| {
                    FileSortError::io(
                        input_name.clone(),
                        "start the sort's threads for",
                        std::io::Error::other(e),
                    )
                })?,
        ),
        None => None,
    };
    let backend = options.backend.unwrap_or_else(crate::backend::auto);
    let mut sorting = Sorting {
        backend,
        order: options.order,
        pool: pool.as_ref(),
        radix: crate::keys::CpuRadixSorter::new(),
    };

    // Anything but a whole binary file is read in chunks of a quarter of the budget (three
    // chunks in flight beside the scratch), and an input that ends within its first chunk is
    // sorted in memory all the same.
    let whole_keys = reader
        .len
        .filter(|&len| options.format == Format::Binary && len <= whole_max)
        .map(|len| len as usize / width);
    // Chunks are whole direct-I/O units, so that runs are written direct to their last unit.
    let chunk_keys = whole_keys
        .unwrap_or_else(|| (memory / (CHUNK_BUFFERS + 1)) / ALIGN * ALIGN / width)
        .max(1);

    // Opened first, so that an output that cannot be written fails before the work.
    let output_name = output.map_or("<stdout>".to_string(), |p| p.display().to_string());
    let mut dest =
        Destination::open(output).map_err(|e| FileSortError::io(&*output_name, "write", e))?;

    let temp_parent = options.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let mut make_dir = || {
        RunDir::create(&temp_parent).map_err(|e| {
            FileSortError::io(
                temp_parent.display().to_string(),
                "create a temporary folder in",
                e,
            )
        })
    };
    let mut dir = None;
    let progress = options.progress.as_ref();
    let (formed, times) = form_runs::<K>(
        reader,
        chunk_keys,
        &mut sorting,
        &mut make_dir,
        &mut dir,
        progress,
    )?;
    // Frees the radix scratch before the merge allocates its blocks.
    drop(sorting);
    let mut report = FileSortReport {
        memory,
        backend: match options.backend {
            Some(b) => b.name(),
            None => {
                crate::backend::auto_pick_for(crate::Workload::Keys(K::WIDTH), chunk_keys, K::MAP)
                    .map_or("auto", |b| b.name())
            }
        },
        read: times.wall.saturating_sub(times.sort),
        sort: times.sort,
        ..FileSortReport::default()
    };
    let started = Instant::now();
    let encoding = Encoding::of(options.format);
    let write_error = |e| FileSortError::io(&*output_name, "write", e);
    match formed {
        Formed::Whole { mut keys, len } => {
            let mut ticker = Ticker::new(progress);
            let bytes = (len * width) as u64;
            ticker.tick(Phase::Write, 0, Some(bytes), true);
            write_keys(dest.writer(), &mut keys[..len], encoding, &mut Vec::new())
                .map_err(write_error)?;
            ticker.tick(Phase::Write, bytes, Some(bytes), true);
            report.keys = len as u64;
        }
        Formed::Runs(runs) => {
            let dir = dir.as_mut().expect("runs live in a folder");
            report.runs = runs.len();
            // The sort's scratch may stay cached by the backend after run formation, so the
            // merge keeps to what the chunk buffers used.
            let merge_memory = memory - memory / (CHUNK_BUFFERS + 1);
            let fan_in = options.fan_in.clamp(2, max_fan_in(merge_memory));
            // One merge of `group` into `sink`, with blocks sized for the group's fan-in.
            let merge_step = |phase, group: &[Run], sink: Sink<'_>| {
                let block = block_keys(merge_memory, group.len(), width);
                merge::<K>(
                    group,
                    block,
                    options.order,
                    sink,
                    (phase, progress),
                    pool.as_ref(),
                )
            };
            let steps = merge_steps(runs.len(), fan_in);
            let mut queue: VecDeque<Run> = runs.into();
            let mut step = 0;
            while queue.len() > fan_in {
                step += 1;
                let group: Vec<Run> = queue
                    .drain(..fan_in.min(queue.len() - fan_in + 1))
                    .collect();
                let path = dir.next_run_path();
                let folder = path.parent().unwrap_or(&path).display().to_string();
                let mut file = temp::create_run_file(&path)
                    .map_err(|e| FileSortError::io(&*folder, "write a sorted run in", e))?;
                let sink = Sink {
                    out: &mut file,
                    name: folder,
                    action: "write a sorted run in",
                    encoding: Encoding::Native,
                };
                let keys = merge_step(Phase::Merge { step, steps }, &group, sink)?;
                for run in &group {
                    // Frees the disk space as soon as it can; the folder goes at the end anyway.
                    let _ = std::fs::remove_file(&run.path);
                }
                queue.push_back(Run { path, keys });
            }
            let runs: Vec<Run> = queue.into();
            let sink = Sink {
                out: dest.writer(),
                name: output_name.clone(),
                action: "write",
                encoding,
            };
            report.keys = merge_step(Phase::Merge { step: steps, steps }, &runs, sink)?;
            report.merges = steps;
        }
    }
    dest.commit().map_err(write_error)?;
    report.write = started.elapsed();
    Ok(report)
}

/// Merges needed for `runs` runs with `fan_in`: each merge before the last turns up to
/// `fan_in` runs into one, just enough of them that the last merge takes `fan_in` runs.
fn merge_steps(runs: usize, fan_in: usize) -> usize {
    let mut left = runs;
    let mut steps = 1;
    while left > fan_in {
        left -= fan_in.min(left - fan_in + 1) - 1;
        steps += 1;
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_sort_descending_through_the_key_map() {
        let keys: Vec<f64> = (0..300_000u64)
            .map(|i| f64::from_bits(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .collect();
        let mut want = keys.clone();
        want.sort_by(|a, b| b.total_cmp(a));
        let radix = crate::backend::by_name("radix").expect("radix is built in");
        for backend in [radix, crate::backend::auto()] {
            let mut sorting = Sorting {
                backend,
                order: Order::Descending,
                pool: None,
                radix: crate::keys::CpuRadixSorter::new(),
            };
            let mut got = keys.clone();
            sorting.sort(&mut got).unwrap();
            assert!(got
                .iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }

    #[test]
    fn merge_steps_count_the_extra_merges() {
        assert_eq!(merge_steps(1, 4), 1);
        assert_eq!(merge_steps(4, 4), 1);
        assert_eq!(merge_steps(5, 4), 2); // 2 merged first: 4 left
        assert_eq!(merge_steps(7, 4), 2); // 4 merged first: 4 left
        assert_eq!(merge_steps(8, 4), 3);
        assert_eq!(merge_steps(100, 10), 11);
    }
}
