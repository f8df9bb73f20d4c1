//! # sortnet-arrow
//!
//! Arrow's sort kernels on [sortnet](https://docs.rs/sortnet): [`sort`], [`sort_to_indices`]
//! and [`lexsort_to_indices`] with arrow-ord's signatures and semantics, so code written
//! against `arrow_ord::sort` swaps one import:
//!
//! ```
//! use std::sync::Arc;
//! use sortnet_arrow::arrow::array::{Array, ArrayRef, Float64Array, Int32Array, UInt32Array};
//! use sortnet_arrow::{lexsort_to_indices, sort, sort_to_indices, SortColumn, SortOptions};
//!
//! let prices = Float64Array::from(vec![Some(2.5), None, Some(-0.0), Some(f64::NAN), Some(0.0)]);
//! let descending = SortOptions { descending: true, nulls_first: false };
//! let idx: UInt32Array = sort_to_indices(&prices, Some(descending), None)?;
//! assert_eq!(idx.values(), &[3, 0, 4, 2, 1]); // NaN, 2.5, 0.0, -0.0, null
//!
//! let sorted: ArrayRef = sort(&prices, None)?;
//! assert!(sorted.is_null(0)); // nulls first by default
//!
//! let store: ArrayRef = Arc::new(Int32Array::from(vec![2, 1, 2, 1]));
//! let price: ArrayRef = Arc::new(Float64Array::from(vec![1.0, 9.0, 0.5, 9.0]));
//! let idx = lexsort_to_indices(
//!     &[
//!         SortColumn { values: store, options: None },
//!         SortColumn { values: price, options: Some(descending) },
//!     ],
//!     None,
//! )?;
//! assert_eq!(idx.values(), &[1, 3, 0, 2]); // equal keys keep their order: 1 before 3
//! # Ok::<(), sortnet_arrow::ArrowError>(())
//! ```
//!
//! ## Semantics
//!
//! The results equal arrow-ord's up to the order of equal keys, which here is always the
//! input order (stable; arrow-ord's sorts are unstable): descending sorts keep equal keys in
//! input order too, and nulls come first or last in input order. Floats are in IEEE-754 total
//! order as in arrow-ord: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (descending the
//! reverse). A `limit` returns the first `limit` rows of that order.
//!
//! ## What is sorted here, what arrow-ord sorts
//!
//! Served by sortnet: every integer and float type (`Float16` included), `Date32/64`,
//! `Time32/64`, `Timestamp` (any unit and time zone), `Duration`, `Interval`, `Decimal32`,
//! `Decimal64`, `Decimal128`, `Boolean`, `Utf8`, `LargeUtf8`, `Utf8View`, `Binary`,
//! `LargeBinary`, `BinaryView`, `FixedSizeBinary`, and dictionaries over any value type
//! arrow-ord's `rank` takes (integers, floats, decimals, temporals, `Boolean`, `Utf8`,
//! `LargeUtf8`, `Binary`, `LargeBinary`): the dictionary's values are ranked by arrow-ord,
//! the rows sorted here.
//!
//! Left to arrow-ord (the same call, so the same errors; its order is then made stable, each
//! run of equal keys put in input order): `Decimal256` (wider than sortnet's 128-bit keys),
//! lists, structs, run-end encoded arrays and dictionaries over other value types. A
//! multi-column sort with any such column goes to arrow-ord whole.
//!
//! ## How
//!
//! Each column becomes unsigned codes that compare as its rows do under its options
//! (descending inverts the order-preserving image, so equal keys still keep input order;
//! nulls take a code below or above the values), offset from the column's smallest value, so
//! narrow columns take few bits. Columns are packed into as few 64-bit keys as their bits
//! allow, and the rows are sorted by sortnet's stable pair sort (the row index as the value)
//! once per key, the last key first; values spanning more than 64 bits take 128-bit keys,
//! byte strings sortnet's `argsort_strings`. A small limit selects the limit-th key first and
//! sorts only the rows before it.

mod code;
mod engine;
mod fallback;
mod image;

use arrow_array::{new_empty_array, Array, ArrayRef, UInt32Array};

pub use arrow_ord::sort::{SortColumn, SortOptions};
pub use arrow_schema::ArrowError;

/// The Arrow crates this one is built with, so that callers match versions: the sub-crates
/// rather than the `arrow` umbrella, which (even without its default features) would add
/// arrow-cast, arrow-arith and arrow-string with their dependencies to every build of this
/// crate. Each is named by its crate: `arrow::array` is `arrow_array`, `arrow::schema` is
/// `arrow_schema`.
pub mod arrow {
    pub use arrow_array as array;
    pub use arrow_buffer as buffer;
    pub use arrow_data as data;
    pub use arrow_ord as ord;
    pub use arrow_row as row;
    pub use arrow_schema as schema;
    pub use arrow_select as select;
}

/// Sorts `values`, as `arrow_ord::sort::sort` does: the sorted array (nulls first by
/// default).
pub fn sort(values: &dyn Array, options: Option<SortOptions>) -> Result<ArrayRef, ArrowError> {
    if values.is_empty() {
        return Ok(new_empty_array(values.data_type()));
    }
    let indices = sort_to_indices(values, options, None)?;
    arrow_select::take::take(values, &indices, None)
}

/// The indices that sort `array`, as `arrow_ord::sort::sort_to_indices` gives them: at most
/// `limit` of them where given; equal keys in input order.
pub fn sort_to_indices(
    array: &dyn Array,
    options: Option<SortOptions>,
    limit: Option<usize>,
) -> Result<UInt32Array, ArrowError> {
    if array.is_empty() || limit == Some(0) {
        return Ok(UInt32Array::from(Vec::<u32>::new()));
    }
    match code::of(array, options.unwrap_or_default())? {
        Some(code) => Ok(engine::sort(vec![code], array.len(), limit)?.into()),
        None => fallback::sort_to_indices(array, options, limit),
    }
}

/// The indices that sort the rows of `columns` lexicographically (the first column first),
/// as `arrow_ord::sort::lexsort_to_indices` gives them: at most `limit` of them where given;
/// equal rows in input order.
pub fn lexsort_to_indices(
    columns: &[SortColumn],
    limit: Option<usize>,
) -> Result<UInt32Array, ArrowError> {
    let Some(first) = columns.first() else {
        return Err(ArrowError::InvalidArgumentError(
            "Sort requires at least one column".to_string(),
        ));
    };
    let rows = first.values.len();
    if columns.len() > 1 && columns.iter().any(|c| c.values.len() != rows) {
        return Err(ArrowError::ComputeError(
            "lexical sort columns have different row counts".to_string(),
        ));
    }
    if rows == 0 || limit == Some(0) {
        return Ok(UInt32Array::from(Vec::<u32>::new()));
    }
    let mut codes = Vec::with_capacity(columns.len());
    for column in columns {
        match code::of(column.values.as_ref(), column.options.unwrap_or_default())? {
            Some(code) => codes.push(code),
            None => return fallback::lexsort_to_indices(columns, limit),
        }
    }
    Ok(engine::sort(codes, rows, limit)?.into())
}
