//! One partition's sort: its batches gathered under a memory reservation, sorted as one run
//! when the input ends; when the reservation cannot grow, the run so far is sorted and
//! spilled, and at the end the spilled runs are merged. With a fetch, only the best `fetch`
//! rows are kept as the batches arrive.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::LexOrdering;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, SpillMetrics};
use datafusion::physical_plan::sorts::streaming_merge::{SortedSpillFile, StreamingMergeBuilder};
use datafusion::physical_plan::spill::get_record_batch_memory_size;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{EmptyRecordBatchStream, SpillManager};
use futures::stream::{self, StreamExt};

use crate::run::{sort_overhead, Key, SortedRun};

/// With a fetch of `k`, the gathered rows are cut back to the best `k` once there are
/// `max(TOP_K_SLACK * k, TOP_K_MIN_ROWS)` of them: each cut sorts what was gathered with a
/// limit (sortnet-arrow then selects before it sorts), so the rows gathered between cuts
/// pay for one selection each, and memory stays within a few times `k` rows. Reasoned, not
/// yet tuned by measurement.
const TOP_K_SLACK: usize = 4;

/// The fewest rows gathered before a top-k cut, so that a small `k` does not sort a few
/// rows per input batch.
const TOP_K_MIN_ROWS: usize = 1 << 16;

/// The most rows one run holds: sortnet-arrow's indices are `u32`.
const MAX_RUN_ROWS: usize = u32::MAX as usize;

/// The metrics of one partition, as `SortExec` keeps them.
#[derive(Debug, Clone)]
pub(crate) struct SorterMetrics {
    pub(crate) baseline: BaselineMetrics,
    pub(crate) spill: SpillMetrics,
}

impl SorterMetrics {
    pub(crate) fn new(set: &ExecutionPlanMetricsSet, partition: usize) -> Self {
        Self {
            baseline: BaselineMetrics::new(set, partition),
            spill: SpillMetrics::new(set, partition),
        }
    }
}

/// What one partition's sort needs to know.
#[derive(Debug, Clone)]
pub(crate) struct SortSpec {
    pub(crate) schema: SchemaRef,
    pub(crate) keys: Arc<[Key]>,
    /// The same keys as DataFusion expressions, for the merge of spilled runs.
    pub(crate) ordering: LexOrdering,
    pub(crate) fetch: Option<usize>,
}

/// One partition's sort in progress.
pub(crate) struct Sorter {
    spec: SortSpec,
    batch_size: usize,
    batches: Vec<RecordBatch>,
    rows: usize,
    /// The gathered batches and the working memory their sort will need.
    reservation: MemoryReservation,
    /// Memory set aside for merging spilled runs (`sort_spill_reservation_bytes`), so that
    /// the merge does not find the pool empty; freed for the operators downstream when
    /// nothing spilled.
    merge_reservation: MemoryReservation,
    /// The size `merge_reservation` is to have: `sort_spill_reservation_bytes` where the
    /// session can spill, else 0.
    merge_bytes: usize,
    spill_manager: SpillManager,
    spills: Vec<SortedSpillFile>,
    metrics: SorterMetrics,
}

impl Sorter {
    /// A sort for one partition; where the session can spill, it sets aside the merge's
    /// memory now, before this partition gathers.
    pub(crate) fn new(
        spec: SortSpec,
        partition: usize,
        context: &TaskContext,
        metrics: SorterMetrics,
    ) -> Self {
        let runtime = context.runtime_env();
        let config = context.session_config();
        let reservation = MemoryConsumer::new(format!("SortnetExec[{partition}]"))
            .with_can_spill(true)
            .register(&runtime.memory_pool);
        let merge_reservation = MemoryConsumer::new(format!("SortnetExecMerge[{partition}]"))
            .register(&runtime.memory_pool);
        let merge_bytes = match runtime.disk_manager.tmp_files_enabled() {
            true => config.options().execution.sort_spill_reservation_bytes,
            false => 0,
        };
        // Failing here is not an error: another partition may be holding more than its
        // share of the pool for now; the next batches try again.
        let _ = merge_reservation.try_resize(merge_bytes);
        let spill_manager = SpillManager::new(
            Arc::clone(&runtime),
            metrics.spill.clone(),
            Arc::clone(&spec.schema),
        )
        .with_compression_type(config.spill_compression());
        Self {
            batch_size: config.batch_size(),
            merge_bytes,
            spec,
            batches: Vec::new(),
            rows: 0,
            reservation,
            merge_reservation,
            spill_manager,
            spills: Vec::new(),
            metrics,
        }
    }

    /// Gathers `batch`, spilling the run so far if the reservation cannot grow to hold it.
    pub(crate) async fn insert(&mut self, batch: RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.merge_reservation.size() < self.merge_bytes
            && self.merge_reservation.try_resize(self.merge_bytes).is_err()
            && !self.batches.is_empty()
        {
            // The merge's memory comes before the run's: runs spilled without it could not
            // be merged. Spilling this run frees its share of the pool.
            self.spill().await?;
            let _ = self.merge_reservation.try_resize(self.merge_bytes);
        }
        if self.rows + batch.num_rows() > MAX_RUN_ROWS {
            self.spill().await?;
        }
        let bytes = reserved_bytes(&batch, &self.spec.keys);
        if let Err(e) = self.reservation.try_grow(bytes) {
            if self.batches.is_empty() {
                return Err(out_of_memory(e));
            }
            // A top-k first drops what it will not keep; a spill is the last resort.
            let mut grown = false;
            if let Some(k) = self.spec.fetch.filter(|&k| self.rows > k) {
                self.cut_to_fetch(k).await?;
                grown = self.reservation.try_grow(bytes).is_ok();
            }
            if !grown {
                self.spill().await?;
                self.reservation.try_grow(bytes).map_err(out_of_memory)?;
            }
        }
        self.rows += batch.num_rows();
        self.batches.push(batch);
        if let Some(k) = self.spec.fetch {
            if self.rows >= (TOP_K_SLACK * k).max(TOP_K_MIN_ROWS) {
                self.cut_to_fetch(k).await?;
            }
        }
        Ok(())
    }

    /// The sorted output: the gathered run, or the merge of the spilled runs.
    pub(crate) async fn finish(mut self) -> Result<SendableRecordBatchStream> {
        let schema = Arc::clone(&self.spec.schema);
        if self.spills.is_empty() {
            self.merge_reservation.free();
            if self.batches.is_empty() {
                self.metrics.baseline.done();
                return Ok(Box::pin(EmptyRecordBatchStream::new(schema)));
            }
            let held = self.batches_bytes();
            let run = self.sort_gathered().await?;
            // The order is all that is left of the sort's working memory.
            self.reservation.resize(held + 4 * run.len());
            return Ok(emit(run, self.batch_size, self.reservation, self.metrics));
        }
        // Merging an in-memory run with the spilled ones would hold it all through the merge,
        // whose buffers then might not fit; spilled, it is read back a batch at a time.
        if !self.batches.is_empty() {
            self.spill().await?;
        }
        StreamingMergeBuilder::new()
            .with_sorted_spill_files(std::mem::take(&mut self.spills))
            .with_spill_manager(self.spill_manager.clone())
            .with_schema(schema)
            .with_expressions(&self.spec.ordering)
            .with_metrics(self.metrics.baseline.clone())
            .with_batch_size(self.batch_size)
            .with_fetch(self.spec.fetch)
            // Equal keys go to the earlier run, which holds the earlier input.
            .with_round_robin_tie_breaker(false)
            .with_reservation(self.merge_reservation.take())
            .build()
    }

    /// Sorts the gathered batches (the best `fetch` rows of them) off the async runtime.
    async fn sort_gathered(&mut self) -> Result<SortedRun> {
        let batches = std::mem::take(&mut self.batches);
        self.rows = 0;
        let spec = self.spec.clone();
        let time = self.metrics.baseline.elapsed_compute().clone();
        blocking(move || {
            let _timer = time.timer();
            SortedRun::sort(spec.schema, batches, &spec.keys, spec.fetch)
        })
        .await
    }

    /// Cuts the gathered rows back to the best `k`, in one batch.
    async fn cut_to_fetch(&mut self, k: usize) -> Result<()> {
        let run = self.sort_gathered().await?;
        let time = self.metrics.baseline.elapsed_compute().clone();
        let best = blocking(move || {
            let _timer = time.timer();
            run.slice(0, run.len())
        })
        .await?;
        debug_assert!(best.num_rows() <= k);
        self.rows = best.num_rows();
        self.reservation
            .resize(reserved_bytes(&best, &self.spec.keys));
        self.batches = vec![best];
        Ok(())
    }

    /// Sorts the gathered batches into a run, writes it to a spill file and frees their
    /// memory.
    async fn spill(&mut self) -> Result<()> {
        if self.batches.is_empty() {
            return Ok(());
        }
        let run = self.sort_gathered().await?;
        let batch_size = self.batch_size.max(1);
        let spill_manager = self.spill_manager.clone();
        let time = self.metrics.baseline.elapsed_compute().clone();
        let spilled = blocking(move || {
            let mut file = spill_manager.create_in_progress_file("SortnetExec spill")?;
            let mut largest = 0;
            for offset in (0..run.len()).step_by(batch_size) {
                let batch = {
                    let _timer = time.timer();
                    run.slice(offset, batch_size.min(run.len() - offset))?
                };
                largest = largest.max(file.append_batch(&batch)?);
            }
            Ok(file.finish()?.map(|file| SortedSpillFile {
                file,
                max_record_batch_memory: largest,
            }))
        })
        .await?;
        self.reservation.free();
        self.spills.extend(spilled);
        Ok(())
    }

    fn batches_bytes(&self) -> usize {
        self.batches.iter().map(get_record_batch_memory_size).sum()
    }
}

/// Memory to reserve for a gathered batch: the batch and its share of the sort.
fn reserved_bytes(batch: &RecordBatch, keys: &[Key]) -> usize {
    get_record_batch_memory_size(batch) + sort_overhead(batch, keys)
}

/// The run's rows as a stream of batches of `batch_size` rows, made as they are polled; the
/// reservation is held until the stream ends or is dropped.
fn emit(
    run: SortedRun,
    batch_size: usize,
    reservation: MemoryReservation,
    metrics: SorterMetrics,
) -> SendableRecordBatchStream {
    let schema = Arc::clone(run.schema());
    let len = run.len();
    let batch_size = batch_size.max(1);
    let state = (run, reservation, 0usize, metrics);
    let batches = stream::unfold(
        state,
        move |(run, reservation, offset, metrics)| async move {
            if offset >= len {
                reservation.free();
                metrics.baseline.done();
                return None;
            }
            let rows = batch_size.min(len - offset);
            let batch = {
                let _timer = metrics.baseline.elapsed_compute().timer();
                run.slice(offset, rows)
            };
            // After an error the stream ends.
            let next = match &batch {
                Ok(_) => {
                    metrics.baseline.record_output(rows);
                    offset + rows
                }
                Err(_) => len,
            };
            Some((batch, (run, reservation, next, metrics)))
        },
    );
    Box::pin(RecordBatchStreamAdapter::new(schema, batches.fuse()))
}

/// Runs `f` on the blocking pool, so that a sort does not stall the async workers.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    SpawnedTask::spawn_blocking(f)
        .join_unwind()
        .await
        .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))?
}

fn out_of_memory(e: DataFusionError) -> DataFusionError {
    match e {
        DataFusionError::ResourcesExhausted(_) => e.context(
            "Not enough memory for SortnetExec to gather one batch; raise the memory limit \
             ('datafusion.runtime.memory_limit') or lower \
             'datafusion.execution.sort_spill_reservation_bytes'",
        ),
        other => other,
    }
}
