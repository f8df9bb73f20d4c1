//! The k-way merge of sorted runs, fed by a reader thread (read-ahead: each run has one
//! block being merged and one being read) and drained by a writer thread (write-behind), so
//! that reading, merging and writing overlap; the merging itself is spread over the rayon
//! threads a batch at a time (see [`merge_loop`] and [`batch`]).

use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

use super::batch;
use super::codec::{key_bytes_mut, write_keys, Encoding, FileKey};
use super::direct::{advise_sequential, align_down, AlignedBuf, DirectFile};
use super::error::FileSortError;
use super::options::{Order, Phase, ProgressFn};
use super::runs::{Run, Ticker};
use crate::KeyWidth;

/// The smallest block a run is read in: below this, the calls and (on a disk) the seeks
/// between runs cost more than the merge itself. The fan-in is lowered so that every run
/// gets blocks of at least this size.
const MIN_BLOCK_BYTES: usize = 16 << 10;

/// The largest block. A direct write keeps the disk busy only with what one call hands it:
/// on the build machine's virtual disk 8 MiB writes reach about half of what 64 MiB ones do,
/// so blocks grow to this while the budget allows; larger ones only delay the overlap.
const MAX_BLOCK_BYTES: usize = 32 << 20;

/// Output blocks in flight: one being filled, two queued for or being written by the writer.
const OUT_BLOCKS: usize = 3;

/// The most runs one merge may read with `memory` bytes: two blocks each, of at least
/// [`MIN_BLOCK_BYTES`], beside the output's blocks; at least 2.
pub(crate) fn max_fan_in(memory: usize) -> usize {
    (memory / MIN_BLOCK_BYTES)
        .saturating_sub(OUT_BLOCKS)
        .checked_div(2)
        .unwrap_or(0)
        .max(2)
}

/// Keys per block when `runs` runs share `memory` bytes.
pub(crate) fn block_keys(memory: usize, runs: usize, width: usize) -> usize {
    let bytes = (memory / (2 * runs + OUT_BLOCKS)).clamp(MIN_BLOCK_BYTES, MAX_BLOCK_BYTES);
    // Whole direct-I/O units, so that every output block but the last is written direct.
    let bytes = align_down(bytes);
    (bytes / width).max(1)
}

/// Where a merge writes: the writer, its name for messages, and its encoding.
pub(crate) struct Sink<'a> {
    pub(crate) out: &'a mut (dyn Write + Send),
    pub(crate) name: String,
    pub(crate) action: &'static str,
    pub(crate) encoding: Encoding,
}

/// A block read from a run: the buffer and how many keys of it are valid (0 at the run's end).
type Block<K> = Result<(AlignedBuf<K>, usize), FileSortError>;

/// The merge's end of the write-behind: full blocks out (buffer, keys in it), empty ones back.
type OutQueue<'a, K> = (
    &'a Sender<(AlignedBuf<K>, usize)>,
    &'a Receiver<AlignedBuf<K>>,
);

/// One run's place in the merge.
struct Cursor<K: FileKey> {
    buf: AlignedBuf<K>,
    pos: usize,
    len: usize,
    /// The run has ended: no block is asked for again.
    done: bool,
    blocks: Receiver<Block<K>>,
}

/// Merges `runs` into `sink` in `order`, reading blocks of `block` keys; returns the number
/// of keys written.
pub(crate) fn merge<K: FileKey>(
    runs: &[Run],
    block: usize,
    order: Order,
    sink: Sink<'_>,
    (phase, progress): (Phase, Option<&ProgressFn>),
    pool: Option<&rayon::ThreadPool>,
) -> Result<u64, FileSortError> {
    match order {
        Order::Ascending => merge_in::<K, false>(runs, block, sink, (phase, progress), pool),
        Order::Descending => merge_in::<K, true>(runs, block, sink, (phase, progress), pool),
    }
}

/// Whether `a` goes before `b` in the output.
#[inline(always)]
pub(crate) fn before<K: FileKey, const DESC: bool>(a: &K, b: &K) -> bool {
    let ord = a.key_cmp(b);
    if DESC {
        ord.is_gt()
    } else {
        ord.is_lt()
    }
}

fn merge_in<K: FileKey, const DESC: bool>(
    runs: &[Run],
    block: usize,
    sink: Sink<'_>,
    (phase, progress): (Phase, Option<&ProgressFn>),
    pool: Option<&rayon::ThreadPool>,
) -> Result<u64, FileSortError> {
    let total: u64 = runs.iter().map(|r| r.keys).sum();
    let run_error = |run: &Run, e| {
        let folder = run.path.parent().unwrap_or(&run.path).display().to_string();
        FileSortError::io(folder, "read a sorted run in", e)
    };
    let mut files = Vec::with_capacity(runs.len());
    for run in runs {
        // Direct reads of whole blocks: no copy out of the page cache, and the runs, read
        // once, do not crowd the cache.
        let file = DirectFile::open(&run.path).map_err(|e| run_error(run, e))?;
        advise_sequential(file.file());
        files.push((file, run.keys));
    }

    let (request_tx, request_rx) = mpsc::channel::<(usize, AlignedBuf<K>)>();
    let mut replies: Vec<Sender<Block<K>>> = Vec::with_capacity(runs.len());
    let mut cursors: Vec<Cursor<K>> = Vec::with_capacity(runs.len());
    for _ in runs {
        let (tx, rx) = mpsc::channel();
        replies.push(tx);
        cursors.push(Cursor {
            buf: AlignedBuf::zeroed(0),
            pos: 0,
            len: 0,
            done: false,
            blocks: rx,
        });
    }
    let (out_tx, out_rx) = mpsc::channel::<(AlignedBuf<K>, usize)>();
    let (free_tx, free_rx) = mpsc::channel::<AlignedBuf<K>>();
    let Sink {
        out,
        name,
        action,
        encoding,
    } = sink;

    thread::scope(|scope| {
        // Read-ahead: serves block requests in the order the merge makes them, which is the
        // order it will need the blocks in.
        scope.spawn(move || {
            for (run, mut buf) in request_rx {
                let (file, left) = &mut files[run];
                let n = (*left).min(buf.len() as u64) as usize;
                let read = file.read_exact(key_bytes_mut(&mut buf[..n]));
                *left -= n as u64;
                let reply = read
                    .map(|()| (buf, n))
                    .map_err(|e| run_error(&runs[run], e));
                // A closed reply channel means the merge stopped; it will hang up soon.
                let _ = replies[run].send(reply);
            }
        });

        // Write-behind: encodes and writes full blocks, and hands the buffers back.
        let writer = scope.spawn(move || -> Result<(), FileSortError> {
            let mut text = Vec::new();
            for (mut buf, n) in out_rx {
                write_keys(out, &mut buf[..n], encoding, &mut text)
                    .map_err(|e| FileSortError::io(name.clone(), action, e))?;
                let _ = free_tx.send(buf);
            }
            Ok(())
        });

        let merged = merge_loop::<K, DESC>(
            &mut cursors,
            block,
            &request_tx,
            (&out_tx, &free_rx),
            (Ticker::new(progress), phase),
            total,
            pool,
        );
        drop(out_tx);
        drop(request_tx);
        let written = writer.join().expect("merge writer panicked");
        // The writer's error explains a merge that stopped because the writer went away.
        written?;
        merged
    })
}

/// The key that no key goes before: the largest in total order for an ascending merge (for
/// floats the NaN with every bit set), the smallest for a descending one. A finished run
/// shows it for ever. A real key may equal it, but then the two are the same bits, so
/// whichever of them the merge writes, the output is the same.
pub(crate) fn sentinel<K: FileKey, const DESC: bool>() -> K {
    let mut key = K::default();
    let bytes = key_bytes_mut(std::slice::from_mut(&mut key));
    match K::WIDTH {
        KeyWidth::W32 => {
            let image = if DESC { 0 } else { u32::MAX };
            bytes.copy_from_slice(&K::MAP.decode32(image).to_ne_bytes());
        }
        KeyWidth::W64 => {
            let image = if DESC { 0 } else { u64::MAX };
            bytes.copy_from_slice(&K::MAP.decode64(image).to_ne_bytes());
        }
    }
    key
}

/// The merge's loop, a batch at a time. A batch is what can be merged from the blocks in
/// memory: every run's keys up to the smallest of the runs' last keys in memory (nothing in a
/// later block can go before those), capped at the room left in the output block and cut by
/// rank ([`batch::select`]). The batch is merged on all the rayon threads at once
/// ([`batch::merge_into`]), each into its own part of the output block; a run whose block
/// ends in the batch moves to its next block (read ahead) before the next batch.
fn merge_loop<K: FileKey, const DESC: bool>(
    cursors: &mut [Cursor<K>],
    block: usize,
    requests: &Sender<(usize, AlignedBuf<K>)>,
    (out_tx, free_rx): OutQueue<'_, K>,
    (mut ticker, phase): (Ticker<'_>, Phase),
    total: u64,
    pool: Option<&rayon::ThreadPool>,
) -> Result<u64, FileSortError> {
    let k = cursors.len();
    let width = std::mem::size_of::<K>() as u64;
    let threads = pool.map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
    // Two blocks per run in flight from the start: the first to merge, the next to read.
    // Every run's first block is asked for before any second one, so that the merge starts
    // once one block per run is in, not two.
    for _ in 0..2 {
        for run in 0..k {
            if requests.send((run, AlignedBuf::zeroed(block))).is_err() {
                return Ok(0);
            }
        }
    }
    let mut out_buffers = 1;
    let mut out = AlignedBuf::zeroed(block);
    let mut fill = 0;
    let mut written: u64 = 0;
    ticker.tick(phase, 0, Some(total * width), true);
    while written < total {
        for (run, c) in cursors.iter_mut().enumerate() {
            if c.pos == c.len && !c.done {
                next_block(run, c, requests)?;
            }
        }
        let segs: Vec<&[K]> = cursors
            .iter()
            .filter(|c| c.pos < c.len)
            .map(|c| &c.buf[c.pos..c.len])
            .collect();
        let Some(bound) = segs
            .iter()
            .map(|s| batch::image::<K, DESC>(s[s.len() - 1]))
            .min()
        else {
            break; // every run ended early: the count below says so
        };
        let safe: usize = segs
            .iter()
            .map(|s| s.partition_point(|&key| batch::image::<K, DESC>(key) <= bound))
            .sum();
        let rank = safe.min(out.len() - fill);
        let cuts = batch::select::<K, DESC>(&segs, rank);
        let taken: Vec<&[K]> = segs.iter().zip(&cuts).map(|(s, &c)| &s[..c]).collect();
        let target = &mut out[fill..fill + rank];
        match pool {
            Some(pool) => pool.install(|| batch::merge_into::<K, DESC>(&taken, target, threads)),
            None => batch::merge_into::<K, DESC>(&taken, target, threads),
        }
        let mut cut = cuts.into_iter();
        for c in cursors.iter_mut().filter(|c| c.pos < c.len) {
            c.pos += cut.next().expect("one cut per segment");
        }
        fill += rank;
        written += rank as u64;
        if fill < out.len() && written < total {
            continue;
        }
        let next = if out_buffers < OUT_BLOCKS {
            out_buffers += 1;
            AlignedBuf::zeroed(block)
        } else {
            match free_rx.recv() {
                Ok(buf) => buf,
                Err(_) => return Ok(written), // the writer failed; its error wins
            }
        };
        let full = std::mem::replace(&mut out, next);
        if out_tx.send((full, fill)).is_err() {
            return Ok(written);
        }
        fill = 0;
        ticker.tick(
            phase,
            written * width,
            Some(total * width),
            written == total,
        );
    }
    if written < total {
        return Err(FileSortError::Input {
            path: "the sorted runs".to_string(),
            line: None,
            reason: format!("{written} keys read back of {total} written"),
        });
    }
    Ok(written)
}

/// Moves `cursor` to the run's next block (handing its finished buffer back to be read
/// into); `false` at the run's end.
fn next_block<K: FileKey>(
    run: usize,
    cursor: &mut Cursor<K>,
    requests: &Sender<(usize, AlignedBuf<K>)>,
) -> Result<bool, FileSortError> {
    if cursor.done {
        return Ok(false);
    }
    if cursor.len > 0 {
        let old = std::mem::replace(&mut cursor.buf, AlignedBuf::zeroed(0));
        // The reader only stops once the merge hangs up, so this cannot fail.
        let _ = requests.send((run, old));
    }
    let (buf, n) = cursor
        .blocks
        .recv()
        .expect("the reader answers every request")?;
    cursor.buf = buf;
    cursor.pos = 0;
    cursor.len = n;
    cursor.done = n == 0;
    Ok(n > 0)
}
