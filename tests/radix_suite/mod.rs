//! `vulkan-radix` against std's sort, run for real on lavapipe in CI, for each radix
//! configuration of [`cases`]: the shipped tuning, and the ones that make a software driver
//! run at test sizes the paths other devices and sizes take. Without a Vulkan device the
//! tests skip, unless `SORTNET_REQUIRE_GPU=1`, which turns that into a failure.

use std::sync::OnceLock;

use sortnet::backend;
use sortnet::gpu::context::context;
use sortnet::gpu::radix::{Count, RadixSorter, SortJob, VulkanRadix};
use sortnet::gpu::vulkano::command_buffer::CopyBufferInfo;
use sortnet::tuning::gpu::{self as tuning, PassScheme, RadixConfig};
use sortnet::SortBackend;
use sortnet::{Key, KeyMap, KeyWidth};

use crate::common;
use crate::common::gpu::{buffer, stage_in, Memory};

/// One radix configuration under test.
pub struct Case {
    pub name: &'static str,
    pub backend: VulkanRadix,
}

/// A `vulkan-radix` backend on the shared context with `config`.
pub fn backend_with(config: RadixConfig) -> VulkanRadix {
    let ctx = context().expect("checked by cases()");
    VulkanRadix::new(RadixSorter::with_config(ctx, config).unwrap()).unwrap()
}

/// The configurations every suite test runs (empty, so the tests skip, without a device):
/// the shipped tuning; every pass by reduce-then-scan with at most three partitions, so that
/// from three tiles on a partition sorts several tiles in turn and the last one is shorter;
/// the same with the spin limit at zero (no tile waits for the scan that the pass's first
/// workgroups run: each computes its partitions' offsets from the counts instead, the path
/// taken when a driver does not run the scan's workgroups first); and the same with each
/// pass's scan as a dispatch of its own.
pub fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        if common::gpu_or_skip(backend::by_name("vulkan-radix"), "vulkan-radix").is_none() {
            return Vec::new();
        }
        let reduce = || {
            let mut c = RadixConfig::default();
            c.scheme = PassScheme::ReduceThenScan;
            c.partitions = 3;
            c
        };
        let mut reduce_no_spin = reduce();
        reduce_no_spin.spin_limit = Some(0);
        let mut reduce_scan_dispatch = reduce();
        reduce_scan_dispatch.scan_in_pass = false;
        vec![
            Case {
                name: "shipped",
                backend: backend_with(RadixConfig::default()),
            },
            Case {
                name: "reduce-then-scan, 3 partitions",
                backend: backend_with(reduce()),
            },
            Case {
                name: "reduce-then-scan, 3 partitions, no spin",
                backend: backend_with(reduce_no_spin),
            },
            Case {
                name: "reduce-then-scan, 3 partitions, scan dispatch",
                backend: backend_with(reduce_scan_dispatch),
            },
        ]
    })
}

/// Keys of the test with their bit patterns, so NaNs compare equal to themselves.
trait TestKey: Key + std::fmt::Debug {
    fn from_bits64(bits: u64) -> Self;
    fn bits(self) -> u64;
}

macro_rules! test_key {
    ($t:ty, $from:expr, $to:expr) => {
        impl TestKey for $t {
            fn from_bits64(bits: u64) -> Self {
                $from(bits)
            }
            fn bits(self) -> u64 {
                $to(self)
            }
        }
    };
}
test_key!(u32, |b| b as u32, |k| k as u64);
test_key!(i32, |b| b as u32 as i32, |k: i32| k as u32 as u64);
test_key!(f32, |b| f32::from_bits(b as u32), |k: f32| k.to_bits()
    as u64);
test_key!(u64, |b| b, |k| k);
test_key!(i64, |b| b as i64, |k: i64| k as u64);
test_key!(f64, f64::from_bits, f64::to_bits);

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[derive(Debug, Clone, Copy)]
enum Pattern {
    Random,
    AllEqual,
    Ascending,
    Descending,
    TopByteOnly,
    FewDistinct,
    /// 64-bit keys that differ only in their low word under one negative high word: the
    /// last pass that runs sorts the low word, and decoding floats must flip it.
    LowWordOnly,
    /// Random keys (both signs) whose lowest byte is the same: the first pass that runs sorts
    /// byte 1, so its upsweep reads keys the plan has not mapped yet and maps them itself
    /// (64-bit keys: the low word alone, which the float map flips by the high word's sign).
    FixedLowByte,
}

const PATTERNS: [Pattern; 8] = [
    Pattern::Random,
    Pattern::AllEqual,
    Pattern::Ascending,
    Pattern::Descending,
    Pattern::TopByteOnly,
    Pattern::FewDistinct,
    Pattern::LowWordOnly,
    Pattern::FixedLowByte,
];

/// `n` keys of `pattern`; `bits` is the key width (top-byte keys differ only in the byte
/// the last pass sorts, so every other pass is skipped).
fn keys<K: TestKey>(pattern: Pattern, n: usize, bits: u32, seed: u64) -> Vec<K> {
    let mut rng = Rng(seed | 1);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    (0..n)
        .map(|i| {
            let b = match pattern {
                Pattern::Random => rng.next(),
                Pattern::AllEqual => 0x1234_5678_9abc_def0,
                Pattern::Ascending => i as u64 * 3,
                Pattern::Descending => (n - i) as u64 * 5,
                Pattern::TopByteOnly => (rng.next() & 0xff) << (bits - 8) | 0x00ab_cdef,
                Pattern::FewDistinct => {
                    [7u64, 1 << 20, 3, u64::MAX, 1 << 40][rng.next() as usize % 5]
                }
                Pattern::LowWordOnly => 0xc012_3456_0000_0000 | (rng.next() >> 32),
                Pattern::FixedLowByte => (rng.next() & !0xff) | 0x5a,
            };
            K::from_bits64(b & mask)
        })
        .collect()
}

fn check_keys<K: TestKey>(b: &(dyn SortBackend + 'static), input: &[K], what: &str) {
    let mut expected = input.to_vec();
    expected.sort_by(|a, b| a.key_cmp(b));
    let mut got = input.to_vec();
    b.sort(&mut got).unwrap_or_else(|e| panic!("{what}: {e}"));
    let first_bad = got
        .iter()
        .zip(&expected)
        .position(|(g, e)| g.bits() != e.bits());
    assert!(
        first_bad.is_none(),
        "{what}: n={} first difference at {:?}: got {:?}, expected {:?}",
        input.len(),
        first_bad,
        first_bad.map(|i| got[i]),
        first_bad.map(|i| expected[i])
    );
}

/// Values are the input positions, so the expected result is the stable sort.
fn check_pairs<K: TestKey>(b: &(dyn SortBackend + 'static), input: &[K], what: &str) -> Vec<u32> {
    let mut order: Vec<u32> = (0..input.len() as u32).collect();
    order.sort_by(|&x, &y| input[x as usize].key_cmp(&input[y as usize]));
    let mut keys = input.to_vec();
    let mut values: Vec<u32> = (0..input.len() as u32).collect();
    b.sort_pairs(&mut keys, &mut values)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(i) = values.iter().zip(&order).position(|(g, e)| g != e) {
        panic!(
            "{what}: n={} value at {i} is {} (key {:?}), the stable order has {} (key {:?})",
            input.len(),
            values[i],
            keys[i],
            order[i],
            input[order[i] as usize]
        );
    }
    for (k, &v) in keys.iter().zip(&values) {
        assert_eq!(
            k.bits(),
            input[v as usize].bits(),
            "{what}: key moved without its value"
        );
    }
    values
}

/// Sizes around one and two tiles, many tiles with a partial last one.
fn sizes(case: &Case, width: KeyWidth, pairs: bool) -> Vec<usize> {
    let tile = tuning::tile_keys(case.backend.sorter(), width, pairs).unwrap() as usize;
    vec![
        0,
        1,
        2,
        3,
        tile - 1,
        tile,
        tile + 1,
        2 * tile - 1,
        2 * tile,
        2 * tile + 1,
        7 * tile + 123,
    ]
}

fn all_patterns_keys<K: TestKey>(bits: u32, width: KeyWidth) {
    for case in cases() {
        for n in sizes(case, width, false) {
            for p in PATTERNS {
                let input = keys::<K>(p, n, bits, n as u64 * 31 + 7);
                let what = format!("{}: {} {p:?}", case.name, std::any::type_name::<K>());
                check_keys(&case.backend, &input, &what);
            }
        }
    }
}

fn all_patterns_pairs<K: TestKey>(bits: u32, width: KeyWidth) {
    for case in cases() {
        for n in sizes(case, width, true) {
            for p in PATTERNS {
                let input = keys::<K>(p, n, bits, n as u64 * 17 + 3);
                let what = format!("{}: pairs {} {p:?}", case.name, std::any::type_name::<K>());
                check_pairs(&case.backend, &input, &what);
            }
        }
    }
}

#[test]
fn u32_keys() {
    all_patterns_keys::<u32>(32, KeyWidth::W32);
}

#[test]
fn i32_keys() {
    all_patterns_keys::<i32>(32, KeyWidth::W32);
}

#[test]
fn f32_keys() {
    all_patterns_keys::<f32>(32, KeyWidth::W32);
}

#[test]
fn u64_keys() {
    all_patterns_keys::<u64>(64, KeyWidth::W64);
}

#[test]
fn i64_keys() {
    all_patterns_keys::<i64>(64, KeyWidth::W64);
}

#[test]
fn f64_keys() {
    all_patterns_keys::<f64>(64, KeyWidth::W64);
}

#[test]
fn u32_pairs_are_stable() {
    all_patterns_pairs::<u32>(32, KeyWidth::W32);
}

#[test]
fn f32_pairs_are_stable() {
    all_patterns_pairs::<f32>(32, KeyWidth::W32);
}

#[test]
fn i64_pairs_are_stable() {
    all_patterns_pairs::<i64>(64, KeyWidth::W64);
}

#[test]
fn f64_pairs_are_stable() {
    all_patterns_pairs::<f64>(64, KeyWidth::W64);
}

#[test]
fn float_specials_in_total_order() {
    for case in cases() {
        float_specials(&case.backend);
    }
}

fn float_specials(b: &(dyn SortBackend + 'static)) {
    let specials32 = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::MIN_POSITIVE,
        -f32::from_bits(1),
        1.5,
        -2.25,
        f32::MAX,
        f32::MIN,
    ];
    let input: Vec<f32> = (0..5000)
        .map(|i| specials32[(i * 7) % specials32.len()])
        .collect();
    check_keys(b, &input, "f32 specials");
    check_pairs(b, &input, "f32 special pairs");
    let input: Vec<f64> = input.iter().map(|&x| x as f64).collect();
    check_keys(b, &input, "f64 specials");
    check_pairs(b, &input, "f64 special pairs");
}

#[test]
fn a_million_and_seven() {
    for case in cases() {
        million_and_seven(&case.backend, case.name);
    }
}

/// `name` (the configuration) goes into every message: a failure here that a rerun does not
/// repeat must say which configuration it came from.
fn million_and_seven(b: &(dyn SortBackend + 'static), name: &str) {
    let n = (1 << 20) + 7;
    let u32_keys = keys::<u32>(Pattern::Random, n, 32, 99);
    check_keys(b, &u32_keys, &format!("{name}: u32 2^20+7"));
    let f32_keys = keys::<f32>(Pattern::Random, n, 32, 98);
    check_pairs(b, &f32_keys, &format!("{name}: f32 pairs 2^20+7"));
    let u64_keys = keys::<u64>(Pattern::Random, n, 64, 97);
    check_keys(b, &u64_keys, &format!("{name}: u64 2^20+7"));
}

/// A race shows as a result that moves between runs of the same input.
#[test]
fn repeated_sorts_give_the_same_result() {
    for case in cases() {
        let b = &case.backend;
        let tile = tuning::tile_keys(b.sorter(), KeyWidth::W32, true).unwrap() as usize;
        let input = keys::<u32>(Pattern::FewDistinct, 40 * tile + 5, 32, 5);
        let first = check_pairs(b, &input, &format!("{}: sort 1", case.name));
        for round in 2..=4 {
            let what = format!("{}: sort {round}", case.name);
            assert_eq!(check_pairs(b, &input, &what), first);
        }
    }
}

/// The record API: caller-owned buffers, the count read from a GPU buffer; keys past the
/// count stay where they are.
#[test]
fn record_with_count_from_gpu_buffer() {
    for case in cases() {
        // A count above the buffers' capacity is clamped to it.
        for (count, sorted) in [(0u32, 0usize), (1, 1), (3001, 3001), (u32::MAX, 5000)] {
            record_with_count(case.backend.sorter(), count, sorted);
        }
    }
}

fn record_with_count(sorter: &RadixSorter, count: u32, sorted: usize) {
    let ctx = sorter.context();
    let cap = 5000u64;
    let input: Vec<i32> = keys::<i32>(Pattern::Random, cap as usize, 32, 11);
    let bits: Vec<u32> = input.iter().map(|&k| k as u32).collect();
    let values: Vec<u32> = (0..cap as u32).collect();
    let staging = stage_in(ctx, &bits).unwrap();
    let staging_v = stage_in(ctx, &values).unwrap();
    let staging_n = stage_in(ctx, &[count]).unwrap();
    let dev = buffer(ctx, Memory::Device, cap * 4).unwrap();
    let dev_v = buffer(ctx, Memory::Device, cap * 4).unwrap();
    let dev_n = buffer(ctx, Memory::Device, 4).unwrap();
    let job = SortJob {
        keys: dev.slice::<u32>(cap),
        values: Some(dev_v.slice::<u32>(cap)),
        width: KeyWidth::W32,
        map: KeyMap::Signed,
        count: Count::Buffer(dev_n.slice::<u32>(1).index(0)),
        key_bits: None,
    };
    let need = sorter.scratch_bytes(KeyWidth::W32, true, cap).unwrap();
    assert!(
        need >= cap * 8,
        "scratch {need} bytes cannot hold the second buffers"
    );
    let scratch = sorter.new_scratch(KeyWidth::W32, true, cap).unwrap();
    let mut b = ctx.command_builder().unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        staging.slice::<u32>(cap),
        job.keys.clone(),
    ))
    .unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        staging_v.slice::<u32>(cap),
        job.values.clone().unwrap(),
    ))
    .unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        staging_n.slice::<u32>(1),
        dev_n.slice::<u32>(1),
    ))
    .unwrap();
    sorter.record(&mut b, &job, &scratch).unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        job.keys.clone(),
        staging.slice::<u32>(cap),
    ))
    .unwrap();
    b.copy_buffer(CopyBufferInfo::buffers(
        job.values.clone().unwrap(),
        staging_v.slice::<u32>(cap),
    ))
    .unwrap();
    ctx.submit_and_wait(b).unwrap();
    let got: Vec<u32> = staging.slice::<u32>(cap).read().unwrap().to_vec();
    let got_v: Vec<u32> = staging_v.slice::<u32>(cap).read().unwrap().to_vec();
    let c = sorted;
    let mut expected: Vec<u32> = (0..c as u32).collect();
    expected.sort_by_key(|&i| input[i as usize]);
    assert_eq!(&got_v[..c], &expected[..]);
    assert!(got[..c].windows(2).all(|w| (w[0] as i32) <= (w[1] as i32)));
    assert_eq!(&got[c..], &bits[c..], "keys past the count were touched");
    assert_eq!(&got_v[c..], &values[c..]);
}

#[test]
fn reports_where_it_runs_and_what_it_does() {
    if cases().is_empty() {
        return;
    }
    let b = backend::by_name("vulkan-radix").unwrap();
    assert!(matches!(b.device(), sortnet::backend::Device::Gpu { .. }));
    use sortnet::backend::Workload;
    assert!(b.supports(Workload::Keys(KeyWidth::W64)));
    assert!(b.supports(Workload::Pairs(KeyWidth::W32)));
    let mut words = vec![0x42ba_dc0f_feed_00d5u64, 0x0bad_beef];
    if b.supports(Workload::Nibbles) {
        b.sort_nibbles(&mut words).unwrap();
        assert_eq!(words, [0xffee_dddc_ba54_2000, 0xfeed_bba0_0000_0000]);
    } else {
        assert!(b.sort_nibbles(&mut words).is_err());
        assert_eq!(
            words[0], 0x42ba_dc0f_feed_00d5,
            "an unsupported call changed data"
        );
    }
    let mut keys = vec![3u32, 1, 2];
    let mut vals = vec![0u32; 2];
    assert!(b.sort_pairs(&mut keys, &mut vals).is_err());
    assert_eq!(keys, [3, 1, 2]);
}
