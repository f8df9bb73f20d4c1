//! `sortnet sort` on a tiny input costs what the input needs, not what the memory budget
//! allows: three keys, as text or binary, through stdin or a file, with the default budget
//! and with a budget of 8 GiB, finish quickly and peak far below the budget. A buffer sized
//! by the budget and touched whole would hold a quarter of it (gigabytes) resident.
//!
//! Its own test binary, with one test: the peak resident memory of the children comes from
//! `getrusage(RUSAGE_CHILDREN)`, which covers every child this process waited for.

mod common;

use common::*;

use std::time::{Duration, Instant};

/// The most a tiny sort's process may peak at: the tool's code, its threads and, where the
/// GPU backends are built and a Vulkan driver loads, the driver's libraries (about 70 MiB
/// with lavapipe), with room to spare; a budget-sized buffer is gigabytes.
const PEAK_MAX_BYTES: u64 = 200 << 20;

/// The most a tiny sort may take, start to exit, on a loaded machine with a debug build.
const WALL_MAX: Duration = Duration::from_secs(3);

/// The largest resident set of any child this process has waited for, in bytes.
#[cfg(target_os = "linux")]
fn children_peak_bytes() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a `rusage` into the pointer it is given, which points to one.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    assert_eq!(rc, 0, "getrusage: {}", std::io::Error::last_os_error());
    // SAFETY: getrusage succeeded, so it filled the struct (zeroed before, plain integers).
    let usage = unsafe { usage.assume_init() };
    // Linux reports ru_maxrss in KiB.
    u64::try_from(usage.ru_maxrss).expect("a non-negative peak") << 10
}

#[cfg(target_os = "linux")]
#[test]
fn a_tiny_sort_takes_little_time_and_memory_whatever_the_budget() {
    let dir = Scratch::new("footprint");
    let text = b"3\n1\n2\n";
    let binary: Vec<u8> = [3u32, 1, 2].iter().flat_map(|k| k.to_le_bytes()).collect();
    std::fs::write(dir.path("in.txt"), text).unwrap();
    std::fs::write(dir.path("in.bin"), &binary).unwrap();
    let text_file = dir.path("in.txt").display().to_string();
    let binary_file = dir.path("in.bin").display().to_string();
    let sorted_binary: Vec<u8> = [1u32, 2, 3].iter().flat_map(|k| k.to_le_bytes()).collect();
    for budget in [None, Some("8G")] {
        let cases: [(&str, &str, &[u8], &[u8]); 4] = [
            ("text", "-", text, b"1\n2\n3\n"),
            ("text", &text_file, b"", b"1\n2\n3\n"),
            ("bin", "-", &binary, &sorted_binary),
            ("bin", &binary_file, b"", &sorted_binary),
        ];
        for (format, input, stdin, want) in cases {
            let mut cmd = sortnet();
            cmd.args(["sort", "--type", "u32", "--format", format, input]);
            if let Some(budget) = budget {
                cmd.args(["--memory", budget]);
            }
            let started = Instant::now();
            let out = run_with_stdin(&mut cmd, stdin);
            let took = started.elapsed();
            assert_ok(&out);
            assert_eq!(out.stdout, want, "{format} from {input}, budget {budget:?}");
            assert!(
                took < WALL_MAX,
                "{format} from {input}, budget {budget:?}: {took:?} for three keys"
            );
            let peak = children_peak_bytes();
            assert!(
                peak < PEAK_MAX_BYTES,
                "{format} from {input}, budget {budget:?}: {} MiB peak resident for three keys",
                peak >> 20
            );
        }
    }
}
