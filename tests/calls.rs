//! The DESIGN.md harness for the calls beyond `sort`: `sort_descending`, `sort_pairs` with
//! values of other types, `sort_by_key`, `argsort`, `select_nth` and `partial_sort`, on every
//! backend that accepts them, for every key type, against one stable reference per input.
//!
//! Lengths: every length 0..=300 and 2^k-1, 2^k, 2^k+1 up to 2^12 on every pattern and
//! backend; on `radix` and `auto` (the backends with paths of their own at large sizes) up to
//! 2^16 on descending and few-distinct data and up to 2^20 on random data. GPU backends
//! (lavapipe in CI) get the small lengths and a few large ones, as in tests/backends.rs.

mod common;

use common::{keys, lengths, Pattern, TestKey, PATTERNS};
use sortnet::{backend, Device, Error, SortBackend, Workload};

/// Backends whose pair sorts promise stability; through `sort_pairs`, `sort_by_key` and
/// `argsort`, every backend that accepts them must be stable.
fn under_test() -> Vec<&'static dyn SortBackend> {
    backend::available()
}

fn is_gpu(b: &dyn SortBackend) -> bool {
    b.device() != Device::Cpu
}

/// The lengths of this suite for `pattern` on `b`. The large ones go to `radix` and `auto`
/// only: the other CPU backends' select is shared with them and their own sorts are tested
/// at every size in tests/backends.rs.
fn lengths_for(b: &dyn SortBackend, pattern: Pattern) -> Vec<usize> {
    if is_gpu(b) {
        return match pattern {
            Pattern::Random => {
                let mut v: Vec<usize> = (0..=300).step_by(7).collect();
                v.extend([511, 513, 4097, 65537]);
                v
            }
            _ => vec![0, 1, 2, 31, 257, 4097],
        };
    }
    let large = matches!(b.name(), "radix" | "auto");
    match pattern {
        Pattern::Random if large => lengths(20),
        Pattern::Descending | Pattern::FewDistinct if large => lengths(16),
        _ => lengths(12),
    }
}

/// One input and everything the calls should make of it.
struct Case<K> {
    input: Vec<K>,
    /// The stable order: `input[order[i]]` is the i-th smallest, ties by index.
    order: Vec<usize>,
    /// Bits of the sorted keys.
    sorted: Vec<u64>,
}

impl<K: TestKey> Case<K> {
    fn new(input: Vec<K>) -> Self {
        let mut order: Vec<usize> = (0..input.len()).collect();
        order.sort_by(|&a, &b| input[a].key_cmp(&input[b]));
        let sorted = order.iter().map(|&i| input[i].bits()).collect();
        Case {
            input,
            order,
            sorted,
        }
    }
}

fn bits<K: TestKey>(v: &[K]) -> Vec<u64> {
    v.iter().map(|k| k.bits()).collect()
}

/// A record of 24 bytes: a value type of neither 4 nor 8 bytes, moved by index.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Wide {
    index: u64,
    check: [u32; 4],
}

/// A record without `Copy`, as `sort_by_key` sorts them.
#[derive(Debug, PartialEq)]
struct Record<K> {
    key: K,
    index: usize,
    name: String,
}

fn check_calls<K: TestKey>() {
    let backends = under_test();
    let name = K::NAME;
    let mut checked = 0usize;
    for (pi, &pattern) in PATTERNS.iter().enumerate() {
        for len in lengths(20) {
            let users: Vec<_> = backends
                .iter()
                .copied()
                .filter(|b| lengths_for(*b, pattern).contains(&len))
                .collect();
            if users.is_empty() {
                continue;
            }
            let case = Case::new(keys::<K>(pattern, len, 300 + pi as u64));
            for b in users {
                let who = b.name();
                let at = format!("{who}: {name} {pattern:?} n={len}");
                if b.supports(Workload::Keys(K::WIDTH)) {
                    check_descending(b, &case, &at);
                    check_select(b, &case, &at);
                    checked += 1;
                }
                if b.supports(Workload::Pairs(K::WIDTH)) {
                    check_pairs(b, &case, &at);
                    check_by_key(b, &case, &at);
                    let order = b
                        .argsort(&case.input)
                        .unwrap_or_else(|e| panic!("{at}: {e}"));
                    assert!(order == case.order, "{at}: argsort");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0, "no backend took {name}");
}

fn check_descending<K: TestKey>(b: &dyn SortBackend, case: &Case<K>, at: &str) {
    let mut v = case.input.clone();
    b.sort_descending(&mut v)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    let mut want = case.sorted.clone();
    want.reverse();
    assert!(bits(&v) == want, "{at}: sort_descending");
}

fn check_select<K: TestKey>(b: &dyn SortBackend, case: &Case<K>, at: &str) {
    let len = case.input.len();
    let large = len > 1 << 12;
    if len > 0 {
        let positions = if large {
            vec![len / 2]
        } else {
            vec![0, len / 2, len - 1, (len * 7 / 10).min(len - 1)]
        };
        for n in positions {
            let mut v = case.input.clone();
            b.select_nth(&mut v, n)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(v[n].bits(), case.sorted[n], "{at}: select_nth({n}) value");
            let pivot = v[n];
            assert!(
                v[..n].iter().all(|x| x.key_cmp(&pivot).is_le())
                    && v[n..].iter().all(|x| x.key_cmp(&pivot).is_ge()),
                "{at}: select_nth({n}) partition"
            );
            let mut all = bits(&v);
            all.sort_unstable();
            let mut want = case.sorted.clone();
            want.sort_unstable();
            assert!(all == want, "{at}: select_nth({n}) lost keys");
        }
    }
    let counts = if large {
        vec![len / 100]
    } else {
        vec![0, 1.min(len), len / 100, len / 3, len]
    };
    for k in counts {
        let mut v = case.input.clone();
        b.partial_sort(&mut v, k)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        assert!(bits(&v[..k]) == case.sorted[..k], "{at}: partial_sort({k})");
        let mut all = bits(&v);
        all.sort_unstable();
        let mut want = case.sorted.clone();
        want.sort_unstable();
        assert!(all == want, "{at}: partial_sort({k}) lost keys");
    }
}

fn check_pairs<K: TestKey>(b: &dyn SortBackend, case: &Case<K>, at: &str) {
    let n = case.input.len();
    // 8-byte values move inside the sort.
    let mut k = case.input.clone();
    let mut v: Vec<u64> = (0..n as u64).map(|i| i << 32 | 0xdead).collect();
    b.sort_pairs(&mut k, &mut v)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert!(bits(&k) == case.sorted, "{at}: sort_pairs u64 keys");
    assert!(
        v.iter()
            .zip(&case.order)
            .all(|(&v, &i)| v == (i as u64) << 32 | 0xdead),
        "{at}: sort_pairs u64 values not stable"
    );
    // The other value types take the same paths at every length.
    if n > 1 << 12 {
        return;
    }
    // 4-byte values of a type with padding-free bytes but no integer meaning.
    let mut k = case.input.clone();
    let mut v: Vec<[u16; 2]> = (0..n).map(|i| [i as u16, (i >> 16) as u16]).collect();
    b.sort_pairs(&mut k, &mut v)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert!(bits(&k) == case.sorted, "{at}: sort_pairs [u16; 2] keys");
    assert!(
        v.iter()
            .zip(&case.order)
            .all(|(v, &i)| *v == [i as u16, (i >> 16) as u16]),
        "{at}: sort_pairs [u16; 2] values not stable"
    );
    // Values of another size go by index.
    let mut k = case.input.clone();
    let mut v: Vec<Wide> = (0..n as u64)
        .map(|i| Wide {
            index: i,
            check: [i as u32; 4],
        })
        .collect();
    b.sort_pairs(&mut k, &mut v)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert!(bits(&k) == case.sorted, "{at}: sort_pairs Wide keys");
    assert!(
        v.iter()
            .zip(&case.order)
            .all(|(v, &i)| v.index == i as u64 && v.check == [i as u32; 4]),
        "{at}: sort_pairs Wide values not stable"
    );
}

fn check_by_key<K: TestKey>(b: &dyn SortBackend, case: &Case<K>, at: &str) {
    let mut records: Vec<Record<K>> = case
        .input
        .iter()
        .enumerate()
        .map(|(index, &key)| Record {
            key,
            index,
            name: index.to_string(),
        })
        .collect();
    b.sort_by_key(&mut records, |r| r.key)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert!(
        records
            .iter()
            .zip(&case.order)
            .all(|(r, &i)| r.index == i && r.name == i.to_string()),
        "{at}: sort_by_key not stable"
    );
    // 16- and 32-byte records that own memory move inside the sort (the radix sort's
    // routes depend on the bytes per element, so these cross its MSD threshold at other
    // lengths than the keys do).
    let at16 = format!("{at}, 16-byte records");
    check_moved(b, case, &at16, 16, |k, tag| (k, tag), |r| (r.0, &r.1));
    let at32 = format!("{at}, 32-byte records");
    let rec32 = |k, tag| (k, tag, [0u64; 2]);
    check_moved(b, case, &at32, 32, rec32, |r| (r.0, &r.1));
}

/// Records of `bytes` bytes made by `make(key, tag)`, sorted by their key and checked for
/// stability by the tag, which owns memory (a record moved twice would free it twice).
fn check_moved<K: TestKey, T: Send + Sync>(
    b: &dyn SortBackend,
    case: &Case<K>,
    at: &str,
    bytes: usize,
    make: impl Fn(K, Box<u32>) -> T,
    parts: fn(&T) -> (K, &Box<u32>),
) {
    assert_eq!(std::mem::size_of::<T>(), bytes, "{at}");
    let mut items: Vec<T> = case
        .input
        .iter()
        .enumerate()
        .map(|(i, &key)| make(key, Box::new(i as u32)))
        .collect();
    b.sort_by_key(&mut items, |r| parts(r).0)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert!(
        items
            .iter()
            .zip(&case.order)
            .all(|(r, &i)| **parts(r).1 == i as u32),
        "{at}: sort_by_key not stable"
    );
}

#[test]
fn calls_u8() {
    check_calls::<u8>();
}
#[test]
fn calls_i8() {
    check_calls::<i8>();
}
#[test]
fn calls_u16() {
    check_calls::<u16>();
}
#[test]
fn calls_i16() {
    check_calls::<i16>();
}
#[test]
fn calls_u32() {
    check_calls::<u32>();
}
#[test]
fn calls_i32() {
    check_calls::<i32>();
}
#[test]
fn calls_f32() {
    check_calls::<f32>();
}
#[test]
fn calls_u64() {
    check_calls::<u64>();
}
#[test]
fn calls_i64() {
    check_calls::<i64>();
}
#[test]
fn calls_f64() {
    check_calls::<f64>();
}
#[test]
fn calls_usize() {
    check_calls::<usize>();
}
#[test]
fn calls_isize() {
    check_calls::<isize>();
}

/// Every `Err` of the new calls leaves the data as it was, and its message says what to do.
#[test]
fn bad_arguments_change_nothing() {
    for b in under_test() {
        let who = b.name();
        let input = vec![5u32, 1, 4, 1, 3];
        let mut keys = input.clone();
        let e = b.select_nth(&mut keys, 5).unwrap_err();
        assert!(
            matches!(e, Error::SelectOutOfRange { n: 5, len: 5 }),
            "{who}: {e}"
        );
        assert!(e.to_string().contains("n < len"), "{who}: {e}");
        assert_eq!(keys, input, "{who}");
        let e = b.partial_sort(&mut keys, 6).unwrap_err();
        assert!(
            matches!(e, Error::PartialSortOutOfRange { k: 6, len: 5 }),
            "{who}: {e}"
        );
        assert!(e.to_string().contains("k <= len"), "{who}: {e}");
        assert_eq!(keys, input, "{who}");
        let mut empty: Vec<f64> = Vec::new();
        assert!(matches!(
            b.select_nth(&mut empty, 0),
            Err(Error::SelectOutOfRange { n: 0, len: 0 })
        ));
        let mut values = vec![0u64; 4];
        let e = b.sort_pairs(&mut keys, &mut values).unwrap_err();
        assert!(
            matches!(e, Error::LengthMismatch { keys: 5, values: 4 }),
            "{who}: {e}"
        );
        assert_eq!(keys, input, "{who}");
        assert_eq!(values, [0; 4], "{who}");
        let mut small = vec![3u8, 1, 2];
        let mut wide = vec![[0u8; 3]; 2];
        assert!(matches!(
            b.sort_pairs(&mut small, &mut wide),
            Err(Error::LengthMismatch { .. })
        ));
        assert_eq!(small, [3, 1, 2], "{who}");
        // A backend that does not do a call says so and changes nothing.
        if !b.supports(Workload::Pairs(sortnet::KeyWidth::W32)) {
            let mut records = vec![(2u32, "b"), (1, "a")];
            let e = b.sort_by_key(&mut records, |r| r.0).unwrap_err();
            assert!(matches!(e, Error::Unsupported { .. }), "{who}: {e}");
            assert_eq!(records, [(2, "b"), (1, "a")], "{who}");
            assert!(matches!(b.argsort(&input), Err(Error::Unsupported { .. })));
        }
        if !b.supports(Workload::Keys(sortnet::KeyWidth::W32)) {
            let mut k = input.clone();
            assert!(matches!(
                b.sort_descending(&mut k),
                Err(Error::Unsupported { .. })
            ));
            assert!(matches!(
                b.select_nth(&mut k, 1),
                Err(Error::Unsupported { .. })
            ));
            let mut s = vec![2u16, 1];
            assert!(matches!(b.sort(&mut s), Err(Error::Unsupported { .. })));
            assert_eq!(k, input, "{who}");
            assert_eq!(s, [2, 1], "{who}");
        }
    }
}

/// Floats sort descending in the reverse of total order: +NaN first, -NaN last.
#[test]
fn descending_floats_put_positive_nan_first() {
    let input = [
        0.0f32,
        -f32::NAN,
        1.5,
        f32::NAN,
        -0.0,
        f32::NEG_INFINITY,
        f32::INFINITY,
    ];
    for b in under_test() {
        if !b.supports(Workload::Keys(sortnet::KeyWidth::W32)) {
            continue;
        }
        let mut v = input;
        b.sort_descending(&mut v).unwrap();
        let got = v.map(f32::to_bits);
        let want = [
            f32::NAN.to_bits(),
            f32::INFINITY.to_bits(),
            1.5f32.to_bits(),
            0.0f32.to_bits(),
            (-0.0f32).to_bits(),
            f32::NEG_INFINITY.to_bits(),
            (-f32::NAN).to_bits(),
        ];
        assert_eq!(got, want, "{}", b.name());
    }
}

/// `CpuRadixSorter` with each digit width forced through its configuration, whatever this
/// machine's probe chose: keys of every width and pairs with record values, stably, on the
/// plain LSD route (around the wide-digit threshold) and the MSD route.
#[test]
fn radix_sorter_sorts_stably_with_every_digit_width() {
    use sortnet::keys::CpuRadixSorter;
    use sortnet::tuning::{DigitWidth, DigitWidths};
    let widths = [DigitWidth::Bits8, DigitWidth::Bits11];
    for lsd_digits in widths {
        for bucket_digits in widths {
            let config = DigitWidths {
                lsd_digits,
                bucket_digits,
            };
            let mut sorter = CpuRadixSorter::with_config(config);
            for n in [(1 << 14) - 1, (1 << 14) + 1, 1 << 16, (1 << 18) + 5] {
                let keys: Vec<u64> = keys::<u64>(Pattern::Random, n, 7)
                    .into_iter()
                    .map(|k| k % 100_003)
                    .collect();
                let mut want: Vec<(u64, usize)> = keys.iter().copied().zip(0..n).collect();
                want.sort_by_key(|p| p.0);
                let mut k = keys.clone();
                let mut records: Vec<[u64; 2]> = (0..n as u64).map(|i| [i, !i]).collect();
                sorter.sort_pairs(&mut k, &mut records).unwrap();
                let got: Vec<(u64, usize)> = k
                    .iter()
                    .copied()
                    .zip(records.iter().map(|r| r[0] as usize))
                    .collect();
                assert!(got == want, "{config:?} n={n}");
                assert!(records.iter().all(|r| r[1] == !r[0]), "{config:?} n={n}");
                let mut k32: Vec<i32> = keys.iter().map(|&k| k as i32 - 50_000).collect();
                let mut want32 = k32.clone();
                want32.sort_unstable();
                sorter.sort(&mut k32);
                assert!(k32 == want32, "{config:?} n={n}");
            }
        }
    }
}
