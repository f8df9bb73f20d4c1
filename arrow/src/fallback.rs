//! Columns this crate does not sort go to arrow-ord, whose sorts are unstable; its order is
//! then made stable here, so that every call keeps equal keys in input order whatever sorted
//! them: each run of equal rows is put in index order, and where a limit cut a run short,
//! that run is refilled with the first equal rows of the whole input.

use std::cmp::Ordering;

use arrow_array::{Array, UInt32Array};
use arrow_ord::ord::make_comparator;
use arrow_ord::sort::{LexicographicalComparator, SortColumn, SortOptions};
use arrow_schema::ArrowError;

/// arrow-ord's `sort_to_indices`, made stable.
pub(crate) fn sort_to_indices(
    array: &dyn Array,
    options: Option<SortOptions>,
    limit: Option<usize>,
) -> Result<UInt32Array, ArrowError> {
    let order = arrow_ord::sort::sort_to_indices(array, options, limit)?;
    // A type arrow-ord sorts but cannot compare row by row keeps arrow-ord's order.
    Ok(
        match make_comparator(array, array, options.unwrap_or_default()) {
            Ok(cmp) => stabilize(order, array.len(), cmp),
            Err(_) => order,
        },
    )
}

/// arrow-ord's `lexsort_to_indices`, made stable.
pub(crate) fn lexsort_to_indices(
    columns: &[SortColumn],
    limit: Option<usize>,
) -> Result<UInt32Array, ArrowError> {
    let order = arrow_ord::sort::lexsort_to_indices(columns, limit)?;
    let cmp = LexicographicalComparator::try_new(columns)?;
    Ok(stabilize(order, columns[0].values.len(), |a, b| {
        cmp.compare(a, b)
    }))
}

/// Puts equal rows of `order` (a sorted prefix of the rows `0..rows` under `cmp`) in input
/// order: each run of equal rows in index order, and a last run that the prefix cut short
/// holds the first rows of the input equal to it.
fn stabilize(
    order: UInt32Array,
    rows: usize,
    cmp: impl Fn(usize, usize) -> Ordering,
) -> UInt32Array {
    let mut order = order.values().to_vec();
    let equal = |a: u32, b: u32| cmp(a as usize, b as usize) == Ordering::Equal;
    let Some(&last) = order.last() else {
        return order.into();
    };
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && equal(order[start], order[end]) {
            end += 1;
        }
        order[start..end].sort_unstable();
        start = end;
    }
    if order.len() < rows {
        // The rows equal to the last one, in input order, fill the last run.
        let run = order.iter().rev().take_while(|&&r| equal(r, last)).count();
        let tail = order.len() - run;
        let first_equal = (0..rows as u32).filter(|&r| equal(r, last)).take(run);
        for (slot, row) in order[tail..].iter_mut().zip(first_equal) {
            *slot = row;
        }
    }
    order.into()
}
