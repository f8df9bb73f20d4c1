//! The keys analytics engines have: 128-bit keys through every call, and byte strings through
//! `sort_strings` and `argsort_strings`, against std's stable sort on the same input. A
//! backend that does not take them must say `Unsupported` and leave the data alone.

use sortnet::{Error, SortBackend};

use super::backends;
use super::calls::Record;

/// `Unsupported` from a backend that does not take the call (`takes` false), else nothing.
fn check_refusal(b: &dyn SortBackend, takes: bool, err: &Error) {
    assert!(
        !takes && matches!(err, Error::Unsupported { .. }),
        "{}: unexpected error: {err}",
        b.name()
    );
}

/// 128-bit keys from `data`: the first byte picks signed or unsigned keys and whole 16-byte
/// keys or decimals (4-byte integers times a power of ten, few varying bytes); the second
/// byte is the position for `select_nth` and `partial_sort`.
pub fn fuzz_keys128(data: &[u8]) {
    let (Some(&mode), Some(&at)) = (data.first(), data.get(1)) else {
        return;
    };
    let rest = &data[2..];
    let keys: Vec<i128> = if mode & 2 == 0 {
        rest.chunks_exact(16)
            .map(|c| i128::from_le_bytes(c.try_into().expect("16 bytes")))
            .collect()
    } else {
        // At most 10^27: times any i32 it stays inside i128.
        let scale = 10i128.pow(u32::from(mode >> 2) % 28);
        rest.chunks_exact(4)
            .map(|c| i128::from(i32::from_le_bytes(c.try_into().expect("4 bytes"))) * scale)
            .collect()
    };
    if mode & 1 == 0 {
        check_keys128(&keys, usize::from(at));
    } else {
        let keys: Vec<u128> = keys.iter().map(|&k| k as u128).collect();
        check_keys128(&keys, usize::from(at));
    }
}

fn check_keys128<K: sortnet::Key + Ord + std::fmt::Debug>(keys: &[K], at: usize) {
    let mut want = keys.to_vec();
    want.sort();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| keys[i]);
    let n = at % (keys.len() + 1);
    for b in backends() {
        let takes = b.supports_key::<K>();
        let name = b.name();
        let mut v = keys.to_vec();
        match b.sort(&mut v) {
            Ok(()) => assert!(v == want, "{name}: sort {keys:?}"),
            Err(e) => check_refusal(b, takes, &e),
        }
        let mut v = keys.to_vec();
        match b.sort_descending(&mut v) {
            Ok(()) => assert!(v.iter().rev().eq(want.iter()), "{name}: descending"),
            Err(e) => check_refusal(b, takes, &e),
        }
        let (mut k, mut vals) = (keys.to_vec(), (0..keys.len()).collect::<Vec<usize>>());
        match b.sort_pairs(&mut k, &mut vals) {
            Ok(()) => assert!(k == want && vals == order, "{name}: pairs"),
            Err(e) => {
                check_refusal(b, takes, &e);
                assert!(k == keys, "{name}: refused pairs changed");
            }
        }
        match b.argsort(keys) {
            Ok(o) => assert!(o == order, "{name}: argsort"),
            Err(e) => check_refusal(b, takes, &e),
        }
        let mut records = Record::each(keys);
        match b.sort_by_key(&mut records, |r| r.key) {
            Ok(()) => assert!(
                records.iter().map(|r| *r.index).eq(order.iter().copied()),
                "{name}: sort_by_key"
            ),
            Err(e) => check_refusal(b, takes, &e),
        }
        let mut v = keys.to_vec();
        match b.select_nth(&mut v, n) {
            Ok(()) => assert!(
                v[n] == want[n]
                    && v[..n].iter().all(|x| *x <= v[n])
                    && v[n..].iter().all(|x| *x >= v[n]),
                "{name}: select_nth {n}"
            ),
            Err(Error::SelectOutOfRange { .. }) => assert!(n >= keys.len() && v == keys),
            Err(e) => check_refusal(b, takes, &e),
        }
        let mut v = keys.to_vec();
        match b.partial_sort(&mut v, n) {
            Ok(()) => assert!(v[..n] == want[..n], "{name}: partial_sort {n}"),
            Err(e) => check_refusal(b, takes, &e),
        }
    }
}

/// Byte strings from `data`: the first byte is the length of a prefix every string shares
/// (the next bytes, repeated), then each string is a length byte (modulo 48) and its bytes.
pub fn fuzz_strings(data: &[u8]) {
    let Some((&p, mut rest)) = data.split_first() else {
        return;
    };
    let p = usize::from(p % 64);
    let unit: Vec<u8> = rest.iter().take(p.min(8)).copied().collect();
    let prefix: Vec<u8> = unit
        .iter()
        .copied()
        .cycle()
        .take(if unit.is_empty() { 0 } else { p })
        .collect();
    let mut rows: Vec<Vec<u8>> = Vec::new();
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len % 48).min(tail.len());
        let mut s = prefix.clone();
        s.extend_from_slice(&tail[..len]);
        rows.push(s);
        rest = &tail[len..];
    }
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| rows[a].cmp(&rows[b]));
    let mut want = rows.clone();
    want.sort();
    for b in backends() {
        let takes = b.supports_strings();
        match b.argsort_strings(&rows) {
            Ok(o) => assert!(o == order, "{}: argsort_strings {rows:?}", b.name()),
            Err(e) => check_refusal(b, takes, &e),
        }
        let mut owned = rows.clone();
        match b.sort_strings(&mut owned) {
            Ok(()) => assert!(owned == want, "{}: sort_strings {rows:?}", b.name()),
            Err(e) => {
                check_refusal(b, takes, &e);
                assert!(owned == rows, "{}: refused strings changed", b.name());
            }
        }
    }
}
