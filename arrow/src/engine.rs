//! The sort itself: the columns' codes packed into as few keys as fit in 64 bits, and a
//! stable sort per key (sortnet's `sort_pairs` with the row indices as values, or
//! `argsort_strings` for byte strings): the first key over every row, the others over the
//! rows it ties (see [`sort`]).

use arrow_buffer::NullBuffer;
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

/// Where more than `len / MOSTLY_TIED_DIVISOR` rows tie on the first of several keys, a pass
/// per key over every row (last key first) is cheaper than sorting the tied rows apart and
/// putting them back into their runs: two- and three-column keys of 2^20 rows whose first
/// key has 1,000 or 176,000 values took 1.8-2.2x as long that way on the AMD EPYC build
/// machine (`cargo bench -p sortnet-arrow --bench sort -- columns`), and 1.4x where the
/// ties were counted after the first key's sort and the passes then run.
const MOSTLY_TIED_DIVISOR: usize = 2;

/// The stable order of `len` rows by `columns` (the first column first), the first `limit`
/// rows of it where given.
///
/// Several keys without a limit: the first key sorts every row, and the others only the rows
/// it ties, which in a table are often few or none (a unique first key costs one sort): a
/// stable pass per key over those rows (last key first), then each row back into its run.
/// Where most rows tie, and with a limit, the passes run last key first over every row and
/// the first key's pass (with a limit) stops at it (its selection needs the ties ordered
/// already).
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
    let mut passes: Vec<Pass> = group(columns).into_iter().map(Pass::of).collect();
    // A first key of `b` bits has at most 2^b values: where that is at most half the rows,
    // most rows tie on it, which need not be sorted to be seen.
    let mostly_tied = |pass: &Pass| pass.bits < usize::BITS && 1 << pass.bits <= len / 2;
    if passes.len() >= 2 && limit.is_none() && !mostly_tied(&passes[0]) {
        // The first key's codes stay in the pass (the rows are given): they are sorted again
        // below where most rows tie.
        let (mut order, ties) = passes[0].sort(Some(iota(len)), len, None, true)?;
        let tied: usize = ties
            .iter()
            .map(|&(start, end)| (end - start) as usize)
            .sum();
        if tied <= len / MOSTLY_TIED_DIVISOR {
            refine(&mut passes[1..], &mut order, &ties, len)?;
            return Ok(order);
        }
    }
    let mut order: Option<Vec<u32>> = None;
    for (p, pass) in passes.iter_mut().enumerate().rev() {
        // Only the first key's pass (the last to run) may stop at the limit.
        let limit = if p == 0 { limit } else { None };
        order = Some(pass.sort(order, len, limit, false)?.0);
    }
    let mut order = order.unwrap_or_else(|| iota(len));
    if let Some(limit) = limit {
        order.truncate(limit);
    }
    Ok(order)
}

/// Puts each run of `ties` in `order` (rows tied on the keys before `rest`, in input order)
/// in the stable order of `rest`: every tied row is sorted by `rest` at once, and then
/// returned to its run, keeping that order.
fn refine(
    rest: &mut [Pass<'_>],
    order: &mut [u32],
    ties: &Ties,
    len: usize,
) -> Result<(), ArrowError> {
    if ties.is_empty() {
        return Ok(());
    }
    let mut tied = Vec::new();
    // Each tied row's run; rows outside runs are not read.
    let mut run_of = vec![0u32; len];
    for (run, &(start, end)) in ties.iter().enumerate() {
        for &row in &order[start as usize..end as usize] {
            run_of[row as usize] = run as u32;
            tied.push(row);
        }
    }
    for pass in rest.iter_mut().rev() {
        tied = pass.sort(Some(tied), len, None, false)?.0;
    }
    let mut next: Vec<u32> = ties.iter().map(|&(start, _)| start).collect();
    for row in tied {
        let at = &mut next[run_of[row as usize] as usize];
        order[*at as usize] = row;
        *at += 1;
    }
    Ok(())
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

/// Runs of tied rows in a sorted order: `(start, end)` positions, each run two rows or more.
type Ties = Vec<(u32, u32)>;

/// One group's sort pass: its key per row and the nulls of its first column, if kept apart.
struct Pass<'a> {
    keys: Keys<'a>,
    /// The bits the keys span (packed codes), or 128 (128-bit codes, byte strings).
    bits: u32,
    nulls: Option<(NullBuffer, bool)>,
}

impl<'a> Pass<'a> {
    fn of(mut group: Group<'a>) -> Self {
        let nulls = group.columns[0].nulls.take();
        let keys = keys(group.columns, group.bits);
        let bits = match keys {
            Keys::W32(_) | Keys::W64(_) => group.bits,
            Keys::W128(_) | Keys::Bytes(..) => 128,
        };
        Self { keys, bits, nulls }
    }

    /// Sorts the rows in `order` stably by this key (all rows in index order where `None`,
    /// which moves the keys out of the pass: it is the only pass over them); with a limit,
    /// at least the first `limit` rows of that order. Where `ties` is asked (no limit), also
    /// the runs of rows with equal keys (nulls included) in the order returned.
    fn sort(
        &mut self,
        order: Option<Vec<u32>>,
        len: usize,
        limit: Option<usize>,
        ties: bool,
    ) -> Result<(Vec<u32>, Ties), ArrowError> {
        debug_assert!(!ties || limit.is_none());
        let Some((nulls, nulls_first)) = self.nulls.clone() else {
            return self.sort_valid(order, len, limit, ties);
        };
        // Nulls kept apart: the valid rows are sorted, the null rows keep their order.
        let order = order.unwrap_or_else(|| iota(len));
        let (valid, null): (Vec<u32>, Vec<u32>) =
            order.into_iter().partition(|&i| nulls.is_valid(i as usize));
        let valid_limit = match (limit, nulls_first) {
            (Some(l), true) => Some(l.saturating_sub(null.len())),
            (l, _) => l,
        };
        let (valid, mut valid_ties) = self.sort_valid(Some(valid), len, valid_limit, ties)?;
        let (nulls_at, valid_at) = match nulls_first {
            true => (0, null.len() as u32),
            false => (valid.len() as u32, 0),
        };
        valid_ties
            .iter_mut()
            .for_each(|(s, e)| (*s, *e) = (*s + valid_at, *e + valid_at));
        if ties && null.len() >= 2 {
            valid_ties.push((nulls_at, nulls_at + null.len() as u32));
        }
        let order = match nulls_first {
            true => [null, valid].concat(),
            false => [valid, null].concat(),
        };
        Ok((order, valid_ties))
    }

    /// [`Pass::sort`] of rows that are all valid (or whose nulls are coded).
    fn sort_valid(
        &mut self,
        order: Option<Vec<u32>>,
        len: usize,
        limit: Option<usize>,
        ties: bool,
    ) -> Result<(Vec<u32>, Ties), ArrowError> {
        match &mut self.keys {
            Keys::W32(k) => sort_rows(aligned(k, order, len), limit, ties),
            Keys::W64(k) => sort_rows(aligned(k, order, len), limit, ties),
            Keys::W128(k) => sort_rows(aligned(k, order, len), limit, ties),
            Keys::Bytes(k, descending) => sort_bytes(aligned(k, order, len), *descending, ties),
        }
    }
}

/// The keys of the rows in `order` with those rows (all rows, the keys moved out of `keys`,
/// where `None`).
fn aligned<K: Copy>(keys: &mut Vec<K>, order: Option<Vec<u32>>, len: usize) -> (Vec<K>, Vec<u32>) {
    match order {
        None => (std::mem::take(keys), iota(len)),
        Some(rows) => (rows.iter().map(|&r| keys[r as usize]).collect(), rows),
    }
}

/// The rows sorted stably by their bytes (`keys[i]` is row `rows[i]`'s), descending where
/// asked: the stable ascending order reversed, with each run of equal strings turned back
/// into input order. With `ties`, also the runs of equal strings.
fn sort_bytes(
    (keys, rows): (Vec<&[u8]>, Vec<u32>),
    descending: bool,
    ties: bool,
) -> Result<(Vec<u32>, Ties), ArrowError> {
    let mut positions = backend::auto()
        .argsort_strings(&keys)
        .map_err(engine_error)?;
    let mut runs = Ties::new();
    if descending || ties {
        if descending {
            positions.reverse();
        }
        let mut start = 0;
        while start < positions.len() {
            let key = keys[positions[start]];
            let run = positions[start..]
                .iter()
                .take_while(|&&p| keys[p] == key)
                .count();
            if descending {
                positions[start..start + run].reverse();
            }
            if ties && run >= 2 {
                runs.push((start as u32, (start + run) as u32));
            }
            start += run;
        }
    }
    Ok((positions.into_iter().map(|p| rows[p]).collect(), runs))
}

/// The rows sorted stably by their keys (`keys[i]` is row `rows[i]`'s); with a limit, at
/// least the first `limit` rows of that order (possibly all). With `ties` (no limit), also
/// the runs of equal keys.
fn sort_rows<K: Key + Ord>(
    (mut keys, mut rows): (Vec<K>, Vec<u32>),
    limit: Option<usize>,
    ties: bool,
) -> Result<(Vec<u32>, Ties), ArrowError> {
    if let Some(limit) = limit {
        if limit < rows.len() / TOP_K_DIVISOR {
            return Ok((top_k(keys, rows, limit)?, Ties::new()));
        }
    }
    backend::auto()
        .sort_pairs(&mut keys, &mut rows)
        .map_err(engine_error)?;
    let mut runs = Ties::new();
    if ties {
        let mut start = 0;
        for i in 1..=keys.len() {
            if i == keys.len() || keys[i] != keys[start] {
                if i - start >= 2 {
                    runs.push((start as u32, i as u32));
                }
                start = i;
            }
        }
    }
    Ok((rows, runs))
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
