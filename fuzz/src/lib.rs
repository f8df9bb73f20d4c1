//! Differential checks shared by the fuzz targets: every available backend (including
//! `auto`) against the reference on the same input.
//!
//! A backend that does the workload must return `Ok` with exactly the reference result (a
//! GPU backend may instead fail with the data untouched); one that does not must say
//! `Unsupported` and leave the data alone.

mod analytics;
mod arrow;
mod calls;

pub use analytics::{fuzz_keys128, fuzz_strings};
pub use arrow::fuzz_arrow;
pub use calls::{fuzz_argsort, fuzz_by_key, fuzz_select};
use sortnet::backend::{self, Device, Options, ProfileChoice};
use sortnet::{Error, Key, SortBackend, Workload};

/// A key the fuzzers build from little-endian bytes and compare by bits (the crate's order
/// is total, so a sorted result is unique bit for bit; NaN payloads included).
pub trait FuzzKey: Key + std::fmt::Debug {
    const BYTES: usize;
    fn from_le(bytes: &[u8]) -> Self;
    fn bits(&self) -> u64;
}

macro_rules! fuzz_key {
    ($($t:ty: $n:literal, $bits:ty;)*) => {
        $(impl FuzzKey for $t {
            const BYTES: usize = $n;
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("exactly BYTES bytes"))
            }
            fn bits(&self) -> u64 {
                <$bits>::from_ne_bytes(self.to_ne_bytes()) as u64
            }
        })*
    };
}

fuzz_key! {
    u8: 1, u8;
    i8: 1, u8;
    u16: 2, u16;
    i16: 2, u16;
    u32: 4, u32;
    i32: 4, u32;
    f32: 4, u32;
    u64: 8, u64;
    i64: 8, u64;
    f64: 8, u64;
}

/// The keys in `data`, `K::BYTES` bytes each (a ragged tail is dropped).
pub fn keys_from<K: FuzzKey>(data: &[u8]) -> Vec<K> {
    data.chunks_exact(K::BYTES).map(K::from_le).collect()
}

/// Every backend, `auto` last. `auto` follows its built-in routes: measuring a profile at
/// the first input would time sorts under AddressSanitizer, past libFuzzer's per-input
/// timeout, and the fuzzers check results, not routes' speed.
pub fn backends() -> Vec<&'static dyn SortBackend> {
    backend::configure(Options {
        profile: ProfileChoice::BuiltIn,
        ..Options::from_env()
    });
    backend::available()
}

fn same_bits<K: FuzzKey>(a: &[K], b: &[K]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.bits() == y.bits())
}

/// What an `Err` from `b` is allowed to be, given whether `b` does the workload; panics on
/// anything else.
fn check_error(b: &dyn SortBackend, workload: Workload, err: &Error) {
    let allowed = match err {
        Error::Unsupported { .. } => !b.supports(workload),
        // Only a GPU may fail on input this small (device lost, out of memory).
        Error::Gpu(_) | Error::TooLarge { .. } => b.device() != Device::Cpu,
        _ => false,
    };
    assert!(
        allowed,
        "{}: unexpected error for {workload:?}: {err}",
        b.name()
    );
}

/// Every backend sorts `input` exactly as `slice::sort_by(key_cmp)` does.
pub fn check_keys<K: FuzzKey>(input: &[K]) {
    let mut expected = input.to_vec();
    expected.sort_by(K::key_cmp);
    let workload = Workload::Keys(K::WIDTH);
    for b in backends() {
        let mut got = input.to_vec();
        match b.sort(&mut got) {
            Ok(()) => assert!(
                same_bits(&got, &expected),
                "{} sorted {} {} keys wrongly:\ninput    {input:?}\ngot      {got:?}\nexpected {expected:?}",
                b.name(),
                input.len(),
                K::NAME
            ),
            Err(e) => {
                check_error(b, workload, &e);
                assert!(
                    same_bits(&got, input) || same_bits(&got, &expected),
                    "{} failed ({e}) and left the keys changed",
                    b.name()
                );
            }
        }
    }
}

/// The keys of `input` sorted, repeated to at least 4096 (where the key sorts try their
/// scan for nearly sorted input), with `input`'s first 64 keys put back out of place.
pub fn nearly_sorted<K: FuzzKey>(input: &[K]) -> Vec<K> {
    let mut keys: Vec<K> = input.iter().copied().cycle().take(4096).collect();
    keys.sort_by(K::key_cmp);
    for (i, &k) in input.iter().take(64).enumerate() {
        let at = (i.wrapping_mul(2_654_435_761) ^ k.bits() as usize) % (keys.len() + 1);
        keys.insert(at, k);
    }
    keys
}

/// Every backend sorts every word's nibbles as `nibble::reference` does.
pub fn check_nibbles(data: &[u8]) {
    let input: Vec<u64> = keys_from(data);
    let expected: Vec<u64> = input
        .iter()
        .map(|&w| sortnet::nibble::reference(w))
        .collect();
    for b in backends() {
        let mut got = input.clone();
        match b.sort_nibbles(&mut got) {
            Ok(()) => assert_eq!(got, expected, "{} sorted nibbles wrongly", b.name()),
            Err(e) => {
                check_error(b, Workload::Nibbles, &e);
                assert!(
                    got == input || got == expected,
                    "{} failed ({e}) and changed words",
                    b.name()
                );
            }
        }
    }
}

/// `(key, value)` pairs in a canonical order (by key, then value), to compare results of
/// sorts that may order the values of equal keys differently.
fn canonical<K: FuzzKey>(keys: &[K], values: &[u32]) -> Vec<(u64, u32)> {
    let mut pairs: Vec<(K, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
    pairs.sort_by(|a, b| a.0.key_cmp(&b.0).then(a.1.cmp(&b.1)));
    pairs.into_iter().map(|(k, v)| (k.bits(), v)).collect()
}

/// Every backend sorts the pairs by key, each value staying with its key; with slices of
/// different lengths every backend returns `LengthMismatch` and changes nothing.
pub fn check_pairs<K: FuzzKey>(data: &[u8], mismatch: bool) {
    let record = K::BYTES + 4;
    let keys: Vec<K> = data
        .chunks_exact(record)
        .map(|r| K::from_le(&r[..K::BYTES]))
        .collect();
    let mut values: Vec<u32> = data
        .chunks_exact(record)
        .map(|r| u32::from_le_bytes(r[K::BYTES..].try_into().expect("4 bytes")))
        .collect();

    if mismatch {
        // One value too many, or one too few when there are keys to pair with.
        if values.pop().is_none() {
            values.push(7);
        } else if keys.len() > 1 && data[0] & 1 == 0 {
            values.pop();
        } else {
            values.extend([1, 2]);
        }
        for b in backends() {
            let (mut k, mut v) = (keys.clone(), values.clone());
            let result = b.sort_pairs(&mut k, &mut v);
            assert!(
                matches!(result, Err(Error::LengthMismatch { .. })),
                "{}: {} keys and {} values gave {result:?}",
                b.name(),
                keys.len(),
                values.len()
            );
            assert!(
                same_bits(&k, &keys) && v == values,
                "{} changed mismatched slices",
                b.name()
            );
        }
        return;
    }

    let expected = canonical(&keys, &values);
    let mut expected_keys = keys.clone();
    expected_keys.sort_by(K::key_cmp);
    let workload = Workload::Pairs(K::WIDTH);
    for b in backends() {
        let (mut k, mut v) = (keys.clone(), values.clone());
        match b.sort_pairs(&mut k, &mut v) {
            Ok(()) => {
                assert!(
                    same_bits(&k, &expected_keys),
                    "{} sorted pair keys wrongly",
                    b.name()
                );
                assert_eq!(
                    canonical(&k, &v),
                    expected,
                    "{} separated values from keys",
                    b.name()
                );
            }
            Err(e) => {
                check_error(b, workload, &e);
                let untouched = same_bits(&k, &keys) && v == values;
                let sorted = same_bits(&k, &expected_keys) && canonical(&k, &v) == expected;
                assert!(
                    untouched || sorted,
                    "{} failed ({e}) and changed the pairs",
                    b.name()
                );
            }
        }
    }
}

/// Runs the pairs check with the key type and length mismatch chosen by the first byte.
pub fn fuzz_pairs(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mismatch = mode & 0x80 != 0;
    match mode % 4 {
        0 => check_pairs::<u32>(rest, mismatch),
        1 => check_pairs::<f32>(rest, mismatch),
        2 => check_pairs::<u64>(rest, mismatch),
        _ => check_pairs::<f64>(rest, mismatch),
    }
}
