//! Host slices to the GPU and back: staging copies, and for large slices the streamed path,
//! whose host copies (on all cores) overlap the GPU's copies piece by piece.
//!
//! A [`TransferConfig`] says how: the size of a streamed piece and how many bytes of
//! buffers a sorter keeps for its next call. Each sorter has a `HostPath` of its own: its
//! config and its buffer pool.

use std::ops::Range;
use std::sync::Arc;

use bytemuck::Pod;
use vulkano::buffer::{BufferContents, Subbuffer};
use vulkano::command_buffer::{AutoCommandBufferBuilder, CopyBufferInfo, PrimaryAutoCommandBuffer};
use vulkano::query::{QueryPool, QueryPoolCreateInfo, QueryResultFlags, QueryType};
use vulkano::sync::future::FenceSignalFuture;
use vulkano::sync::{GpuFuture, PipelineStage};

use super::context::{gpu_err, GpuContext, Submitted};
use super::host_copy::par_copy;
use super::pool::{Memory, Pool, Pooled};
use crate::error::{Error, Result};

/// The smallest piece of a streamed host transfer (large transfers take up to four times
/// this, see `HostPath::pieces`), and half the size from which host slices stream: 16 MiB
/// is about 0.3 ms of PCIe copy (51-53 GB/s) and of host copying on 16 cores on the H200
/// machine, long against a submission's overhead (tens of microseconds), short enough that
/// the first and last piece, which nothing overlaps, cost little (BENCHMARKS.md, "GPU host
/// path").
pub const STREAM_PIECE_BYTES: u64 = 16 << 20;

/// Bytes of buffers a sorter's host path keeps for its next call by default: no byte limit,
/// only up to four buffers of each size class, since allocating a round trip's device and
/// pinned staging memory on every call costs more than the sort (6-9x end to end at 2^24
/// and 2^26 u32 keys on the H200 machine; BENCHMARKS.md, "GPU host path").
pub const KEEP_BYTES: u64 = u64::MAX;

/// How host slices travel to the GPU and back. `Default` is what ships.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransferConfig {
    /// Bytes of the smallest piece of a streamed transfer (rounded down to a multiple of
    /// 256, at least 256); slices of at least two pieces stream. Default
    /// [`STREAM_PIECE_BYTES`]; tests use a few KiB so that a software driver streams small
    /// slices.
    pub piece_bytes: u64,
    /// Bytes of device and staging buffers kept for the next call once a call returns
    /// (default [`KEEP_BYTES`]: the buffers of the last sorts, up to four per size class).
    /// A small budget (a few MiB) makes each call give a large sort's buffers back to the
    /// driver, at the cost of allocating them again on the next call.
    pub keep_bytes: u64,
    /// Fault injection for the no-data-loss tests: a streamed download fails after this
    /// many pieces were copied back into the caller's slice.
    #[cfg(feature = "test-faults")]
    pub fail_after_pieces: Option<usize>,
}

impl Default for TransferConfig {
    fn default() -> Self {
        TransferConfig {
            piece_bytes: STREAM_PIECE_BYTES,
            keep_bytes: KEEP_BYTES,
            #[cfg(feature = "test-faults")]
            fail_after_pieces: None,
        }
    }
}

impl TransferConfig {
    /// Whether host slices of `bytes` bytes (not inside a [`HostBuffer`](super::HostBuffer))
    /// take the streamed path on `ctx` under this config: at least two pieces, a queue with
    /// timestamps (they mark finished pieces) and host-coherent staging memory (finished
    /// pieces are read while the GPU still writes others).
    pub(crate) fn streams(&self, ctx: &GpuContext, bytes: u64) -> bool {
        bytes >= 2 * piece_bytes(self)
            && ctx.limits().timestamp_period_ns.is_some()
            && ctx.staging_is_coherent()
    }
}

/// Bytes of the smallest streamed piece: a multiple of 256, so that every piece of a buffer
/// starts at an offset a storage-buffer binding may take.
fn piece_bytes(config: &TransferConfig) -> u64 {
    config.piece_bytes.max(256) & !255
}

/// A sorter's way to and from host slices: the context, its transfer config and its own
/// buffer pool.
pub(crate) struct HostPath {
    ctx: Arc<GpuContext>,
    config: TransferConfig,
    pool: Arc<Pool>,
}

impl std::fmt::Debug for HostPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostPath")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HostPath {
    pub(crate) fn new(ctx: Arc<GpuContext>, config: TransferConfig) -> Self {
        HostPath {
            pool: Arc::new(Pool::new(config.keep_bytes)),
            ctx,
            config,
        }
    }

    pub(crate) fn ctx(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// A buffer of at least `bytes` bytes from this path's pool.
    pub(crate) fn buffer(&self, memory: Memory, bytes: u64) -> Result<Pooled> {
        self.ctx.buffer_from(&self.pool, memory, bytes)
    }

    /// A staging buffer from this path's pool holding a copy of `data`.
    pub(crate) fn stage_in<T: BufferContents + Pod>(&self, data: &[T]) -> Result<Pooled> {
        self.ctx.stage_in(&self.pool, data)
    }

    /// Whether host slices of `bytes` bytes take the streamed path
    /// ([`TransferConfig::streams`]).
    pub(crate) fn streams(&self, bytes: u64) -> bool {
        self.config.streams(&self.ctx, bytes)
    }

    /// The pieces a streamed transfer of `len` elements of `size` bytes moves, in order:
    /// a 32nd of the bytes, at least the stream piece and at most four of them (16-64 MiB
    /// by default). On the H200 host 16 MiB pieces were best for 256-512 MiB and 64 MiB
    /// pieces for 1-2 GiB; 4 MiB pieces were slower at 16-128 MiB (BENCHMARKS.md, "GPU host
    /// path").
    fn pieces(&self, len: u64, size: u64) -> Vec<Range<u64>> {
        let piece_bytes = piece_bytes(&self.config);
        let bytes = (len * size / 32).clamp(piece_bytes, 4 * piece_bytes) & !255;
        let piece = (bytes / size).max(1);
        (0..len)
            .step_by(piece as usize)
            .map(|start| start..(start + piece).min(len))
            .collect()
    }

    /// Moves `data` into the first `data.len()` elements of `device`, runs the work that
    /// `record` records, moves the result back into `data`, overlapping the host's copies
    /// with the GPU's ([`HostStream`]). On `Err` `data` holds its original contents.
    /// Callers check [`streams`](Self::streams) first.
    pub(crate) fn round_trip_streamed<T: BufferContents + Pod>(
        &self,
        data: &mut [T],
        device: &Subbuffer<[T]>,
        record: impl FnOnce(&mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>) -> Result<()>,
    ) -> Result<()> {
        let n = data.len() as u64;
        if n == 0 {
            return Ok(());
        }
        let device = device.clone().slice(0..n);
        let mut stream = self.host_stream(data)?;
        let result = stream
            .upload(&device)
            .and_then(|()| stream.download(Box::new(record), device));
        stream.finish(result)
    }

    /// Starts streaming `data` to the device and back: staging copies for both ways (the
    /// input's is kept until the end, so that on `Err` what was written back is restored).
    fn host_stream<'d, T: BufferContents + Pod>(
        &'d self,
        data: &'d mut [T],
    ) -> Result<HostStream<'d, T>> {
        let size = std::mem::size_of::<T>() as u64;
        let n = data.len() as u64;
        let input = self.buffer(Memory::Staging, n.max(1) * size)?;
        let output = self.buffer(Memory::Staging, n.max(1) * size)?;
        Ok(HostStream {
            path: self,
            input_view: input.slice::<T>(n),
            output_view: output.slice::<T>(n),
            _staging: [input, output],
            data,
            written: 0,
            pending: Vec::new(),
        })
    }

    /// processed and downloaded by its own submission), keeping two pieces in flight while
    /// the host fills the next one and empties the one before, all on all cores. For work
    /// that is independent per element, like the nibble sort. On `Err` `data` holds its
    /// original contents (restored from the input's staging buffer). Callers check
    /// [`streams`](Self::streams) first.
    ///
    /// Uploads, work and downloads on three queues (the copy engines' transfer family and
    /// the compute queue, chained by semaphores) measured no faster on the H200: the host's
    /// own copies bound this path, so one queue it is (BENCHMARKS.md, "GPU host path").
    pub(crate) fn stream_pieces<T: BufferContents + Pod>(
        &self,
        data: &mut [T],
        record: impl Fn(
            &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
            Subbuffer<[T]>,
        ) -> Result<()>,
    ) -> Result<()> {
        /// Pieces submitted ahead of the one the host empties.
        const IN_FLIGHT: usize = 2;
        let size = std::mem::size_of::<T>() as u64;
        let n = data.len() as u64;
        if n == 0 {
            return Ok(());
        }
        let pieces = self.pieces(n, size);
        let input = self.buffer(Memory::Staging, n * size)?;
        let output = self.buffer(Memory::Staging, n * size)?;
        let device = self.buffer(Memory::Device, n * size)?;
        let (input, output, device) = (
            input.slice::<T>(n),
            output.slice::<T>(n),
            device.slice::<T>(n),
        );
        let mut in_flight = std::collections::VecDeque::with_capacity(IN_FLIGHT + 1);
        let mut written = 0usize;
        let result = (|| {
            for (i, r) in pieces.iter().enumerate() {
                let staged = input.clone().slice(r.clone());
                par_copy(
                    &mut staged
                        .write()
                        .map_err(gpu_err("mapping a staging buffer"))?,
                    &data[r.start as usize..r.end as usize],
                );
                let on_device = device.clone().slice(r.clone());
                let landing = output.clone().slice(r.clone());
                let mut builder = self.ctx.command_builder()?;
                builder
                    .copy_buffer(CopyBufferInfo::buffers(staged, on_device.clone()))
                    .map_err(gpu_err("recording an upload"))?;
                record(&mut builder, on_device.clone())?;
                builder
                    .copy_buffer(CopyBufferInfo::buffers(on_device, landing))
                    .map_err(gpu_err("recording a download"))?;
                in_flight.push_back((i, self.ctx.submit(builder)?));
                let last = i + 1 == pieces.len();
                while in_flight.len() > IN_FLIGHT || (last && !in_flight.is_empty()) {
                    let (j, done) = in_flight.pop_front().expect("not empty");
                    done.wait(None).map_err(gpu_err("waiting for the GPU"))?;
                    drop(done);
                    let landed = output.clone().slice(pieces[j].clone());
                    let range = pieces[j].start as usize..pieces[j].end as usize;
                    par_copy(
                        &mut data[range.clone()],
                        &landed.read().map_err(gpu_err("mapping a staging buffer"))?,
                    );
                    written = range.end;
                }
            }
            Ok(())
        })();
        if result.is_err() {
            // Let the GPU finish (or fail) whatever is in flight before reading the input.
            drop(in_flight);
            restore_prefix(data, &input, written)?;
        }
        result
    }

    /// A timestamp query pool of `count` queries, marking finished pieces.
    fn piece_marks(&self, count: u32) -> Result<Arc<QueryPool>> {
        QueryPool::new(
            self.ctx.device().clone(),
            QueryPoolCreateInfo {
                query_count: count.max(1),
                ..QueryPoolCreateInfo::query_type(QueryType::Timestamp)
            },
        )
        .map_err(gpu_err("creating a query pool"))
    }
}

/// Records work into a command buffer of the compute queue.
type Recorder<'r> =
    Box<dyn FnOnce(&mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>) -> Result<()> + 'r>;

/// A host slice on its way to the device and back, piece by piece, with the host's copies
/// (on all cores) overlapping the GPU's:
///
/// - [`upload`](Self::upload): each piece is copied into staging memory and its DMA
///   submitted at once, so the GPU moves piece `i` while the host fills piece `i + 1`;
/// - [`download`](Self::download): the work (on the compute queue), then the copy of its
///   result back piece by piece (on the transfer queue where the device has one, else on
///   the compute queue, after a semaphore) with a timestamp after each piece; the host
///   copies a piece out as soon as its timestamp is written, while the GPU moves the next.
///
/// [`finish`](Self::finish) restores what was written back when the result is an `Err`:
/// then `data` holds its original contents.
struct HostStream<'d, T: BufferContents> {
    /// Uploads not yet waited for. First, so that dropping the stream waits for them before
    /// the staging buffers go back to the pool.
    pending: Vec<Submitted>,
    path: &'d HostPath,
    data: &'d mut [T],
    input_view: Subbuffer<[T]>,
    output_view: Subbuffer<[T]>,
    /// The pooled staging buffers behind the views, returned to the pool at the end.
    _staging: [Pooled; 2],
    /// Elements at the front of `data` already overwritten by results.
    written: usize,
}

impl<T: BufferContents + Pod> HostStream<'_, T> {
    /// Uploads the slice into the first `data.len()` elements of `device`, piece by piece,
    /// without waiting for the last pieces' copies.
    fn upload(&mut self, device: &Subbuffer<[T]>) -> Result<()> {
        let ctx = self.path.ctx.clone();
        let size = std::mem::size_of::<T>() as u64;
        let queue = ctx.transfer.clone().unwrap_or_else(|| ctx.queue().clone());
        for r in self.path.pieces(self.data.len() as u64, size) {
            let staged = self.input_view.clone().slice(r.clone());
            par_copy(
                &mut staged
                    .write()
                    .map_err(gpu_err("mapping a staging buffer"))?,
                &self.data[r.start as usize..r.end as usize],
            );
            let mut builder = ctx.builder_on(&queue)?;
            builder
                .copy_buffer(CopyBufferInfo::buffers(staged, device.clone().slice(r)))
                .map_err(gpu_err("recording an upload"))?;
            self.pending.push(ctx.submit_on(&queue, builder)?);
        }
        Ok(())
    }

    /// Waits until every upload has landed on the device.
    fn wait_uploads(&mut self) -> Result<()> {
        for submitted in self.pending.drain(..) {
            submitted
                .wait(None)
                .map_err(gpu_err("waiting for the GPU"))?;
        }
        Ok(())
    }

    /// Runs `work`, after which `source` holds the result, and brings `source` back into the
    /// slice piece by piece; see the type's description. On `Err` the GPU has finished (or
    /// failed) everything submitted.
    fn download(&mut self, work: Recorder<'_>, source: Subbuffer<[T]>) -> Result<()> {
        let ctx = self.path.ctx.clone();
        let size = std::mem::size_of::<T>() as u64;
        let n = self.data.len() as u64;
        if source.len() != n {
            return Err(Error::Gpu(format!(
                "a streamed result holds {} elements, the slice {n}",
                source.len()
            )));
        }
        let cuts = self.path.pieces(n, size);
        let total = cuts.len() as u32;
        let marks = self.path.piece_marks(total)?;
        let down_queue = ctx.transfer.clone().unwrap_or_else(|| ctx.queue().clone());
        // The work and the download are recorded while the uploads run.
        let mut builder = ctx.command_builder()?;
        // SAFETY: the pool is new; its queries are reset here, before the download (which
        // waits for this submission through its semaphore) writes each once.
        unsafe { builder.reset_query_pool(marks.clone(), 0..total) }
            .map_err(gpu_err("resetting queries"))?;
        work(&mut builder)?;
        let mut down = ctx.builder_on(&down_queue)?;
        for (mark, on_host) in cuts.iter().enumerate() {
            down.copy_buffer(CopyBufferInfo::buffers(
                source.clone().slice(on_host.clone()),
                self.output_view.clone().slice(on_host.clone()),
            ))
            .map_err(gpu_err("recording a download"))?;
            // SAFETY: query `mark` was reset by the work's submission, which the download
            // waits for (a semaphore); it is written once, after this piece's copy.
            unsafe { down.write_timestamp(marks.clone(), mark as u32, PipelineStage::AllCommands) }
                .map_err(gpu_err("recording a timestamp"))?;
        }
        let work = builder.build().map_err(gpu_err("building commands"))?;
        let down = down.build().map_err(gpu_err("building commands"))?;
        self.wait_uploads()?;
        let landing = vulkano::sync::now(ctx.device().clone())
            .then_execute(ctx.queue().clone(), work)
            .map_err(gpu_err("submitting work"))?
            .then_signal_semaphore_and_flush()
            .map_err(gpu_err("flushing work"))?
            .then_execute(down_queue, down)
            .map_err(gpu_err("submitting a download"))?
            .boxed()
            .then_signal_fence_and_flush()
            .map_err(gpu_err("flushing a download"))?;
        for (mark, on_host) in cuts.iter().enumerate() {
            wait_for_mark(&marks, mark as u32, &landing)?;
            let range = on_host.start as usize..on_host.end as usize;
            let view = self.output_view.clone().slice(on_host.clone());
            // SAFETY: this piece's copy has finished (its timestamp, written after it, is
            // available), nothing writes that range again, and the memory is host-coherent
            // (`streams`), so the mapped bytes are the copy's result and are read while no
            // one writes them. (Like every download in the crate, it relies on coherent
            // memory rather than a barrier to the host stage, which vulkano's command
            // buffers do not record.)
            let landed = unsafe { mapped::<T>(&view)? };
            par_copy(&mut self.data[range.clone()], landed);
            self.written = range.end;
            #[cfg(feature = "test-faults")]
            if self.path.config.fail_after_pieces == Some(mark + 1) {
                return Err(Error::Gpu(format!(
                    "failing after {} pieces (TransferConfig::fail_after_pieces)",
                    mark + 1
                )));
            }
        }
        landing.wait(None).map_err(gpu_err("waiting for the GPU"))
    }

    /// Ends the stream with `result`; on `Err` restores the part of the slice already
    /// overwritten (after the GPU finished whatever was in flight).
    fn finish(mut self, result: Result<()>) -> Result<()> {
        if result.is_err() {
            self.pending.clear();
            restore_prefix(self.data, &self.input_view, self.written)?;
        }
        result
    }
}

/// Puts back the first `written` elements of `data` from `input`, the staging copy of its
/// original contents (after an `Err` on the streamed paths).
fn restore_prefix<T: BufferContents + Pod>(
    data: &mut [T],
    input: &Subbuffer<[T]>,
    written: usize,
) -> Result<()> {
    if written > 0 {
        par_copy(
            &mut data[..written],
            &input
                .clone()
                .slice(0..written as u64)
                .read()
                .map_err(gpu_err("mapping a staging buffer"))?,
        );
    }
    Ok(())
}

/// Waits until timestamp `query` of `marks` is written, or the whole submission `done` has
/// finished (then the query must be there too).
fn wait_for_mark<F: GpuFuture>(
    marks: &QueryPool,
    query: u32,
    done: &FenceSignalFuture<F>,
) -> Result<()> {
    let mut ticks = [0u64];
    loop {
        if marks
            .get_results(query..query + 1, &mut ticks, QueryResultFlags::empty())
            .map_err(gpu_err("reading a timestamp"))?
        {
            return Ok(());
        }
        if done.is_signaled().map_err(gpu_err("polling a fence"))? {
            marks
                .get_results(query..query + 1, &mut ticks, QueryResultFlags::WAIT)
                .map_err(gpu_err("reading a timestamp"))?;
            return Ok(());
        }
        std::thread::yield_now();
    }
}

/// The host-visible contents of a staging subbuffer, without taking vulkano's lock (the
/// submission that wrote it is still running, on other ranges).
///
/// # Safety
///
/// The GPU must have finished writing `view`, nothing may write it while the returned slice
/// lives, and its memory must be host-coherent.
unsafe fn mapped<T: BufferContents + Pod>(view: &Subbuffer<[T]>) -> Result<&[T]> {
    let bytes = view
        .mapped_slice()
        .map_err(gpu_err("mapping a staging buffer"))?;
    let len = view.len() as usize;
    // SAFETY: `mapped_slice` points at the view's bytes in the persistent mapping, which
    // lives as long as the buffer (`view` borrows it); the bytes hold `len` values of the
    // plain-data type T (the buffer was created for T's alignment by `slice::<T>`), and the
    // caller guarantees they are finished and not written meanwhile.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u8>().cast::<T>(), len) })
}
