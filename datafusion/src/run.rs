//! One run: the batches a partition gathered, sorted at once by sortnet-arrow, and read out
//! in batches of any size. The run's rows are never copied as a whole: the key columns are
//! joined into one array each for the sort, and each output batch gathers its rows from the
//! input batches.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, GenericByteViewArray, RecordBatch, RecordBatchOptions, UInt32Array,
};
use datafusion::arrow::compute::{concat, interleave};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::datatypes::{ByteViewType, DataType};
use datafusion::common::Result;
use sortnet_arrow::{SortColumn, SortOptions};

/// A sort key: a column of the input and its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) column: usize,
    pub(crate) options: SortOptions,
}

/// Bytes of working memory per row and per key column that sorting a run takes beyond its
/// batches: sortnet-arrow's codes (8 bytes, 16 for strings and 128-bit keys), the packed
/// keys with the row indices and the radix sort's scratch copy of both. An estimate from
/// sortnet-arrow's engine, not a measurement.
pub(crate) const SORT_BYTES_PER_ROW_PER_KEY: usize = 40;

/// The bytes sorting `batch` as part of a run needs besides the batch itself: the joined
/// key columns' copy of its keys, its share of the order (4 bytes a row) and the working
/// memory.
pub(crate) fn sort_overhead(batch: &RecordBatch, keys: &[Key]) -> usize {
    let key_bytes: usize = keys
        .iter()
        .map(|k| batch.column(k.column).get_array_memory_size())
        .sum();
    key_bytes + batch.num_rows() * (4 + SORT_BYTES_PER_ROW_PER_KEY * keys.len())
}

/// Batches in sorted order.
#[derive(Debug)]
pub(crate) struct SortedRun {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// The first row of each batch in the run's numbering, and the number of rows after the
    /// last.
    starts: Vec<usize>,
    /// The run's rows in sorted order (at most `fetch` of them).
    order: UInt32Array,
}

impl SortedRun {
    /// Sorts `batches` (all of `schema`, none empty) by `keys`: the whole order, or its
    /// first `fetch` rows. Equal keys keep their input order.
    pub(crate) fn sort(
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
        keys: &[Key],
        fetch: Option<usize>,
    ) -> Result<Self> {
        let mut starts = Vec::with_capacity(batches.len() + 1);
        let mut rows = 0;
        for batch in &batches {
            starts.push(rows);
            rows += batch.num_rows();
        }
        starts.push(rows);
        if u32::try_from(rows).is_err() {
            return Err(datafusion::common::DataFusionError::ResourcesExhausted(
                format!(
                    "SortnetExec: a run of {rows} rows is more than UInt32 indices can address"
                ),
            ));
        }
        let columns = keys
            .iter()
            .map(|key| {
                Ok(SortColumn {
                    values: joined(&batches, key.column)?,
                    options: Some(key.options),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let order = if rows == 0 {
            UInt32Array::from(Vec::<u32>::new())
        } else {
            sortnet_arrow::lexsort_to_indices(&columns, fetch)?
        };
        Ok(Self {
            schema,
            batches,
            starts,
            order,
        })
    }

    pub(crate) fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Rows in the run's output (at most `fetch`).
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    /// The output rows `offset..offset + len` as one batch, holding only the strings it uses.
    pub(crate) fn slice(&self, offset: usize, len: usize) -> Result<RecordBatch> {
        let order = &self.order.values()[offset..offset + len];
        let columns: Vec<ArrayRef> = if self.batches.len() == 1 {
            let indices = UInt32Array::from(order.to_vec());
            self.batches[0]
                .columns()
                .iter()
                .map(|c| datafusion::arrow::compute::take(c.as_ref(), &indices, None))
                .collect::<Result<_, _>>()?
        } else {
            let pairs: Vec<(usize, usize)> = order
                .iter()
                .map(|&row| {
                    let row = row as usize;
                    // The batch holding `row`: the last one starting at or before it.
                    let b = self.starts.partition_point(|&s| s <= row) - 1;
                    (b, row - self.starts[b])
                })
                .collect();
            (0..self.schema.fields().len())
                .map(|c| {
                    let arrays: Vec<&dyn Array> =
                        self.batches.iter().map(|b| b.column(c).as_ref()).collect();
                    interleave(&arrays, &pairs)
                })
                .collect::<Result<_, _>>()?
        };
        let options = RecordBatchOptions::new().with_row_count(Some(len));
        compact_views(RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            columns,
            &options,
        )?)
    }
}

/// `batch` with its string and binary views moved into buffers of their own where they
/// use less than half of the buffers they point into. Rows gathered from a whole run point
/// into the buffers of every batch they came from: memory accounting downstream (a
/// `SortPreservingMergeExec` above, the rows a top-k keeps) would count all of those per
/// batch and hold on to them, and a spill file would be written with all of them.
fn compact_views(batch: RecordBatch) -> Result<RecordBatch> {
    fn wasteful<T: ByteViewType>(array: &GenericByteViewArray<T>) -> bool {
        let held: usize = array.data_buffers().iter().map(|b| b.len()).sum();
        let used: usize = array
            .views()
            .iter()
            .map(|&v| v as u32 as usize)
            .filter(|&len| len > 12)
            .sum();
        held > 2 * used
    }
    let mut columns = batch.columns().to_vec();
    let mut changed = false;
    for column in &mut columns {
        let compacted: Option<ArrayRef> = match column.data_type() {
            DataType::Utf8View if wasteful(column.as_string_view()) => {
                Some(Arc::new(column.as_string_view().gc()))
            }
            DataType::BinaryView if wasteful(column.as_binary_view()) => {
                Some(Arc::new(column.as_binary_view().gc()))
            }
            _ => None,
        };
        if let Some(c) = compacted {
            *column = c;
            changed = true;
        }
    }
    if !changed {
        return Ok(batch);
    }
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// Column `column` of every batch as one array.
fn joined(batches: &[RecordBatch], column: usize) -> Result<ArrayRef> {
    if let [batch] = batches {
        return Ok(Arc::clone(batch.column(column)));
    }
    let arrays: Vec<&dyn Array> = batches.iter().map(|b| b.column(column).as_ref()).collect();
    Ok(concat(&arrays)?)
}
