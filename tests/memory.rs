//! A library call gives back the memory it took, from a cold start too: a fresh process that
//! sorts 256 MiB of keys through the CPU's `auto` (or `radix`, whatever `auto` picks here)
//! and drops them holds at most 16 MiB more resident memory than before the sort. A process
//! that has sorted before hides what a first call leaves behind (thread pools, allocator
//! arenas, raised allocator thresholds), so each cold sort runs in a child process: this test
//! binary again, running only the ignored `cold_auto` or `cold_radix`. A `CpuRadixSorter` is the
//! documented way to keep the scratch between calls, until it is dropped.
//!
//! The GPU host path is left out on purpose: by default it keeps its device and staging
//! buffers for the next call (see `sortnet::gpu::transfer::TransferConfig::keep_bytes`).

use sortnet::backend::{self, ProfileChoice, SortBackend};
use sortnet::keys::CpuRadixSorter;

/// Anonymous resident memory of this process in bytes (`RssAnon` of `/proc/self/status`):
/// what it allocated, without the pages of its own code that the first calls read in.
#[cfg(target_os = "linux")]
fn resident_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("reading /proc/self/status");
    let kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("an RssAnon line in kB");
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

/// The most resident memory a sort may leave behind: the scratch cache the README allows
/// (8 MiB) and what a first call sets up (the thread pool's stacks, the allocator's arenas).
const LEFT_BEHIND_MAX: usize = 16 * MIB;

/// Keys of the cold sort: 256 MiB of `u32`, or 64 MiB in an unoptimised build, where a sort
/// of 256 MiB takes minutes.
const COLD_KEYS: usize = if cfg!(debug_assertions) {
    1 << 24
} else {
    1 << 26
};

/// The line a cold child prints, and the parent reads back.
const REPORT: &str = "resident MiB before, after:";

/// The CPU's backends, `auto` on its built-in rules: no GPU driver (whose libraries stay
/// loaded) and no profile measured or read, so that only the sort itself is measured.
fn cpu() -> backend::Registry {
    backend::Registry::new(&backend::Options {
        gpu: false,
        profile: ProfileChoice::BuiltIn,
        ..Default::default()
    })
}

/// Sorts [`COLD_KEYS`] keys with `sorter` and drops them; reports and checks the memory left
/// behind.
#[cfg(target_os = "linux")]
fn sort_and_drop(sorter: &dyn SortBackend) {
    let before = resident_bytes();
    let mut big = keys(COLD_KEYS);
    sorter.sort(&mut big).unwrap();
    assert!(big.windows(2).all(|w| w[0] <= w[1]));
    drop(big);
    let after = resident_bytes();
    println!("{REPORT} {} {}", before / MIB, after / MIB);
    assert!(
        after <= before + LEFT_BEHIND_MAX,
        "{}: {} MiB resident before the sort, {} MiB after dropping the keys",
        sorter.name(),
        before / MIB,
        after / MIB
    );
}

/// The cold halves, each in a process of its own (see the module docs). `cargo test --
/// --ignored` runs them in the test process too, where they check the same bound.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "run by `a_cold_process_gives_back_the_memory_of_its_first_sort` in a child process"]
fn cold_auto() {
    sort_and_drop(cpu().auto());
}

/// `radix` itself, whatever `auto` picks on this machine: its scratch and bucket buffers
/// are what a first call could leave behind.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "run by `a_cold_process_gives_back_the_memory_of_its_first_sort` in a child process"]
fn cold_radix() {
    sort_and_drop(cpu().by_name("radix").expect("radix is built in"));
}

#[cfg(target_os = "linux")]
#[test]
fn a_cold_process_gives_back_the_memory_of_its_first_sort() {
    let exe = std::env::current_exe().expect("the test binary's path");
    for child in ["cold_auto", "cold_radix"] {
        let out = std::process::Command::new(&exe)
            .args([child, "--exact", "--ignored", "--nocapture"])
            .output()
            .expect("running the test binary again");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{child}: {stdout}{stderr}");
        let figures: Vec<usize> = stdout
            .lines()
            .find_map(|l| l.strip_prefix(REPORT))
            .map(|rest| rest.split_whitespace().filter_map(|f| f.parse().ok()))
            .expect("the child's report")
            .collect();
        let [before, after] = figures[..] else {
            panic!("{child}: two figures in the report: {stdout}");
        };
        // The child checks the bound itself; checked here too, in case it ran something else.
        assert!(
            after * MIB <= before * MIB + LEFT_BEHIND_MAX,
            "{child}: {before} MiB resident before the sort, {after} MiB after"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_sorter_keeps_its_scratch_until_it_is_dropped() {
    let cpu = cpu();
    // Warm-up, so that the thread pool and the allocator's arenas exist before the
    // measurement.
    let mut warm = keys(1 << 20);
    cpu.auto().sort(&mut warm).unwrap();
    drop(warm);

    let before = resident_bytes();
    let mut sorter = CpuRadixSorter::new();
    let mut big = keys(COLD_KEYS);
    sorter.sort(&mut big);
    assert!(big.windows(2).all(|w| w[0] <= w[1]));
    drop(big);
    let scratch = COLD_KEYS * std::mem::size_of::<u32>();
    assert!(sorter.scratch_bytes() >= scratch);
    assert!(resident_bytes() >= before + scratch * 3 / 4);
    drop(sorter);
    let after = resident_bytes();
    assert!(
        after <= before + LEFT_BEHIND_MAX,
        "{} MiB resident before, {} MiB after dropping the sorter",
        before / MIB,
        after / MIB
    );
}
