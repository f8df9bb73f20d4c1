//! quickcheck properties of every key backend: for any slice of any key type the result is
//! the slice sorted by `total_cmp`/`Ord` (same multiset, ascending), sorting twice changes
//! nothing, and `sort_pairs` keeps every value with its key; on `radix`, pairs are stable.
//! 128-bit keys and byte strings: every call against std's stable sort, on every backend
//! that takes them.
//!
//! quickcheck's `Vec<T>` generator makes short slices; `Spread` stretches some of them past
//! the small-slice networks and radix's insertion sort so that the partition and the LSD
//! passes are exercised too, and some into a sorted slice with quickcheck's keys out of
//! place in it (the scan for nearly sorted input).

use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use sortnet::{backend, Key, KeyWidth, Workload};

/// A key slice: quickcheck's values, sometimes repeated into a longer slice (many equal
/// keys) or extended by a deterministic spread (many distinct keys).
#[derive(Clone, Debug)]
struct Spread<K>(Vec<K>);

impl<K: Arbitrary + Key> Arbitrary for Spread<K> {
    fn arbitrary(g: &mut Gen) -> Self {
        let base: Vec<K> = Vec::arbitrary(g);
        let v = match u8::arbitrary(g) % 5 {
            0 if !base.is_empty() => {
                let reps = 1 + usize::arbitrary(g) % 40;
                base.iter()
                    .copied()
                    .cycle()
                    .take(base.len() * reps)
                    .collect()
            }
            1 => {
                let extra = usize::arbitrary(g) % 3000;
                let mut v = base;
                for _ in 0..extra {
                    v.push(K::arbitrary(g));
                }
                v
            }
            // Sorted but for quickcheck's keys, inserted at places of its choosing: the
            // nearly-sorted scan of the key sorts (from 4096 keys).
            2 => {
                let mut v: Vec<K> = (0..4096 + usize::arbitrary(g) % 512)
                    .map(|_| K::arbitrary(g))
                    .collect();
                v.sort_by(K::key_cmp);
                for k in base {
                    let at = usize::arbitrary(g) % (v.len() + 1);
                    v.insert(at, k);
                }
                v
            }
            _ => base,
        };
        Spread(v)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.0.shrink().map(Spread))
    }
}

/// The key types' bits, so that NaN payloads and -0.0 compare exactly.
trait Bits: Key + Arbitrary + std::fmt::Debug {
    fn bits(self) -> u64;
}

macro_rules! bits {
    ($t:ty, $conv:expr) => {
        impl Bits for $t {
            fn bits(self) -> u64 {
                $conv(self)
            }
        }
    };
}
bits!(u32, |x: u32| x as u64);
bits!(i32, |x: i32| x as u32 as u64);
bits!(f32, |x: f32| x.to_bits() as u64);
bits!(u64, |x: u64| x);
bits!(i64, |x: i64| x as u64);
bits!(f64, |x: f64| x.to_bits());

fn reference<K: Bits>(keys: &[K]) -> Vec<u64> {
    let mut v = keys.to_vec();
    v.sort_by(|a, b| a.key_cmp(b));
    v.into_iter().map(Bits::bits).collect()
}

/// Keys: sorted like the reference, and sorting again changes nothing.
fn keys_property<K: Bits>(name: &str, keys: Spread<K>) -> TestResult {
    let Some(b) = backend::by_name(name) else {
        return TestResult::discard();
    };
    if !b.supports(Workload::Keys(K::WIDTH)) {
        return TestResult::discard();
    }
    let keys = keys.0;
    let mut sorted = keys.clone();
    if b.sort(&mut sorted).is_err() {
        return TestResult::failed();
    }
    let got: Vec<u64> = sorted.iter().map(|k| k.bits()).collect();
    let mut again = sorted.clone();
    let idempotent =
        b.sort(&mut again).is_ok() && again.iter().map(|k| k.bits()).eq(got.iter().copied());
    TestResult::from_bool(got == reference(&keys) && idempotent)
}

/// Pairs: keys sorted like the reference and each value still with its key (values are the
/// input positions); with `stable`, equal keys keep their input order.
fn pairs_property<K: Bits>(name: &str, keys: Spread<K>, stable: bool) -> TestResult {
    let Some(b) = backend::by_name(name) else {
        return TestResult::discard();
    };
    if !b.supports(Workload::Pairs(K::WIDTH)) {
        return TestResult::discard();
    }
    let keys = keys.0;
    let mut k = keys.clone();
    let mut v: Vec<u32> = (0..keys.len() as u32).collect();
    if b.sort_pairs(&mut k, &mut v).is_err() {
        return TestResult::failed();
    }
    let got: Vec<u64> = k.iter().map(|x| x.bits()).collect();
    let follows = k.iter().zip(&v).all(|(key, &i)| {
        keys.get(i as usize)
            .is_some_and(|orig| orig.bits() == key.bits())
    });
    let mut seen = v.clone();
    seen.sort_unstable();
    let permutation = seen.iter().copied().eq(0..keys.len() as u32);
    let stable_ok = !stable
        || k.windows(2)
            .zip(v.windows(2))
            .all(|(kk, vv)| kk[0].bits() != kk[1].bits() || vv[0] < vv[1]);
    TestResult::from_bool(got == reference(&keys) && follows && permutation && stable_ok)
}

/// `sort_descending`: the reference reversed.
fn descending_property<K: Bits>(name: &str, keys: Spread<K>) -> TestResult {
    let Some(b) = backend::by_name(name) else {
        return TestResult::discard();
    };
    if !b.supports(Workload::Keys(K::WIDTH)) {
        return TestResult::discard();
    }
    let mut v = keys.0.clone();
    if b.sort_descending(&mut v).is_err() {
        return TestResult::failed();
    }
    let mut want = reference(&keys.0);
    want.reverse();
    TestResult::from_bool(v.iter().map(|k| k.bits()).eq(want))
}

/// The stable order of `keys`.
fn stable_order<K: Bits>(keys: &[K]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].key_cmp(&keys[b]));
    order
}

/// `argsort` and `sort_by_key` (records carrying their input position): both give the
/// stable order.
fn order_property<K: Bits>(name: &str, keys: Spread<K>) -> TestResult {
    let Some(b) = backend::by_name(name) else {
        return TestResult::discard();
    };
    if !b.supports(Workload::Pairs(K::WIDTH)) {
        return TestResult::discard();
    }
    let keys = keys.0;
    let want = stable_order(&keys);
    let Ok(order) = b.argsort(&keys) else {
        return TestResult::failed();
    };
    let mut records: Vec<(K, String)> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i.to_string()))
        .collect();
    if b.sort_by_key(&mut records, |r| r.0).is_err() {
        return TestResult::failed();
    }
    let by_key = records
        .iter()
        .zip(&want)
        .all(|(r, &i)| r.1 == i.to_string());
    TestResult::from_bool(order == want && by_key)
}

/// `select_nth` (partition property, value at n) and `partial_sort` (the reference's prefix)
/// at a position drawn with the keys; out-of-range positions are refused with the keys
/// unchanged.
fn select_property<K: Bits>(name: &str, keys: Spread<K>, at: usize) -> TestResult {
    let Some(b) = backend::by_name(name) else {
        return TestResult::discard();
    };
    if !b.supports(Workload::Keys(K::WIDTH)) {
        return TestResult::discard();
    }
    let keys = keys.0;
    let n = at % (keys.len() + 2);
    let want = reference(&keys);
    let mut v = keys.clone();
    let selected = match b.select_nth(&mut v, n) {
        Ok(()) => {
            n < keys.len()
                && v[n].bits() == want[n]
                && v[..n].iter().all(|x| x.key_cmp(&v[n]).is_le())
                && v[n..].iter().all(|x| x.key_cmp(&v[n]).is_ge())
        }
        Err(_) => n >= keys.len() && v.iter().map(|k| k.bits()).eq(keys.iter().map(|k| k.bits())),
    };
    let mut v = keys.clone();
    let partial = match b.partial_sort(&mut v, n) {
        Ok(()) => {
            n <= keys.len()
                && v[..n]
                    .iter()
                    .map(|k| k.bits())
                    .eq(want[..n].iter().copied())
        }
        Err(_) => n > keys.len(),
    };
    TestResult::from_bool(selected && partial)
}

macro_rules! key_tests {
    ($test:ident, $name:expr) => {
        #[test]
        fn $test() {
            fn p_u32(k: Spread<u32>) -> TestResult {
                keys_property($name, k)
            }
            fn p_i32(k: Spread<i32>) -> TestResult {
                keys_property($name, k)
            }
            fn p_f32(k: Spread<f32>) -> TestResult {
                keys_property($name, k)
            }
            fn p_u64(k: Spread<u64>) -> TestResult {
                keys_property($name, k)
            }
            fn p_i64(k: Spread<i64>) -> TestResult {
                keys_property($name, k)
            }
            fn p_f64(k: Spread<f64>) -> TestResult {
                keys_property($name, k)
            }
            fn pairs_f32(k: Spread<f32>) -> TestResult {
                pairs_property($name, k, $name == "radix")
            }
            fn pairs_i64(k: Spread<i64>) -> TestResult {
                pairs_property($name, k, $name == "radix")
            }
            fn desc_f32(k: Spread<f32>) -> TestResult {
                descending_property($name, k)
            }
            fn desc_i64(k: Spread<i64>) -> TestResult {
                descending_property($name, k)
            }
            fn order_f32(k: Spread<f32>) -> TestResult {
                order_property($name, k)
            }
            fn order_u64(k: Spread<u64>) -> TestResult {
                order_property($name, k)
            }
            fn select_f64(k: Spread<f64>, at: usize) -> TestResult {
                select_property($name, k, at)
            }
            fn select_i32(k: Spread<i32>, at: usize) -> TestResult {
                select_property($name, k, at)
            }
            let qc = || QuickCheck::new().tests(150);
            qc().quickcheck(desc_f32 as fn(Spread<f32>) -> TestResult);
            qc().quickcheck(desc_i64 as fn(Spread<i64>) -> TestResult);
            qc().quickcheck(order_f32 as fn(Spread<f32>) -> TestResult);
            qc().quickcheck(order_u64 as fn(Spread<u64>) -> TestResult);
            qc().quickcheck(select_f64 as fn(Spread<f64>, usize) -> TestResult);
            qc().quickcheck(select_i32 as fn(Spread<i32>, usize) -> TestResult);
            qc().quickcheck(p_u32 as fn(Spread<u32>) -> TestResult);
            qc().quickcheck(p_i32 as fn(Spread<i32>) -> TestResult);
            qc().quickcheck(p_f32 as fn(Spread<f32>) -> TestResult);
            qc().quickcheck(p_u64 as fn(Spread<u64>) -> TestResult);
            qc().quickcheck(p_i64 as fn(Spread<i64>) -> TestResult);
            qc().quickcheck(p_f64 as fn(Spread<f64>) -> TestResult);
            qc().quickcheck(pairs_f32 as fn(Spread<f32>) -> TestResult);
            qc().quickcheck(pairs_i64 as fn(Spread<i64>) -> TestResult);
        }
    };
}

/// 128-bit keys: quickcheck's keys (any bits) or small ones scaled into decimals of either
/// sign (few varying bytes), sometimes repeated or spread.
#[derive(Clone, Debug)]
struct Wide(Vec<i128>);

impl Arbitrary for Wide {
    fn arbitrary(g: &mut Gen) -> Self {
        let scale = *g
            .choose(&[0i128, 1, 100, 10i128.pow(20)])
            .expect("non-empty");
        let v = if scale == 0 {
            Spread::<i128>::arbitrary(g).0
        } else {
            Spread::<i32>::arbitrary(g)
                .0
                .into_iter()
                .map(|x| i128::from(x) * scale)
                .collect()
        };
        Wide(v)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.0.shrink().map(Wide))
    }
}

/// Every call on 128-bit keys (`i128`, and the same bits as `u128`) against std on a
/// backend that takes them: sort both ways, stable pairs, argsort and records in the stable
/// order, select and partial sort.
fn wide_property(name: &str, keys: Wide, at: usize) -> TestResult {
    let Some(b) = backend::by_name(name) else {
        return TestResult::discard();
    };
    if !b.supports_key::<i128>() {
        return TestResult::discard();
    }
    let keys = keys.0;
    let unsigned: Vec<u128> = keys.iter().map(|&k| k as u128).collect();
    let mut want = keys.clone();
    want.sort();
    let mut want_u = unsigned.clone();
    want_u.sort();
    let order: Vec<usize> = {
        let mut o: Vec<usize> = (0..keys.len()).collect();
        o.sort_by_key(|&i| keys[i]);
        o
    };
    let (mut s, mut d, mut u) = (keys.clone(), keys.clone(), unsigned.clone());
    let sorted = b.sort(&mut s).is_ok() && s == want && b.sort(&mut u).is_ok() && u == want_u;
    let descending = b.sort_descending(&mut d).is_ok() && d.iter().rev().eq(want.iter());
    let (mut k, mut v) = (keys.clone(), (0..keys.len()).collect::<Vec<usize>>());
    let pairs = b.sort_pairs(&mut k, &mut v).is_ok() && k == want && v == order;
    let argsort = b.argsort(&keys).is_ok_and(|o| o == order);
    let mut records: Vec<(i128, String)> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i.to_string()))
        .collect();
    let by_key = b.sort_by_key(&mut records, |r| r.0).is_ok()
        && records
            .iter()
            .zip(&order)
            .all(|(r, &i)| r.1 == i.to_string());
    let n = at % (keys.len() + 2);
    let mut sel = keys.clone();
    let selected = match b.select_nth(&mut sel, n) {
        Ok(()) => {
            n < keys.len()
                && sel[n] == want[n]
                && sel[..n].iter().all(|&x| x <= sel[n])
                && sel[n..].iter().all(|&x| x >= sel[n])
        }
        Err(_) => n >= keys.len() && sel == keys,
    };
    let mut part = keys.clone();
    let partial = match b.partial_sort(&mut part, n) {
        Ok(()) => n <= keys.len() && part[..n] == want[..n],
        Err(_) => n > keys.len() && part == keys,
    };
    TestResult::from_bool(sorted && descending && pairs && argsort && by_key && selected && partial)
}

/// Byte strings: quickcheck's, behind a shared prefix of quickcheck's bytes repeated to some
/// length (the 8-byte digits past the first), sometimes repeated (equal strings).
#[derive(Clone, Debug)]
struct Strings(Vec<Vec<u8>>);

impl Arbitrary for Strings {
    fn arbitrary(g: &mut Gen) -> Self {
        let base: Vec<Vec<u8>> = Vec::arbitrary(g);
        let unit: Vec<u8> = Vec::arbitrary(g);
        let prefix: Vec<u8> = unit
            .iter()
            .copied()
            .cycle()
            .take(usize::arbitrary(g) % 40)
            .collect();
        let reps = 1 + usize::arbitrary(g) % 4;
        let v = base
            .iter()
            .cycle()
            .take(base.len() * reps)
            .map(|s| {
                let mut p = prefix.clone();
                p.extend_from_slice(s);
                p
            })
            .collect();
        Strings(v)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.0.shrink().map(Strings))
    }
}

/// `sort_strings` (on `Vec<u8>`s and on borrowed slices) and `argsort_strings` against std's
/// stable sort.
fn strings_property(name: &str, rows: Strings) -> TestResult {
    let Some(b) = backend::by_name(name) else {
        return TestResult::discard();
    };
    if !b.supports_strings() {
        return TestResult::discard();
    }
    let rows = rows.0;
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&x, &y| rows[x].cmp(&rows[y]));
    let want: Vec<&[u8]> = order.iter().map(|&i| rows[i].as_slice()).collect();
    let argsort = b.argsort_strings(&rows).is_ok_and(|o| o == order);
    let mut owned = rows.clone();
    let owned_ok = b.sort_strings(&mut owned).is_ok()
        && owned.iter().map(Vec::as_slice).eq(want.iter().copied());
    let mut borrowed: Vec<&[u8]> = rows.iter().map(Vec::as_slice).collect();
    let borrowed_ok = b.sort_strings(&mut borrowed).is_ok() && borrowed == want;
    TestResult::from_bool(argsort && owned_ok && borrowed_ok)
}

macro_rules! wide_tests {
    ($test:ident, $name:expr) => {
        #[test]
        fn $test() {
            fn wide(k: Wide, at: usize) -> TestResult {
                wide_property($name, k, at)
            }
            fn strings(rows: Strings) -> TestResult {
                strings_property($name, rows)
            }
            QuickCheck::new()
                .tests(200)
                .quickcheck(wide as fn(Wide, usize) -> TestResult);
            QuickCheck::new()
                .tests(200)
                .quickcheck(strings as fn(Strings) -> TestResult);
        }
    };
}

wide_tests!(radix_wide_and_strings, "radix");
wide_tests!(avx512_wide_and_strings, "avx512");
wide_tests!(avx2_wide_and_strings, "avx2");
wide_tests!(portable_wide_and_strings, "portable");
wide_tests!(auto_wide_and_strings, "auto");

key_tests!(radix_properties, "radix");
key_tests!(avx512_properties, "avx512");
key_tests!(avx2_properties, "avx2");
key_tests!(portable_properties, "portable");
key_tests!(auto_properties, "auto");

/// Every CPU backend that claims a key workload is covered by one of the tests above.
#[test]
fn every_cpu_key_backend_is_covered() {
    let covered = ["radix", "avx512", "avx2", "portable", "auto"];
    for b in backend::available() {
        let does_keys = [KeyWidth::W32, KeyWidth::W64]
            .iter()
            .any(|&w| b.supports(Workload::Keys(w)) || b.supports(Workload::Pairs(w)));
        if does_keys && b.device() == sortnet::Device::Cpu {
            assert!(
                covered.contains(&b.name()),
                "{} has no properties",
                b.name()
            );
        }
    }
}
