//! `SORTNET_NO_AVX512=1` takes the avx512 backend off the list (its own test binary, so
//! the variable is set before the registry is first built): what a CPU without AVX-512 sees.

use sortnet::{backend, KeyWidth, Workload};

#[test]
fn no_avx512_switch_removes_the_backend() {
    std::env::set_var("SORTNET_NO_AVX512", "1");
    assert!(backend::by_name("avx512").is_none());
    assert!(backend::available().iter().all(|b| b.name() != "avx512"));
    // auto still sorts nibbles, with the next best backend.
    let mut words = vec![0x42badc0ffeed00d5u64; 100];
    backend::auto().sort_nibbles(&mut words).unwrap();
    assert!(words.iter().all(|&w| w == 0xffeedddcba542000));

    // Short key slices go to the AVX2 network sort where the CPU has AVX2 (radix where it
    // has not: portable is slower), long ones to radix, the shortest 64-bit ones to radix's
    // insertion sort; every length sorts.
    let short = if backend::by_name("avx2").is_some() {
        "avx2"
    } else {
        "radix"
    };
    for width in [KeyWidth::W32, KeyWidth::W64] {
        let pick = |len| backend::auto_pick(Workload::Keys(width), len).map(|b| b.name());
        let shortest = if width == KeyWidth::W64 {
            "radix"
        } else {
            short
        };
        assert_eq!(pick(1), Some(shortest), "{width:?}");
        assert_eq!(pick(100), Some(short), "{width:?}");
        assert_eq!(pick(1 << 16), Some("radix"), "{width:?}");
    }
    for len in [0, 1, 7, 64, 100, 1000, 5000, 20000] {
        let mut keys: Vec<i64> = (0..len as i64).map(|i| (i * 7919) % 1013 - 500).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        backend::auto().sort(&mut keys).unwrap();
        assert_eq!(keys, want, "i64 n={len}");
        let mut keys: Vec<f32> = (0..len)
            .map(|i| ((i * 7919) % 1013) as f32 - 500.5)
            .collect();
        let mut want = keys.clone();
        want.sort_by(f32::total_cmp);
        backend::auto().sort(&mut keys).unwrap();
        assert_eq!(keys, want, "f32 n={len}");
    }
}
