//! The harness of DESIGN.md: every available backend, on every workload it supports, against
//! the reference, on std's patterns and on every length 0..=300 plus 2^k-1, 2^k, 2^k+1 up to
//! 2^20. GPU backends (lavapipe in CI) get every small length but fewer large ones, to keep
//! the suite inside CI's time; their own suites test GPU-specific sizes.

mod common;

use common::{keys, lengths, nibble_words, Pattern, TestKey, PATTERNS};
use sortnet::{backend, Device, Error, KeyWidth, SortBackend, Workload};

/// Backends whose `sort_pairs` promises stability (equal keys keep their values' order).
const STABLE_PAIRS: [&str; 2] = ["radix", "vulkan-radix"];

fn is_gpu(b: &dyn SortBackend) -> bool {
    b.device() != Device::Cpu
}

/// Lengths to run `b` on for `pattern`: everything for CPU backends; for GPU backends all
/// small lengths on random data and the large ones on two patterns.
fn lengths_for(b: &dyn SortBackend, pattern: Pattern) -> Vec<usize> {
    if !is_gpu(b) {
        return lengths(20);
    }
    match pattern {
        Pattern::Random => {
            let mut v: Vec<usize> = (0..=300).collect();
            v.extend([511, 512, 513, 4095, 4096, 4097, 65535, 65537, (1 << 20) + 1]);
            v
        }
        Pattern::Descending => vec![4097, 65537],
        _ => vec![0, 1, 2, 31, 255, 256, 257, 4097],
    }
}

fn width_of<K: TestKey>() -> KeyWidth {
    K::WIDTH
}

fn check_keys<K: TestKey>() {
    let backends: Vec<_> = backend::available()
        .into_iter()
        .filter(|b| b.supports(Workload::Keys(width_of::<K>())))
        .collect();
    for (pi, &pattern) in PATTERNS.iter().enumerate() {
        for len in lengths(20) {
            let input: Vec<K> = keys(pattern, len, pi as u64);
            let mut expected = input.clone();
            expected.sort_by(|a, b| a.key_cmp(b));
            let expected: Vec<u64> = expected.into_iter().map(TestKey::bits).collect();
            for b in &backends {
                if !lengths_for(*b, pattern).contains(&len) {
                    continue;
                }
                let mut v = input.clone();
                b.sort(&mut v)
                    .unwrap_or_else(|e| panic!("{}: {e}", b.name()));
                let got: Vec<u64> = v.into_iter().map(TestKey::bits).collect();
                assert!(
                    got == expected,
                    "backend {} sorted {} {:?} keys of length {len} wrongly",
                    b.name(),
                    K::NAME,
                    pattern
                );
            }
        }
    }
}

fn check_pairs<K: TestKey>() {
    let backends: Vec<_> = backend::available()
        .into_iter()
        .filter(|b| b.supports(Workload::Pairs(width_of::<K>())))
        .collect();
    for (pi, &pattern) in PATTERNS.iter().enumerate() {
        for len in lengths(18) {
            let input: Vec<K> = keys(pattern, len, 100 + pi as u64);
            let values: Vec<u32> = (0..len as u32).collect();
            // Stable reference: std's stable sort carries each value with its key.
            let mut expected: Vec<(K, u32)> =
                input.iter().copied().zip(values.iter().copied()).collect();
            expected.sort_by(|a, b| a.0.key_cmp(&b.0));
            let expected_keys: Vec<u64> = expected.iter().map(|p| p.0.bits()).collect();
            let mut expected_set: Vec<(u64, u32)> =
                expected.iter().map(|p| (p.0.bits(), p.1)).collect();
            expected_set.sort_unstable();
            for b in &backends {
                if !lengths_for(*b, pattern).contains(&len) {
                    continue;
                }
                let (mut k, mut v) = (input.clone(), values.clone());
                b.sort_pairs(&mut k, &mut v)
                    .unwrap_or_else(|e| panic!("{}: {e}", b.name()));
                let got_keys: Vec<u64> = k.iter().map(|x| x.bits()).collect();
                assert!(
                    got_keys == expected_keys,
                    "{}: {} {pattern:?} n={len}: keys wrong",
                    b.name(),
                    K::NAME
                );
                if STABLE_PAIRS.contains(&b.name()) {
                    let expected_values: Vec<u32> = expected.iter().map(|p| p.1).collect();
                    assert!(
                        v == expected_values,
                        "{}: {} {pattern:?} n={len}: not stable",
                        b.name(),
                        K::NAME
                    );
                } else {
                    // Unstable backends: every (key, value) pair must survive intact.
                    let mut got_set: Vec<(u64, u32)> = got_keys.into_iter().zip(v).collect();
                    got_set.sort_unstable();
                    assert!(
                        got_set == expected_set,
                        "{}: {} {pattern:?} n={len}: pairs torn",
                        b.name(),
                        K::NAME
                    );
                }
            }
        }
    }
}

#[test]
fn keys_u32() {
    check_keys::<u32>();
}
#[test]
fn keys_i32() {
    check_keys::<i32>();
}
#[test]
fn keys_f32() {
    check_keys::<f32>();
}
#[test]
fn keys_u64() {
    check_keys::<u64>();
}
#[test]
fn keys_i64() {
    check_keys::<i64>();
}
#[test]
fn keys_f64() {
    check_keys::<f64>();
}
#[test]
fn pairs_u32() {
    check_pairs::<u32>();
}
#[test]
fn pairs_f32() {
    check_pairs::<f32>();
}
#[test]
fn pairs_i64() {
    check_pairs::<i64>();
}
#[test]
fn pairs_f64() {
    check_pairs::<f64>();
}

fn nibble_backends() -> Vec<&'static dyn SortBackend> {
    backend::available()
        .into_iter()
        .filter(|b| b.supports(Workload::Nibbles))
        .collect()
}

fn reference_words(words: &[u64]) -> Vec<u64> {
    words
        .iter()
        .map(|&w| sortnet::nibble::reference(w))
        .collect()
}

#[test]
fn nibbles_on_patterns_and_lengths() {
    for (pi, &pattern) in PATTERNS.iter().enumerate() {
        for len in lengths(20) {
            let input = nibble_words(pattern, len, 7 + pi as u64);
            let expected = reference_words(&input);
            for b in nibble_backends() {
                if !lengths_for(b, pattern).contains(&len) {
                    continue;
                }
                let mut v = input.clone();
                b.sort_nibbles(&mut v)
                    .unwrap_or_else(|e| panic!("{}: {e}", b.name()));
                assert!(
                    v == expected,
                    "{}: nibbles {pattern:?} n={len} wrong",
                    b.name()
                );
            }
        }
    }
}

#[test]
fn nibbles_on_hard_words() {
    let mut cases = vec![
        common::pathological_words(1024),
        common::equal_nibble_words(),
    ];
    cases.push(vec![0x42badc0ffeed00d5, 0x0badbeef]);
    for input in cases {
        let expected = reference_words(&input);
        for b in nibble_backends() {
            let mut v = input.clone();
            b.sort_nibbles(&mut v).unwrap();
            assert!(v == expected, "{}: hard words wrong", b.name());
        }
    }
}

#[test]
fn nibbles_in_subslices_write_nothing_outside() {
    const GUARD: u64 = 0xdead_beef_dead_beef;
    let mut rng = common::Rng::new(3);
    for b in nibble_backends() {
        for offset in [1, 3, 5, 7] {
            for len in (0..200).chain([1023, 1024, 1025, 4099]) {
                let mut buf = vec![GUARD; offset + len + 9];
                for w in &mut buf[offset..offset + len] {
                    *w = rng.next_u64();
                }
                let expected = reference_words(&buf[offset..offset + len]);
                b.sort_nibbles(&mut buf[offset..offset + len]).unwrap();
                assert!(
                    buf[offset..offset + len] == expected[..],
                    "{}: off={offset} n={len}",
                    b.name()
                );
                assert!(
                    buf[..offset].iter().all(|&w| w == GUARD),
                    "{} wrote before the slice",
                    b.name()
                );
                assert!(
                    buf[offset + len..].iter().all(|&w| w == GUARD),
                    "{} wrote after the slice",
                    b.name()
                );
            }
        }
    }
}

#[test]
fn pairs_of_different_lengths_are_refused_untouched() {
    for b in backend::available() {
        let mut k = vec![3u32, 1, 2];
        let mut v = vec![7u32, 8];
        let err = b.sort_pairs(&mut k, &mut v).unwrap_err();
        assert_eq!(err, Error::LengthMismatch { keys: 3, values: 2 });
        assert!(err.to_string().contains("3 keys and 2 values"));
        assert_eq!(
            (k, v),
            (vec![3, 1, 2], vec![7, 8]),
            "{} changed the slices",
            b.name()
        );
    }
}

#[test]
fn unsupported_workloads_are_errors_that_leave_data_alone() {
    for b in backend::available() {
        for (workload, run) in [
            (Workload::Nibbles, 0usize),
            (Workload::Keys(KeyWidth::W32), 1),
            (Workload::Keys(KeyWidth::W64), 2),
            (Workload::Pairs(KeyWidth::W64), 3),
        ] {
            if b.supports(workload) {
                continue;
            }
            let mut words = vec![0x21u64, 5, 4];
            let before = words.clone();
            let result = match run {
                0 => b.sort_nibbles(&mut words),
                1 => b.sort(bytemuck_u32(&mut words)),
                2 => b.sort(&mut words),
                _ => b.sort_pairs(&mut words, &mut [1, 2, 3]),
            };
            assert!(
                matches!(result, Err(Error::Unsupported { .. })),
                "{} {workload:?}: {result:?}",
                b.name()
            );
            assert_eq!(words, before, "{} changed data it does not sort", b.name());
        }
    }
}

/// A `u32` view of the first words, for the unsupported-call test.
fn bytemuck_u32(words: &mut [u64]) -> &mut [u32] {
    // Two u32 per u64; only used to hand a u32 slice to a backend that must not touch it.
    let n = words.len() * 2;
    // SAFETY: u64 storage is valid, aligned and initialised for twice as many u32.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u32>(), n) }
}

#[test]
fn names_are_stable_ids_and_by_name_finds_them() {
    const IDS: [&str; 9] = [
        "scalar",
        "lut",
        "portable",
        "avx2",
        "avx512",
        "radix",
        "vulkan-bitonic",
        "vulkan-radix",
        "auto",
    ];
    let names: Vec<_> = backend::available().iter().map(|b| b.name()).collect();
    assert!(
        names.contains(&"scalar") && names.last() == Some(&"auto"),
        "{names:?}"
    );
    for name in &names {
        assert!(IDS.contains(name), "unknown backend id {name}");
        assert_eq!(backend::by_name(name).map(|b| b.name()), Some(*name));
        assert_eq!(
            names.iter().filter(|n| *n == name).count(),
            1,
            "{name} listed twice"
        );
    }
    assert!(backend::by_name("no-such-backend").is_none());
}

#[test]
fn gpu_backends_present_when_required() {
    if common::gpu_required() && cfg!(feature = "gpu") {
        assert!(
            backend::available().iter().any(|b| is_gpu(*b)),
            "SORTNET_REQUIRE_GPU=1 but no Vulkan backend is available (install libvulkan1 and \
             mesa-vulkan-drivers)"
        );
    }
}
