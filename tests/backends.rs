//! The harness of DESIGN.md: every available backend, on every workload it supports, against
//! the reference, on std's patterns and on every length 0..=300 plus 2^k-1, 2^k, 2^k+1 up to
//! 2^20. GPU backends (lavapipe in CI) get every small length but fewer large ones, to keep
//! the suite inside CI's time; their own suites test GPU-specific sizes.
//!
//! Configurations are loop variables: besides the process-wide registry (built from the
//! environment), the `auto` of a registry without AVX-512 and of one without the GPU run
//! every test too where this machine has what they leave out (their concrete backends are
//! the same objects, tested once).

mod common;

use std::sync::OnceLock;

use common::{keys, lengths, nibble_words, Pattern, TestKey, PATTERNS};
use sortnet::backend::{Options, ProfileChoice, Registry};
use sortnet::tuning::profile::{Profile, State};
use sortnet::tuning::registry_pick;
use sortnet::{backend, Device, Error, KeyMap, KeyWidth, SortBackend, Workload};

/// Backends whose `sort_pairs` promises stability (equal keys keep their values' order):
/// `auto` by contract, whatever a calibration profile says.
const STABLE_PAIRS: [&str; 3] = ["radix", "vulkan-radix", "auto"];

/// A registry without the `avx512` backend: what a CPU without AVX-512 sees.
fn no_avx512() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        // The built-in thresholds, which `without_avx512_auto_takes_the_next_best_backend`
        // checks (a measured profile may differ on this machine, e.g. avx2 for 16 u64 keys).
        Registry::new(&Options {
            avx512: false,
            profile: ProfileChoice::BuiltIn,
            ..Options::from_env()
        })
    })
}

/// A registry without the GPU backends: what a machine without a Vulkan device sees.
fn no_gpu() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        Registry::new(&Options {
            gpu: false,
            ..Options::from_env()
        })
    })
}

/// Every backend under test with the label its failures are reported under: the
/// process-wide registry's backends, then the `auto` of each other configuration.
fn under_test() -> Vec<(&'static str, &'static dyn SortBackend)> {
    let mut list: Vec<(&'static str, &'static dyn SortBackend)> = backend::available()
        .into_iter()
        .map(|b| (b.name(), b))
        .collect();
    // A configuration that leaves out nothing this machine has is the process-wide one.
    let everything: Vec<&str> = list.iter().map(|(name, _)| *name).collect();
    for (label, registry) in [
        ("auto (no avx512)", no_avx512()),
        ("auto (no gpu)", no_gpu()),
    ] {
        let names: Vec<&str> = registry.available().iter().map(|b| b.name()).collect();
        if names != everything {
            list.push((label, registry.auto()));
        }
    }
    list
}

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
    let backends: Vec<_> = under_test()
        .into_iter()
        .filter(|(_, b)| b.supports(Workload::Keys(width_of::<K>())))
        .collect();
    for (pi, &pattern) in PATTERNS.iter().enumerate() {
        for len in lengths(20) {
            let input: Vec<K> = keys(pattern, len, pi as u64);
            let mut expected = input.clone();
            expected.sort_by(|a, b| a.key_cmp(b));
            let expected: Vec<u64> = expected.into_iter().map(TestKey::bits).collect();
            for &(name, b) in &backends {
                if !lengths_for(b, pattern).contains(&len) {
                    continue;
                }
                let mut v = input.clone();
                b.sort(&mut v).unwrap_or_else(|e| panic!("{name}: {e}"));
                let got: Vec<u64> = v.into_iter().map(TestKey::bits).collect();
                assert!(
                    got == expected,
                    "backend {} sorted {} {:?} keys of length {len} wrongly",
                    name,
                    K::NAME,
                    pattern
                );
            }
        }
    }
}

fn check_pairs<K: TestKey>() {
    let backends: Vec<_> = under_test()
        .into_iter()
        .filter(|(_, b)| b.supports(Workload::Pairs(width_of::<K>())))
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
            for &(name, b) in &backends {
                if !lengths_for(b, pattern).contains(&len) {
                    continue;
                }
                let (mut k, mut v) = (input.clone(), values.clone());
                b.sort_pairs(&mut k, &mut v)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let got_keys: Vec<u64> = k.iter().map(|x| x.bits()).collect();
                assert!(
                    got_keys == expected_keys,
                    "{}: {} {pattern:?} n={len}: keys wrong",
                    name,
                    K::NAME
                );
                if STABLE_PAIRS.contains(&b.name()) {
                    let expected_values: Vec<u32> = expected.iter().map(|p| p.1).collect();
                    assert!(
                        v == expected_values,
                        "{}: {} {pattern:?} n={len}: not stable",
                        name,
                        K::NAME
                    );
                } else {
                    // Unstable backends: every (key, value) pair must survive intact.
                    let mut got_set: Vec<(u64, u32)> = got_keys.into_iter().zip(v).collect();
                    got_set.sort_unstable();
                    assert!(
                        got_set == expected_set,
                        "{}: {} {pattern:?} n={len}: pairs torn",
                        name,
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

/// 128-bit keys in `pattern`: the pattern's 64-bit keys spread over both halves by a map
/// that keeps their order (random bits, or decimals when `decimal`: small multiples of
/// 10^18 of either sign, whose high bytes are the sign's).
fn wide_keys(pattern: Pattern, len: usize, seed: u64, decimal: bool) -> Vec<i128> {
    if decimal {
        keys::<i32>(pattern, len, seed)
            .into_iter()
            .map(|x| i128::from(x) * 1_000_000_000_000_000_000 + i128::from(x & 0xff))
            .collect()
    } else {
        keys::<u64>(pattern, len, seed)
            .into_iter()
            .map(|x| ((u128::from(x) << 64) | u128::from(x.wrapping_mul(0x9E37_79B9))) as i128)
            .collect()
    }
}

/// Every call on 128-bit keys (`i128`, and the same bits as `u128`), on every backend that
/// takes them, against std's stable sort: sort both ways, stable pairs, argsort, records by
/// key, select and partial sort.
fn check_wide(decimal: bool) {
    let backends: Vec<_> = under_test()
        .into_iter()
        .filter(|(_, b)| b.supports_key::<i128>() && b.supports_key::<u128>())
        .collect();
    assert!(!backends.is_empty(), "no backend takes 128-bit keys");
    // One engine serves every backend here (`keys128`): 2^16 keys reach its MSD levels
    // and its small-node sort, at a quarter of 2^18's time.
    for (pi, &pattern) in PATTERNS.iter().enumerate() {
        for len in lengths(16) {
            let input = wide_keys(pattern, len, 300 + pi as u64, decimal);
            let mut want = input.clone();
            want.sort();
            let mut order: Vec<usize> = (0..len).collect();
            order.sort_by_key(|&i| input[i]);
            let unsigned: Vec<u128> = input.iter().map(|&k| k as u128).collect();
            let mut want_u = unsigned.clone();
            want_u.sort();
            for &(name, b) in &backends {
                let what = format!("{name}: i128 {pattern:?} n={len} (decimal: {decimal})");
                let mut v = input.clone();
                b.sort(&mut v).unwrap();
                assert!(v == want, "{what}: sort");
                let mut u = unsigned.clone();
                b.sort(&mut u).unwrap();
                assert!(u == want_u, "{what}: u128 sort");
                let mut v = input.clone();
                b.sort_descending(&mut v).unwrap();
                assert!(v.iter().rev().eq(want.iter()), "{what}: descending");
                let (mut k, mut vals) = (input.clone(), (0..len as u32).collect::<Vec<u32>>());
                b.sort_pairs(&mut k, &mut vals).unwrap();
                assert!(k == want, "{what}: pair keys");
                assert!(
                    vals.iter().map(|&i| i as usize).eq(order.iter().copied()),
                    "{what}: pairs not stable"
                );
                assert!(b.argsort(&input).unwrap() == order, "{what}: argsort");
                let mut records: Vec<(i128, u64, u8)> = input
                    .iter()
                    .enumerate()
                    .map(|(i, &k)| (k, i as u64, 0))
                    .collect();
                b.sort_by_key(&mut records, |r| r.0).unwrap();
                assert!(
                    records
                        .iter()
                        .map(|r| r.1 as usize)
                        .eq(order.iter().copied()),
                    "{what}: sort_by_key"
                );
                if len > 0 {
                    for at in [0, len / 2, len - 1] {
                        let mut v = input.clone();
                        b.select_nth(&mut v, at).unwrap();
                        assert!(v[at] == want[at], "{what}: select_nth {at}");
                        assert!(
                            v[..at].iter().all(|&x| x <= v[at])
                                && v[at..].iter().all(|&x| x >= v[at]),
                            "{what}: select_nth {at} partition"
                        );
                        let mut v = input.clone();
                        b.partial_sort(&mut v, at).unwrap();
                        assert!(v[..at] == want[..at], "{what}: partial_sort {at}");
                    }
                }
            }
        }
    }
}

#[test]
fn keys_128_bits() {
    check_wide(false);
}

#[test]
fn keys_128_bit_decimals() {
    check_wide(true);
}

/// Byte strings in `pattern`: the pattern's 64-bit keys as big-endian bytes cut to 0 to 8 of
/// them, then a tail of 0 to 23 bytes, behind `prefix` shared bytes (ASCII-free, zeros
/// included, so padding and real zeros meet).
fn strings(pattern: Pattern, len: usize, seed: u64, prefix: usize) -> Vec<Vec<u8>> {
    keys::<u64>(pattern, len, seed)
        .into_iter()
        .map(|x| {
            let mut s = vec![b'p'; prefix];
            s.extend_from_slice(&x.to_be_bytes()[..((x >> 3) % 9) as usize]);
            s.extend(std::iter::repeat_n((x % 7) as u8, (x % 24) as usize));
            s
        })
        .collect()
}

/// `sort_strings` (owned and borrowed strings) and `argsort_strings` on every backend that
/// takes them, against std's stable sort; with and without a 20-byte shared prefix.
#[test]
fn strings_in_byte_order() {
    let backends: Vec<_> = under_test()
        .into_iter()
        .filter(|(_, b)| b.supports_strings())
        .collect();
    assert!(!backends.is_empty(), "no backend sorts strings");
    for (pi, &pattern) in PATTERNS.iter().enumerate() {
        for len in lengths(16) {
            for prefix in [0, 20] {
                let rows = strings(pattern, len, 500 + pi as u64, prefix);
                let mut order: Vec<usize> = (0..len).collect();
                order.sort_by(|&a, &b| rows[a].cmp(&rows[b]));
                let mut want = rows.clone();
                want.sort();
                for &(name, b) in &backends {
                    let what = format!("{name}: strings {pattern:?} n={len} prefix {prefix}");
                    assert!(
                        b.argsort_strings(&rows).unwrap() == order,
                        "{what}: argsort"
                    );
                    let mut owned = rows.clone();
                    b.sort_strings(&mut owned).unwrap();
                    assert!(owned == want, "{what}: sort");
                    let mut borrowed: Vec<&[u8]> = rows.iter().map(Vec::as_slice).collect();
                    b.sort_strings(&mut borrowed).unwrap();
                    assert!(borrowed.iter().eq(want.iter()), "{what}: sort borrowed");
                }
            }
        }
    }
}

/// Backends that do not take 128-bit keys or strings (nibble-only, GPU) refuse them with
/// `Unsupported` and leave them alone; the CPU key backends and `auto` take them.
#[test]
fn wide_keys_and_strings_elsewhere_are_refused_untouched() {
    for (name, b) in under_test() {
        let cpu_keys = b.device() == Device::Cpu
            && (b.supports(Workload::Keys(KeyWidth::W32))
                || b.supports(Workload::Keys(KeyWidth::W64)));
        assert_eq!(b.supports_key::<u128>(), cpu_keys, "{name}");
        assert_eq!(b.supports_strings(), cpu_keys, "{name}");
        if cpu_keys {
            continue;
        }
        let mut keys = vec![3u128, 1, 2];
        assert!(
            matches!(b.sort(&mut keys), Err(Error::Unsupported { .. })),
            "{name}"
        );
        assert!(
            matches!(
                b.sort_pairs(&mut keys, &mut [1u8, 2, 3]),
                Err(Error::Unsupported { .. })
            ),
            "{name}"
        );
        assert!(
            matches!(b.argsort(&keys), Err(Error::Unsupported { .. })),
            "{name}"
        );
        assert_eq!(keys, [3, 1, 2], "{name} changed 128-bit keys");
        let mut names = vec!["b", "a"];
        assert!(
            matches!(b.sort_strings(&mut names), Err(Error::Unsupported { .. })),
            "{name}"
        );
        assert!(
            matches!(b.argsort_strings(&names), Err(Error::Unsupported { .. })),
            "{name}"
        );
        assert_eq!(names, ["b", "a"], "{name} changed strings");
    }
}

fn nibble_backends() -> Vec<(&'static str, &'static dyn SortBackend)> {
    under_test()
        .into_iter()
        .filter(|(_, b)| b.supports(Workload::Nibbles))
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
            for (name, b) in nibble_backends() {
                if !lengths_for(b, pattern).contains(&len) {
                    continue;
                }
                let mut v = input.clone();
                b.sort_nibbles(&mut v)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(v == expected, "{name}: nibbles {pattern:?} n={len} wrong");
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
        for (name, b) in nibble_backends() {
            let mut v = input.clone();
            b.sort_nibbles(&mut v).unwrap();
            assert!(v == expected, "{name}: hard words wrong");
        }
    }
}

#[test]
fn nibbles_in_subslices_write_nothing_outside() {
    const GUARD: u64 = 0xdead_beef_dead_beef;
    let mut rng = common::Rng::new(3);
    for (name, b) in nibble_backends() {
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
                    "{name}: off={offset} n={len}"
                );
                assert!(
                    buf[..offset].iter().all(|&w| w == GUARD),
                    "{name} wrote before the slice"
                );
                assert!(
                    buf[offset + len..].iter().all(|&w| w == GUARD),
                    "{name} wrote after the slice"
                );
            }
        }
    }
}

#[test]
fn pairs_of_different_lengths_are_refused_untouched() {
    for (name, b) in under_test() {
        let mut k = vec![3u32, 1, 2];
        let mut v = vec![7u32, 8];
        let err = b.sort_pairs(&mut k, &mut v).unwrap_err();
        assert_eq!(err, Error::LengthMismatch { keys: 3, values: 2 });
        assert!(err.to_string().contains("3 keys and 2 values"));
        assert_eq!(
            (k, v),
            (vec![3, 1, 2], vec![7, 8]),
            "{name} changed the slices"
        );
    }
}

#[test]
fn unsupported_workloads_are_errors_that_leave_data_alone() {
    for (name, b) in under_test() {
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
                "{name} {workload:?}: {result:?}"
            );
            assert_eq!(words, before, "{name} changed data it does not sort");
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

/// What a CPU without AVX-512 sees (the registry's `Options::avx512` off, as
/// `SORTNET_NO_AVX512=1` does): no `avx512` backend, and `auto` takes the next best.
#[test]
fn without_avx512_auto_takes_the_next_best_backend() {
    let registry = no_avx512();
    assert!(registry.by_name("avx512").is_none());
    assert!(registry.available().iter().all(|b| b.name() != "avx512"));
    // auto still sorts nibbles, with the next best backend.
    let mut words = vec![0x42badc0ffeed00d5u64; 100];
    registry.auto().sort_nibbles(&mut words).unwrap();
    assert!(words.iter().all(|&w| w == 0xffeedddcba542000));

    // Short key slices go to the AVX2 network sort where the CPU has AVX2 (radix where it
    // has not: portable is slower), long ones to radix, the shortest 64-bit ones to radix's
    // insertion sort; every length sorts.
    let short = if registry.by_name("avx2").is_some() {
        "avx2"
    } else {
        "radix"
    };
    for width in [KeyWidth::W32, KeyWidth::W64] {
        let pick = |len| {
            registry_pick(registry, Workload::Keys(width), len, KeyMap::Unsigned).map(|b| b.name())
        };
        let shortest = if width == KeyWidth::W64 {
            "radix"
        } else {
            short
        };
        assert_eq!(pick(1), Some(shortest), "{width:?}");
        assert_eq!(pick(100), Some(short), "{width:?}");
        // 2^13 32-bit keys (32 KiB) are past avx2's crossover and inside every L2, where
        // 32-bit keys would go back to the quicksort.
        assert_eq!(pick(1 << 13), Some("radix"), "{width:?}");
    }
    let auto = registry.auto();
    for len in [0, 1, 7, 64, 100, 1000, 5000, 20000] {
        let mut keys: Vec<i64> = (0..len as i64).map(|i| (i * 7919) % 1013 - 500).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        auto.sort(&mut keys).unwrap();
        assert_eq!(keys, want, "i64 n={len}");
        let mut keys: Vec<f32> = (0..len)
            .map(|i| ((i * 7919) % 1013) as f32 - 500.5)
            .collect();
        let mut want = keys.clone();
        want.sort_by(f32::total_cmp);
        auto.sort(&mut keys).unwrap();
        assert_eq!(keys, want, "f32 n={len}");
    }
}

/// Without the GPU (the registry's `Options::gpu` off, as `SORTNET_NO_GPU=1` or a machine
/// without a Vulkan device gives) the GPU backends are absent, never a crash, and every
/// workload still sorts on the CPU.
#[test]
fn without_the_gpu_every_workload_sorts_on_the_cpu() {
    let registry = no_gpu();
    let names: Vec<&str> = registry.available().iter().map(|b| b.name()).collect();
    assert!(
        names.contains(&"scalar") && names.contains(&"radix"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| !n.starts_with("vulkan-")), "{names:?}");
    let auto = registry.auto();
    let mut keys = [2.5f32, -1.0, 0.0, -0.0];
    auto.sort(&mut keys).unwrap();
    assert_eq!(
        keys.map(f32::to_bits),
        [
            (-1.0f32).to_bits(),
            (-0.0f32).to_bits(),
            0.0f32.to_bits(),
            2.5f32.to_bits()
        ]
    );
    for workload in [
        Workload::Nibbles,
        Workload::Keys(KeyWidth::W32),
        Workload::Keys(KeyWidth::W64),
        Workload::Pairs(KeyWidth::W32),
        Workload::Pairs(KeyWidth::W64),
    ] {
        assert!(auto.supports(workload), "{workload:?}");
        for len in [0, 1, 1000, 1 << 18, 1 << 24] {
            let pick = registry_pick(registry, workload, len, KeyMap::Unsigned);
            assert_eq!(
                pick.map(|b| b.device()),
                Some(Device::Cpu),
                "{workload:?} {len}"
            );
        }
    }
}

/// `Options::backend` (what `SORTNET_BACKEND` sets) makes a registry's `auto()` that
/// backend; `by_name("auto")` stays the `auto`, and a name the registry lacks leaves `auto`.
#[test]
fn a_named_backend_stands_in_for_auto() {
    let cpu = |backend: &str| Options {
        gpu: false,
        profile: ProfileChoice::BuiltIn,
        backend: Some(backend.to_string()),
        ..Options::default()
    };
    let forced = Registry::new(&cpu("radix"));
    assert_eq!(forced.auto().name(), "radix");
    assert_eq!(forced.by_name("auto").map(|b| b.name()), Some("auto"));
    let mut keys = [3u64, 1, 2];
    forced.auto().sort(&mut keys).unwrap();
    assert_eq!(keys, [1, 2, 3]);
    assert_eq!(Registry::new(&cpu("auto")).auto().name(), "auto");
    assert_eq!(Registry::new(&cpu("no-such-backend")).auto().name(), "auto");
    // The GPU backends are not in a registry without the GPU.
    assert_eq!(Registry::new(&cpu("vulkan-radix")).auto().name(), "auto");
}

/// A calibration profile file that names `vulkan-bitonic` (whose pair sort is not stable)
/// for every pair sort: `auto` ignores those entries, and its pairs stay stable.
#[test]
fn auto_pairs_stay_stable_whatever_the_profile_says() {
    let mut names: Vec<&str> = backend::available()
        .iter()
        .map(|b| b.name())
        .filter(|n| *n != "auto")
        .collect();
    if !names.contains(&"vulkan-bitonic") {
        names.push("vulkan-bitonic");
    }
    let text = format!(
        "sortnet-profile 1\nbackends {}\npairs32 0 vulkan-bitonic\npairs64 0 vulkan-bitonic\n",
        names.join(" ")
    );
    let dir = std::env::temp_dir().join(format!("sortnet-stable-pairs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("profile.txt");
    std::fs::write(&path, text).unwrap();
    let state = State::load_from(path, &names);
    std::fs::remove_dir_all(&dir).unwrap();
    let profile: Profile = state.profile().cloned().expect("the profile loads");
    let registry = Registry::new(&Options {
        profile: ProfileChoice::Given(profile),
        ..Options::from_env()
    });
    for width in [KeyWidth::W32, KeyWidth::W64] {
        for len in [0, 1, 100, 5000, 1 << 18, 1 << 20] {
            let pick = registry_pick(&registry, Workload::Pairs(width), len, KeyMap::Unsigned)
                .map(|b| b.name());
            assert!(
                matches!(pick, Some("radix" | "vulkan-radix")),
                "{width:?} n={len}: {pick:?}"
            );
        }
    }
    let auto = registry.auto();
    for len in [100, 5000, (1 << 18) + 1] {
        let input: Vec<u32> = (0..len as u32).map(|i| i.wrapping_mul(7919) % 61).collect();
        let values: Vec<u32> = (0..len as u32).collect();
        let mut want: Vec<(u32, u32)> = input.iter().copied().zip(values.iter().copied()).collect();
        want.sort_by_key(|p| p.0);
        let (mut k, mut v) = (input.clone(), values.clone());
        auto.sort_pairs(&mut k, &mut v).unwrap();
        let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
        assert!(got == want, "u32 pairs n={len}: not stable");
        let mut k: Vec<f64> = input.iter().map(|&x| x as f64 - 30.5).collect();
        let mut v = values.clone();
        auto.sort_pairs(&mut k, &mut v).unwrap();
        let want_v: Vec<u32> = want.iter().map(|p| p.1).collect();
        assert!(v == want_v, "f64 pairs n={len}: not stable");
    }
}

/// `auto` sorts slices shorter than 512 keys by calling its pick's key kernel directly: every
/// length 0..=256 (and some to 520) of every key type (floats' NaNs, infinities, zeros and
/// subnormals included), both ways, against the reference, with the process-wide `auto` and
/// with profiles that hand the short slices to each CPU key kernel in turn.
#[test]
fn auto_short_sorts_match_the_reference_both_ways() {
    fn check<K: TestKey>(label: &str, auto: &dyn SortBackend) {
        // Every length the table holds, up to 256 each one.
        for len in (0..=256).chain((257..=520).step_by(13)) {
            for seed in 0..2 {
                let input: Vec<K> = keys(Pattern::Random, len, seed);
                let mut want = input.clone();
                want.sort_by(|a, b| a.key_cmp(b));
                let want: Vec<u64> = want.into_iter().map(TestKey::bits).collect();
                let mut got = input.clone();
                auto.sort(&mut got).unwrap();
                let got: Vec<u64> = got.into_iter().map(TestKey::bits).collect();
                assert!(got == want, "{label}: {} n={len} ascending", K::NAME);
                let mut got = input;
                auto.sort_descending(&mut got).unwrap();
                let got: Vec<u64> = got.into_iter().rev().map(TestKey::bits).collect();
                assert!(got == want, "{label}: {} n={len} descending", K::NAME);
            }
        }
    }
    fn check_all(label: &str, auto: &dyn SortBackend) {
        check::<u32>(label, auto);
        check::<i32>(label, auto);
        check::<f32>(label, auto);
        check::<u64>(label, auto);
        check::<i64>(label, auto);
        check::<f64>(label, auto);
        check::<usize>(label, auto);
        check::<isize>(label, auto);
    }
    check_all("auto", backend::auto());
    let names: Vec<&str> = backend::available()
        .iter()
        .map(|b| b.name())
        .filter(|n| *n != "auto")
        .collect();
    for kernel in ["avx2", "avx512", "radix", "portable"] {
        if !names.contains(&kernel) {
            continue;
        }
        let text = format!(
            "sortnet-profile 1\nbackends {}\nkeys32 0 {kernel}\nkeys64 0 {kernel}\n",
            names.join(" ")
        );
        let profile = Profile::parse(&text).expect("the profile parses");
        let registry = Registry::new(&Options {
            profile: ProfileChoice::Given(profile),
            ..Options::from_env()
        });
        let pick = registry_pick(
            &registry,
            Workload::Keys(KeyWidth::W64),
            100,
            KeyMap::Unsigned,
        )
        .map(|b| b.name());
        assert_eq!(pick, Some(kernel));
        check_all(&format!("auto ({kernel} profile)"), registry.auto());
    }
}
