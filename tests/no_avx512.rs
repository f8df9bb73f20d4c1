//! `SORTNET_NO_AVX512=1` takes the avx512 backend off the list (its own test binary, so
//! the variable is set before the registry is first built).

#[test]
fn no_avx512_switch_removes_the_backend() {
    std::env::set_var("SORTNET_NO_AVX512", "1");
    assert!(sortnet::backend::by_name("avx512").is_none());
    assert!(sortnet::backend::available()
        .iter()
        .all(|b| b.name() != "avx512"));
    // auto still sorts nibbles, with the next best backend.
    let mut words = vec![0x42badc0ffeed00d5u64; 100];
    sortnet::backend::auto().sort_nibbles(&mut words).unwrap();
    assert!(words.iter().all(|&w| w == 0xffeedddcba542000));
}
