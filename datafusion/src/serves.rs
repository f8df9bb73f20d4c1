//! Which sorts `SortnetExec` takes over from `SortExec`, and why the others stay.

use std::fmt;

use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::common::Result;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::ExecutionPlanProperties;

use crate::run::Key;

/// Why a `SortExec` stays DataFusion's own (see [`SortnetExec::try_new`]).
///
/// [`SortnetExec::try_new`]: crate::SortnetExec::try_new
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unsupported {
    /// A sort expression is not a plain column (`ORDER BY a + 1`, `ORDER BY lower(s)`).
    Expression(String),
    /// A key column's type is one sortnet-arrow leaves to arrow-ord (`Decimal256`, lists,
    /// structs, ...).
    Type { column: String, data_type: DataType },
    /// The input already has the order asked for: `SortExec` only passes it on.
    AlreadySorted,
    /// A top-k whose input is already sorted by a prefix of the keys: `SortExec` stops
    /// reading the input as soon as the prefix moves past the k-th row.
    SortedPrefix,
    /// A sort into one partition over an input of several (the planner puts a merge or a
    /// coalesce below such a sort; a plan without one is left as it is).
    Partitions(usize),
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Expression(e) => write!(f, "the sort expression {e} is not a column"),
            Self::Type { column, data_type } => {
                write!(f, "sortnet does not sort {data_type} (column {column})")
            }
            Self::AlreadySorted => write!(f, "the input is already sorted"),
            Self::SortedPrefix => write!(f, "a top-k over input sorted by a prefix of the keys"),
            Self::Partitions(n) => write!(f, "a single-partition sort over {n} partitions"),
        }
    }
}

impl std::error::Error for Unsupported {}

/// The keys of `sort` if `SortnetExec` serves it, or why not.
pub(crate) fn keys(sort: &SortExec) -> Result<Result<Vec<Key>, Unsupported>> {
    let input = sort.input();
    let schema = input.schema();
    let mut keys = Vec::with_capacity(sort.expr().len());
    for sort_expr in sort.expr().iter() {
        let Some(column) = sort_expr.expr.downcast_ref::<Column>() else {
            return Ok(Err(Unsupported::Expression(sort_expr.expr.to_string())));
        };
        let data_type = column_type(&schema, column)?;
        if !sorts_natively(data_type) {
            return Ok(Err(Unsupported::Type {
                column: column.name().to_string(),
                data_type: data_type.clone(),
            }));
        }
        keys.push(Key {
            column: column.index(),
            options: sort_expr.options,
        });
    }
    let (prefix, satisfied) = input
        .equivalence_properties()
        .extract_common_sort_prefix(sort.expr().clone())?;
    if satisfied {
        return Ok(Err(Unsupported::AlreadySorted));
    }
    if sort.fetch().is_some() && !prefix.is_empty() {
        return Ok(Err(Unsupported::SortedPrefix));
    }
    let partitions = input.output_partitioning().partition_count();
    if !sort.preserve_partitioning() && partitions != 1 {
        return Ok(Err(Unsupported::Partitions(partitions)));
    }
    Ok(Ok(keys))
}

fn column_type<'a>(schema: &'a Schema, column: &Column) -> Result<&'a DataType> {
    match schema.fields().get(column.index()) {
        Some(field) if field.name() == column.name() => Ok(field.data_type()),
        _ => datafusion::common::internal_err!(
            "SortnetRule: column {column} is not field {} of the sort's input",
            column.index()
        ),
    }
}

/// Whether sortnet-arrow sorts `data_type` itself rather than handing it to arrow-ord (the
/// list in sortnet-arrow's crate docs).
pub(crate) fn sorts_natively(data_type: &DataType) -> bool {
    use DataType::*;
    match data_type {
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => true,
        Float16 | Float32 | Float64 => true,
        Date32 | Date64 | Time32(_) | Time64(_) | Timestamp(_, _) | Duration(_) | Interval(_) => {
            true
        }
        Decimal32(_, _) | Decimal64(_, _) | Decimal128(_, _) => true,
        Boolean => true,
        Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => {
            true
        }
        // Dictionary values are ranked by arrow-ord's `rank`, which takes these.
        Dictionary(_, values) => matches!(
            values.as_ref(),
            Int8 | Int16
                | Int32
                | Int64
                | UInt8
                | UInt16
                | UInt32
                | UInt64
                | Float16
                | Float32
                | Float64
                | Date32
                | Date64
                | Time32(_)
                | Time64(_)
                | Timestamp(_, _)
                | Duration(_)
                | Decimal32(_, _)
                | Decimal64(_, _)
                | Decimal128(_, _)
                | Boolean
                | Utf8
                | LargeUtf8
                | Binary
                | LargeBinary
        ),
        _ => false,
    }
}
