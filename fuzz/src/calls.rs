//! The calls beyond `sort`, each against its definition on the same input: `sort_by_key`
//! and `argsort` against std's stable sort of the indices, `select_nth` by the partition
//! property and the reference's value at `n`. The first byte picks the key type (and for
//! `select_nth` the position, from the second byte).

use sortnet::{Error, Workload};

use super::{backends, check_error, keys_from, same_bits, FuzzKey};

/// The stable order of `keys` by the crate's total order.
fn stable_order<K: FuzzKey>(keys: &[K]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].key_cmp(&keys[b]));
    order
}

/// Picks the key type from `mode` and runs `check` on the rest of the data.
macro_rules! by_type {
    ($mode:expr, $check:ident, $data:expr $(, $arg:expr)*) => {
        match $mode % 10 {
            0 => $check::<u8>($data $(, $arg)*),
            1 => $check::<i8>($data $(, $arg)*),
            2 => $check::<u16>($data $(, $arg)*),
            3 => $check::<i16>($data $(, $arg)*),
            4 => $check::<u32>($data $(, $arg)*),
            5 => $check::<i32>($data $(, $arg)*),
            6 => $check::<f32>($data $(, $arg)*),
            7 => $check::<u64>($data $(, $arg)*),
            8 => $check::<i64>($data $(, $arg)*),
            _ => $check::<f64>($data $(, $arg)*),
        }
    };
}

/// A record that is not `Copy`, so that the gather's moves are checked by the allocator.
pub(crate) struct Record<K> {
    pub(crate) key: K,
    pub(crate) index: Box<usize>,
}

impl<K: Copy> Record<K> {
    /// One record per key, holding its position.
    pub(crate) fn each(keys: &[K]) -> Vec<Record<K>> {
        keys.iter()
            .enumerate()
            .map(|(i, &key)| Record {
                key,
                index: Box::new(i),
            })
            .collect()
    }
}

fn check_by_key<K: FuzzKey>(data: &[u8]) {
    let keys: Vec<K> = keys_from(data);
    let want = stable_order(&keys);
    for b in backends() {
        let mut records = Record::each(&keys);
        let result = b.sort_by_key(&mut records, |r| r.key);
        let got: Vec<usize> = records.iter().map(|r| *r.index).collect();
        match result {
            Ok(()) => assert!(got == want, "{}: sort_by_key not stable", b.name()),
            Err(e) => {
                check_error(b, Workload::Pairs(K::WIDTH), &e);
                assert!(
                    got.iter().enumerate().all(|(i, &j)| i == j),
                    "{} failed ({e}) and moved the records",
                    b.name()
                );
            }
        }
    }
}

fn check_argsort<K: FuzzKey>(data: &[u8]) {
    let keys: Vec<K> = keys_from(data);
    let want = stable_order(&keys);
    for b in backends() {
        match b.argsort(&keys) {
            Ok(order) => assert!(order == want, "{}: argsort wrong", b.name()),
            Err(e) => check_error(b, Workload::Pairs(K::WIDTH), &e),
        }
    }
}

fn check_select<K: FuzzKey>(data: &[u8], pick: u8) {
    let keys: Vec<K> = keys_from(data);
    let mut sorted = keys.clone();
    sorted.sort_by(K::key_cmp);
    // Positions past the end are asked for too: they must be refused, keys unchanged.
    let n = (pick as usize * (keys.len() + 2)) / 255;
    for b in backends() {
        let mut v = keys.clone();
        match b.select_nth(&mut v, n) {
            Ok(()) => {
                assert!(
                    n < keys.len(),
                    "{}: select_nth({n}) of {}",
                    b.name(),
                    keys.len()
                );
                assert_eq!(v[n].bits(), sorted[n].bits(), "{}: value at n", b.name());
                assert!(
                    v[..n].iter().all(|x| x.key_cmp(&v[n]).is_le())
                        && v[n..].iter().all(|x| x.key_cmp(&v[n]).is_ge()),
                    "{}: not partitioned at {n}",
                    b.name()
                );
            }
            Err(Error::SelectOutOfRange { .. }) => {
                assert!(n >= keys.len(), "{}: refused n = {n}", b.name());
                assert!(same_bits(&v, &keys), "{} changed refused keys", b.name());
            }
            Err(e) => {
                check_error(b, Workload::Keys(K::WIDTH), &e);
                assert!(
                    same_bits(&v, &keys),
                    "{} failed ({e}) and changed the keys",
                    b.name()
                );
            }
        }
    }
}

/// `sort_by_key` on records of every key type (chosen by the first byte).
pub fn fuzz_by_key(data: &[u8]) {
    if let Some((&mode, rest)) = data.split_first() {
        by_type!(mode, check_by_key, rest);
    }
}

/// `argsort` of every key type (chosen by the first byte).
pub fn fuzz_argsort(data: &[u8]) {
    if let Some((&mode, rest)) = data.split_first() {
        by_type!(mode, check_argsort, rest);
    }
}

/// `select_nth` of every key type (first byte) at a position picked by the second byte.
pub fn fuzz_select(data: &[u8]) {
    if let [mode, pick, rest @ ..] = data {
        by_type!(mode, check_select, rest, *pick);
    }
}
