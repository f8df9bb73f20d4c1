//! The sort itself: the columns' codes packed into as few keys as fit in 64 bits, and one
//! stable sort per key (sortnet's `sort_pairs` with the row indices as values, or
//! `argsort_strings` for byte strings), from the last key to the first, each pass keeping
//! the order of the one before for equal keys.

use arrow_schema::ArrowError;
use sortnet::{backend, Key};

use crate::code::{Code, Keys as ColumnKeys};

/// A limit of at most `len / TOP_K_DIVISOR` rows selects the `limit`-th key first and sorts
/// only the rows up to it; larger limits sort everything. The selection costs a copy of the
/// keys and two passes over them, about one radix digit's pass of the full sort, against a
/// sort of an eighth of the rows or less. Reasoned, not yet measured against the full sort.
const TOP_K_DIVISOR: usize = 8;

/// The keys of one pass.
enum Keys<'a> {
    /// Codes of at most 32 bits.
    W32(Vec<u32>),
    /// Codes of up to 64 bits.
    W64(Vec<u64>),
    /// 128-bit codes.
    W128(Vec<u128>),
    /// Byte strings, and whether descending.
    Bytes(Vec<&'a [u8]>, bool),
}

/// Columns whose codes share one key: the first column in the highest bits. A column whose
/// nulls are kept apart (not coded), or whose keys are not 64-bit codes, is a group of its
/// own.
struct Group<'a> {
    columns: Vec<Code<'a>>,
    bits: u32,
}

impl Code<'_> {
    /// Whether the column's codes may share a 64-bit key with others.
    fn packs(&self) -> bool {
        self.nulls.is_none() && matches!(self.keys, ColumnKeys::W64(_))
    }
}

/// The stable order of `len` rows by `columns` (the first column first), the first `limit`
/// rows of it where given.
pub(crate) fn sort(
    columns: Vec<Code<'_>>,
    len: usize,
    limit: Option<usize>,
) -> Result<Vec<u32>, ArrowError> {
    if u32::try_from(len).is_err() {
        return Err(ArrowError::ComputeError(format!(
            "cannot sort {len} rows: the indices are UInt32"
        )));
    }
    let groups = group(columns);
    let mut order: Option<Vec<u32>> = None;
    for (g, group) in groups.into_iter().enumerate().rev() {
        // Only the first key's pass (the last to run) may stop at the limit.
        let limit = if g == 0 { limit } else { None };
        order = Some(pass(group, order, len, limit)?);
    }
    let mut order = order.unwrap_or_else(|| iota(len));
    if let Some(limit) = limit {
        order.truncate(limit);
    }
    Ok(order)
}

/// Groups the columns greedily, in order, into keys of at most 64 bits. Columns of one code
/// only (0 bits) need no pass.
fn group(columns: Vec<Code<'_>>) -> Vec<Group<'_>> {
    let mut groups: Vec<Group> = Vec::new();
    for column in columns {
        if column.bits == 0 && column.packs() {
            continue;
        }
        match groups.last_mut() {
            Some(g) if column.packs() && g.columns[0].packs() && g.bits + column.bits <= 64 => {
                g.bits += column.bits;
                g.columns.push(column);
            }
            _ => groups.push(Group {
                bits: column.bits,
                columns: vec![column],
            }),
        }
    }
    groups
}

/// One group's packed key per row.
fn keys(columns: Vec<Code<'_>>, bits: u32) -> Keys<'_> {
    let mut columns = columns.into_iter();
    let first = columns.next().expect("a group has a column");
    let mut packed = match first.keys {
        ColumnKeys::W64(codes) => codes,
        ColumnKeys::W128(codes) => return Keys::W128(codes),
        ColumnKeys::Bytes(rows, descending) => return Keys::Bytes(rows, descending),
    };
    let mut shift = bits - first.bits;
    if shift > 0 {
        packed.iter_mut().for_each(|k| *k <<= shift);
    }
    for column in columns {
        let ColumnKeys::W64(codes) = &column.keys else {
            unreachable!("only 64-bit codes share a key");
        };
        shift -= column.bits;
        for (k, c) in packed.iter_mut().zip(codes) {
            *k |= c << shift;
        }
    }
    if bits <= 32 {
        Keys::W32(packed.into_iter().map(|k| k as u32).collect())
    } else {
        Keys::W64(packed)
    }
}

/// Sorts the rows in `order` (all rows in index order where `None`) stably by the group's
/// key; with a limit, the first `limit` rows of that order.
fn pass(
    mut group: Group<'_>,
    order: Option<Vec<u32>>,
    len: usize,
    limit: Option<usize>,
) -> Result<Vec<u32>, ArrowError> {
    let apart = group.columns[0].nulls.take();
    let keys = keys(group.columns, group.bits);
    let Some((nulls, nulls_first)) = apart else {
        return sort_keys(keys, order, len, limit);
    };
    // Nulls kept apart: the valid rows are sorted, the null rows keep their order.
    let order = order.unwrap_or_else(|| iota(len));
    let (valid, null): (Vec<u32>, Vec<u32>) =
        order.into_iter().partition(|&i| nulls.is_valid(i as usize));
    let valid_limit = match (limit, nulls_first) {
        (Some(l), true) => Some(l.saturating_sub(null.len())),
        (l, _) => l,
    };
    let valid = sort_keys(keys, Some(valid), len, valid_limit)?;
    Ok(if nulls_first {
        [null, valid].concat()
    } else {
        [valid, null].concat()
    })
}

/// [`sort_rows`] or [`sort_bytes`], by the kind of keys.
fn sort_keys(
    keys: Keys<'_>,
    order: Option<Vec<u32>>,
    len: usize,
    limit: Option<usize>,
) -> Result<Vec<u32>, ArrowError> {
    match keys {
        Keys::W32(k) => sort_rows(k, order, len, limit),
        Keys::W64(k) => sort_rows(k, order, len, limit),
        Keys::W128(k) => sort_rows(k, order, len, limit),
        Keys::Bytes(rows, descending) => sort_bytes(rows, order, len, descending),
    }
}

/// The rows of `order` (all rows where `None`) sorted stably by their bytes, descending
/// where asked: the stable ascending order reversed, with each run of equal strings turned
/// back into input order.
fn sort_bytes(
    bytes: Vec<&[u8]>,
    order: Option<Vec<u32>>,
    len: usize,
    descending: bool,
) -> Result<Vec<u32>, ArrowError> {
    let (keys, rows) = match order {
        None => (bytes, iota(len)),
        Some(rows) => (rows.iter().map(|&r| bytes[r as usize]).collect(), rows),
    };
    let mut positions = backend::auto()
        .argsort_strings(&keys)
        .map_err(engine_error)?;
    if descending {
        positions.reverse();
        let mut start = 0;
        while start < positions.len() {
            let key = keys[positions[start]];
            let run = positions[start..]
                .iter()
                .take_while(|&&p| keys[p] == key)
                .count();
            positions[start..start + run].reverse();
            start += run;
        }
    }
    Ok(positions.into_iter().map(|p| rows[p]).collect())
}

/// The rows of `order` (all rows where `None`) sorted stably by `keys[row]`; with a limit,
/// at least the first `limit` rows of that order (possibly all).
fn sort_rows<K: Key + Ord>(
    keys: Vec<K>,
    order: Option<Vec<u32>>,
    len: usize,
    limit: Option<usize>,
) -> Result<Vec<u32>, ArrowError> {
    let (mut keys, mut rows) = match order {
        None => (keys, iota(len)),
        Some(rows) => (rows.iter().map(|&i| keys[i as usize]).collect(), rows),
    };
    if let Some(limit) = limit {
        if limit < rows.len() / TOP_K_DIVISOR {
            return top_k(keys, rows, limit);
        }
    }
    backend::auto()
        .sort_pairs(&mut keys, &mut rows)
        .map_err(engine_error)?;
    Ok(rows)
}

/// The first `k` rows of the stable order of `rows` by `keys` (`k < rows.len()`): the
/// `k`-th smallest key splits the rows; the rows with smaller keys and the first rows with
/// that key, in their order, are all that is sorted.
fn top_k<K: Key + Ord>(keys: Vec<K>, rows: Vec<u32>, k: usize) -> Result<Vec<u32>, ArrowError> {
    if k == 0 {
        return Ok(Vec::new());
    }
    let mut copy = keys.clone();
    backend::auto()
        .select_nth(&mut copy, k - 1)
        .map_err(engine_error)?;
    let split = copy[k - 1];
    drop(copy);
    let below = keys.iter().filter(|&&x| x < split).count();
    let mut ties = k - below;
    let mut top_keys = Vec::with_capacity(k);
    let mut top_rows = Vec::with_capacity(k);
    for (&x, &r) in keys.iter().zip(&rows) {
        let take = x < split || (x == split && ties > 0);
        if take {
            if x == split {
                ties -= 1;
            }
            top_keys.push(x);
            top_rows.push(r);
        }
    }
    backend::auto()
        .sort_pairs(&mut top_keys, &mut top_rows)
        .map_err(engine_error)?;
    Ok(top_rows)
}

/// The rows `0..len` in order.
fn iota(len: usize) -> Vec<u32> {
    (0..len as u32).collect()
}

fn engine_error(e: sortnet::Error) -> ArrowError {
    ArrowError::ComputeError(format!("sortnet: {e}"))
}
