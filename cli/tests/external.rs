//! `sortnet sort` on inputs larger than its memory budget: `--memory`, `--temp-dir`,
//! `--descending` and the streams, and Ctrl-C or SIGTERM in the middle of a sort leaving no
//! temporary run and no output behind.

mod common;

use common::*;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A scratch folder for one test, removed when dropped; `tmp` inside it takes the runs.
fn scratch(test: &str) -> Scratch {
    let dir = Scratch::new(&format!("ext-{test}"));
    std::fs::create_dir(dir.path("tmp")).unwrap();
    dir
}

/// `n` pseudo-random u64 keys.
fn random_u64(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

fn to_bytes(keys: &[u64]) -> Vec<u8> {
    keys.iter().flat_map(|k| k.to_le_bytes()).collect()
}

fn from_bytes(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn a_file_larger_than_the_budget_is_sorted_in_runs_both_ways() {
    let dir = scratch("runs");
    let keys = random_u64(1 << 20, 5); // 8 MiB
    std::fs::write(dir.path("in.bin"), to_bytes(&keys)).unwrap();
    let mut want = keys.clone();
    want.sort_unstable();
    for (flag, expect) in [
        (None, want.clone()),
        (Some("--descending"), {
            let mut d = want.clone();
            d.reverse();
            d
        }),
    ] {
        let out = run(sortnet()
            .args([
                "sort",
                "--type",
                "u64",
                "--memory",
                "1M",
                "--timings",
                "--temp-dir",
            ])
            .arg(dir.path("tmp"))
            .args(flag)
            .arg(dir.path("in.bin"))
            .arg("-o")
            .arg(dir.path("out.bin")));
        assert!(out.status.success(), "{}", stderr(&out));
        // Not a terminal: no progress bar, only the --timings line.
        let msg = stderr(&out);
        assert!(msg.lines().count() == 1 && msg.contains(" runs ("), "{msg}");
        assert_eq!(
            from_bytes(&std::fs::read(dir.path("out.bin")).unwrap()),
            expect
        );
        assert_eq!(names_in(&dir.path("tmp")), Vec::<String>::new());
    }
}

#[test]
fn text_through_the_streams_in_runs() {
    let dir = scratch("streams");
    let keys: Vec<i64> = random_u64(300_000, 9)
        .into_iter()
        .map(|k| k as i64)
        .collect();
    let text: String = keys.iter().map(|k| format!("{k}\n")).collect();
    let mut child = sortnet()
        .args([
            "sort", "--type", "i64", "--format", "text", "--memory", "1M",
        ])
        .arg("--temp-dir")
        .arg(dir.path("tmp"))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(text.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let got: Vec<i64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let mut want = keys;
    want.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(names_in(&dir.path("tmp")), Vec::<String>::new());
}

#[test]
fn memory_sizes_are_checked() {
    for bad in ["lots", "0", "12Q"] {
        let out = run(sortnet().args(["sort", "--type", "u32", "--memory", bad, "x"]));
        assert_eq!(out.status.code(), Some(2), "{bad}: a usage error");
        assert!(stderr(&out).contains("expected a size") || stderr(&out).contains("at least"));
    }
}

/// Starts a sort of `input` that takes a while (a small budget, one thread), waits until a
/// run exists, sends `signal`, and checks that the process stopped and left nothing.
fn interrupt_with(signal: &str) {
    let dir = scratch(&format!("signal-{signal}"));
    std::fs::write(dir.path("in.bin"), to_bytes(&random_u64(8 << 20, 3))).unwrap(); // 64 MiB
    std::fs::write(dir.path("out.bin"), b"keep me").unwrap();
    let tmp = dir.path("tmp");
    let mut child = sortnet()
        .args(["sort", "--type", "u64", "--memory", "1M", "--threads", "1"])
        .arg("--temp-dir")
        .arg(&tmp)
        .arg(dir.path("in.bin"))
        .arg("-o")
        .arg(dir.path("out.bin"))
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the run folder to hold a run.
    let started = Instant::now();
    let has_run = || {
        std::fs::read_dir(&tmp).unwrap().any(|e| {
            std::fs::read_dir(e.unwrap().path()).is_ok_and(|mut runs| runs.next().is_some())
        })
    };
    while !has_run() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the sort ended before a run appeared"
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no run appeared"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(!status.success(), "{signal} stops the sort");
    assert_eq!(names_in(&tmp), Vec::<String>::new(), "runs removed");
    assert_eq!(
        dir.files(),
        ["in.bin", "out.bin", "tmp"],
        "no temporary output"
    );
    assert_eq!(std::fs::read(dir.path("out.bin")).unwrap(), b"keep me");
}

#[test]
#[cfg(unix)]
fn ctrl_c_removes_the_runs() {
    interrupt_with("INT");
}

#[test]
#[cfg(unix)]
fn sigterm_removes_the_runs() {
    interrupt_with("TERM");
}

/// A full disk as a file-size limit (`ulimit -f`, no root or mount needed): writes past it
/// fail with EFBIG (SIGXFSZ ignored, as a shell's `trap '' XFSZ` leaves it for the tool).
/// Too small for one run, the run formation fails; room for the runs but not the output, the
/// merge's output fails; and so does the in-memory sort's output. Each names the folder or
/// file and the reason, and leaves no run, no temporary output and the old output as it was.
#[test]
#[cfg(unix)]
fn a_file_size_limit_fails_each_stage_clearly_and_leaves_nothing() {
    let dir = scratch("fsize");
    std::fs::write(dir.path("in.bin"), to_bytes(&random_u64(1 << 19, 7))).unwrap(); // 4 MiB
                                                                                    // `ulimit -f` counts 512- or 1024-byte blocks depending on the shell: each limit below
                                                                                    // holds for both (runs of a 1 MiB budget are 256 KiB).
    for (blocks, memory, what) in [
        ("64", "1M", "cannot write a sorted run in"),
        ("1024", "1M", "out.bin: cannot write"),
        ("1024", "64M", "out.bin: cannot write"),
    ] {
        std::fs::write(dir.path("out.bin"), b"keep me").unwrap();
        let out = run(Command::new("sh")
            .env("SORTNET_PROFILE", "0")
            .args([
                "-c",
                "trap '' XFSZ; ulimit -f \"$0\" && exec \"$@\"",
                blocks,
            ])
            .arg(env!("CARGO_BIN_EXE_sortnet"))
            .args(["sort", "--type", "u64", "--memory", memory, "--temp-dir"])
            .arg(dir.path("tmp"))
            .arg(dir.path("in.bin"))
            .arg("-o")
            .arg(dir.path("out.bin")));
        let msg = stderr(&out);
        assert!(
            !out.status.success(),
            "{blocks} blocks, {memory}: must fail"
        );
        assert!(
            msg.contains(what) && msg.contains("File too large"),
            "{blocks} blocks, {memory}: {msg}"
        );
        assert_eq!(
            names_in(&dir.path("tmp")),
            Vec::<String>::new(),
            "runs removed"
        );
        assert_eq!(
            dir.files(),
            ["in.bin", "out.bin", "tmp"],
            "no temporary output"
        );
        assert_eq!(std::fs::read(dir.path("out.bin")).unwrap(), b"keep me");
    }
}
