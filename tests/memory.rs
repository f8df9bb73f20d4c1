//! A library call gives back the memory it took: after sorting 256 MiB of keys through the
//! CPU's `auto` and dropping them, the process holds about as much resident memory as
//! before. A `RadixSorter` is the documented way to keep the scratch between calls, until it
//! is dropped. Its own test binary with one test, so that no other test allocates beside it.
//!
//! The GPU host path is left out on purpose: by default it keeps its device and staging
//! buffers for the next call (see `sortnet::gpu::transfer::TransferConfig::keep_bytes`).

use sortnet::backend;
use sortnet::keys::RadixSorter;

/// Resident memory of this process in bytes (`VmRSS` of `/proc/self/status`).
#[cfg(target_os = "linux")]
fn resident_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("reading /proc/self/status");
    let kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line in kB");
    kib << 10
}

/// `n` pseudo-random `u32` keys.
fn keys(n: usize) -> Vec<u32> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        })
        .collect()
}

const MIB: usize = 1 << 20;

#[cfg(target_os = "linux")]
#[test]
fn sorting_and_dropping_256_mib_of_keys_gives_the_memory_back() {
    // Warm-up on the same route (the MSD route on every thread, from 16 MiB of keys), so
    // that the thread pool, the registry and the allocator's arenas exist before the
    // measurement.
    let cpu = backend::Registry::new(&backend::Options {
        gpu: false,
        ..Default::default()
    });
    let auto = cpu.auto();
    let mut warm = keys(1 << 22);
    auto.sort(&mut warm).unwrap();
    drop(warm);

    let before = resident_bytes();
    let mut big = keys(1 << 26);
    auto.sort(&mut big).unwrap();
    assert!(big.windows(2).all(|w| w[0] <= w[1]));
    drop(big);
    let after = resident_bytes();
    assert!(
        after <= before + 16 * MIB,
        "{} MiB resident before the sort, {} MiB after dropping the keys",
        before / MIB,
        after / MIB
    );

    // A sorter keeps its scratch (256 MiB for 2^26 keys) until it is dropped.
    let mut sorter = RadixSorter::new();
    let mut big = keys(1 << 26);
    sorter.sort(&mut big);
    assert!(big.windows(2).all(|w| w[0] <= w[1]));
    drop(big);
    assert!(sorter.scratch_bytes() >= 256 * MIB);
    assert!(resident_bytes() >= before + 200 * MIB);
    drop(sorter);
    let after = resident_bytes();
    assert!(
        after <= before + 16 * MIB,
        "{} MiB resident before, {} MiB after dropping the sorter",
        before / MIB,
        after / MIB
    );
}
