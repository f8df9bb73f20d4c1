//! The `sortnet` binary end to end: sorting files (good and bad input), nibbles, the
//! backends listing, the calibration profile, and bench with a chart.

mod common;

use common::*;

use std::process::{Command, Stdio};

/// Whether a backend usable here sorts `workload` keys (the key sorts need the CPU key
/// backends; a build without them is told apart from a broken tool).
fn keys_supported() -> bool {
    use sortnet::{backend, KeyWidth, Workload};
    backend::auto().supports(Workload::Keys(KeyWidth::W32))
        && backend::auto().supports(Workload::Keys(KeyWidth::W64))
}

#[test]
fn sort_binary_u32_file_to_file() {
    if !keys_supported() {
        eprintln!("skipped: no key backend usable here");
        return;
    }
    let dir = Scratch::new("bin-u32");
    let keys: Vec<u32> = (0..10_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    write(&dir.path("in.bin"), &bytes);
    assert_ok(&run(sortnet()
        .args(["sort", "--type", "u32", "-o"])
        .arg(dir.path("out.bin"))
        .arg(dir.path("in.bin"))));
    let out = std::fs::read(dir.path("out.bin")).unwrap();
    let got: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut expected = keys;
    expected.sort_unstable();
    assert_eq!(got, expected);
    assert_eq!(dir.files(), ["in.bin", "out.bin"], "no temporary file left");
}

#[test]
fn sort_binary_f64_through_stdin_and_stdout_in_total_order() {
    if !keys_supported() {
        eprintln!("skipped: no key backend usable here");
        return;
    }
    let keys = [3.5f64, f64::NAN, -0.0, f64::NEG_INFINITY, 0.0, -7.25];
    let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    let out = run_with_stdin(sortnet().args(["sort", "--type", "f64", "-"]), &bytes);
    assert_ok(&out);
    let got: Vec<u64> = out
        .stdout
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut expected = keys;
    expected.sort_by(f64::total_cmp);
    let expected: Vec<u64> = expected.iter().map(|k| k.to_bits()).collect();
    assert_eq!(got, expected);
}

#[test]
fn sort_text_i64_with_a_named_backend() {
    if !keys_supported() {
        eprintln!("skipped: no key backend usable here");
        return;
    }
    let dir = Scratch::new("text-i64");
    write(
        &dir.path("in.txt"),
        b"5\n-3\n 12 \r\n0\n-9223372036854775808\n",
    );
    let name = sortnet::tuning::auto_pick(sortnet::Workload::Keys(sortnet::KeyWidth::W64), 5)
        .unwrap()
        .name();
    let out = run(sortnet()
        .args([
            "sort",
            "--type",
            "i64",
            "--format",
            "text",
            "--backend",
            name,
        ])
        .arg(dir.path("in.txt")));
    assert_ok(&out);
    assert_eq!(stdout(&out), "-9223372036854775808\n-3\n0\n5\n12\n");
}

#[test]
fn sort_text_f32_prints_keys_that_parse_back() {
    if !keys_supported() {
        eprintln!("skipped: no key backend usable here");
        return;
    }
    let out = run_with_stdin(
        sortnet().args(["sort", "--type", "f32", "--format", "text", "-"]),
        b"1e-45\n-0\n3.5\nNaN\n-inf\n0\n1e38\n",
    );
    assert_ok(&out);
    assert_eq!(stdout(&out), "-inf\n-0.0\n0.0\n1e-45\n3.5\n1e38\nNaN\n");
}

#[test]
fn sort_refuses_a_file_that_is_not_whole_keys_and_writes_nothing() {
    let dir = Scratch::new("ragged");
    write(&dir.path("in.bin"), &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    let out = run(sortnet()
        .args(["sort", "--type", "u64", "-o"])
        .arg(dir.path("out.bin"))
        .arg(dir.path("in.bin")));
    assert!(!out.status.success());
    let msg = stderr(&out);
    assert!(
        msg.contains("in.bin") && msg.contains("10 bytes") && msg.contains("8-byte u64"),
        "{msg}"
    );
    assert_eq!(dir.files(), ["in.bin"], "no output file, no temporary file");
}

/// `-o` through a symbolic link writes the file the link names and keeps the link, and a
/// replaced file keeps its permissions.
#[test]
#[cfg(unix)]
fn sort_output_through_a_symlink_writes_its_target() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("symlink");
    write(&dir.path("target.txt"), b"old\n");
    std::fs::set_permissions(
        dir.path("target.txt"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    std::os::unix::fs::symlink("target.txt", dir.path("link.txt")).unwrap();
    let out = run_with_stdin(
        sortnet()
            .args(["sort", "--type", "u32", "--format", "text", "-", "-o"])
            .arg(dir.path("link.txt")),
        b"3\n1\n2\n",
    );
    assert_ok(&out);
    let link = std::fs::symlink_metadata(dir.path("link.txt")).unwrap();
    assert!(link.file_type().is_symlink(), "the link is still a link");
    assert_eq!(std::fs::read(dir.path("target.txt")).unwrap(), b"1\n2\n3\n");
    let mode = std::fs::metadata(dir.path("target.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(
        mode & 0o777,
        0o640,
        "the replaced file keeps its permissions"
    );
    assert_eq!(
        dir.files(),
        ["link.txt", "target.txt"],
        "no temporary file left"
    );
}

/// `-o` on a FIFO writes into it (a reader gets the keys) and leaves the FIFO in place.
#[test]
#[cfg(unix)]
fn sort_output_to_a_fifo_writes_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = Scratch::new("fifo");
    let fifo = dir.path("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !matches!(made, Ok(s) if s.success()) {
        eprintln!("skipped: mkfifo is not available here");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = run_with_stdin(
        sortnet()
            .args(["sort", "--type", "u32", "--format", "text", "-", "-o"])
            .arg(&fifo),
        b"2\n1\n",
    );
    assert_ok(&out);
    assert_eq!(reader.join().unwrap(), b"1\n2\n");
    let meta = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(meta.file_type().is_fifo(), "the FIFO is still a FIFO");
}

/// A full device fails with a clear error and a non-zero exit, and stays a device; so does
/// a full file system (a 64 KiB tmpfs, where this runs as root and may mount one), where the
/// destination keeps its old contents.
#[test]
#[cfg(target_os = "linux")]
fn sort_output_to_a_full_disk_fails_clearly() {
    use std::os::unix::fs::FileTypeExt;
    let out = run_with_stdin(
        sortnet().args([
            "sort",
            "--type",
            "u32",
            "--format",
            "text",
            "-",
            "-o",
            "/dev/full",
        ]),
        b"1\n2\n",
    );
    assert!(!out.status.success(), "writing to /dev/full must fail");
    let msg = stderr(&out);
    assert!(msg.contains("/dev/full: cannot write"), "{msg}");
    let meta = std::fs::symlink_metadata("/dev/full").unwrap();
    assert!(
        meta.file_type().is_char_device(),
        "/dev/full is still a device"
    );

    let dir = Scratch::new("full-fs");
    let mnt = dir.path("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&mnt)
        .stderr(Stdio::null())
        .status();
    if !matches!(mounted, Ok(s) if s.success()) {
        eprintln!("skipped the tmpfs half: cannot mount a tmpfs here");
        return;
    }
    write(&mnt.join("out.bin"), b"keep me");
    write(&dir.path("in.bin"), &vec![7u8; 1 << 20]);
    let out = run(sortnet()
        .args(["sort", "--type", "u32", "-o"])
        .arg(mnt.join("out.bin"))
        .arg(dir.path("in.bin")));
    let kept = std::fs::read(mnt.join("out.bin")).unwrap();
    let left: Vec<_> = std::fs::read_dir(&mnt)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let _ = Command::new("umount").arg(&mnt).status();
    assert!(
        !out.status.success(),
        "a full file system must fail the write"
    );
    let msg = stderr(&out);
    assert!(
        msg.contains("cannot write") && msg.contains("No space left"),
        "{msg}"
    );
    assert_eq!(kept, b"keep me", "the old output is left as it was");
    assert_eq!(
        left,
        ["out.bin"],
        "no temporary file left on the full file system"
    );
}

#[test]
fn sort_refuses_a_bad_line_with_file_and_line_and_writes_nothing() {
    let dir = Scratch::new("bad-line");
    write(&dir.path("in.txt"), b"1\n2\n3.5\n4\n");
    let out = run(sortnet()
        .args(["sort", "--type", "u32", "--format", "text", "-o"])
        .arg(dir.path("out.txt"))
        .arg(dir.path("in.txt")));
    assert!(!out.status.success());
    let msg = stderr(&out);
    assert!(
        msg.contains("in.txt:3:") && msg.contains("`3.5` is not a u32"),
        "{msg}"
    );
    assert_eq!(dir.files(), ["in.txt"]);

    // An existing output file is left as it was.
    write(&dir.path("out.txt"), b"keep me\n");
    write(&dir.path("in.txt"), b"1\n2\n\n");
    let out = run(sortnet()
        .args(["sort", "--type", "f32", "--format", "text", "-o"])
        .arg(dir.path("out.txt"))
        .arg(dir.path("in.txt")));
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("in.txt:3: empty line"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(dir.path("out.txt")).unwrap(), b"keep me\n");
}

#[test]
fn sort_refuses_a_missing_file_and_an_unknown_backend() {
    let out = run(sortnet().args(["sort", "--type", "u32", "/nonexistent/sortnet-input"]));
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("/nonexistent/sortnet-input"),
        "{}",
        stderr(&out)
    );
    let out = run_with_stdin(
        sortnet().args(["sort", "--type", "u32", "--backend", "no-such", "-"]),
        b"",
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("`no-such` is not a backend"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn nibbles_sorts_hex_words_with_or_without_prefix() {
    let out = run_with_stdin(
        sortnet().arg("nibbles"),
        b"0x42badc0ffeed00d5\n0badbeef\n0\n",
    );
    assert_ok(&out);
    assert_eq!(
        stdout(&out),
        "0xffeedddcba542000\n0xfeedbba000000000\n0x0000000000000000\n"
    );
}

#[test]
fn nibbles_refuses_a_bad_word_and_writes_nothing() {
    let dir = Scratch::new("nibbles-bad");
    write(&dir.path("words.txt"), b"0x1\n0xfffffffffffffffff\n");
    let out = run(sortnet()
        .arg("nibbles")
        .arg(dir.path("words.txt"))
        .arg("-o")
        .arg(dir.path("out.txt")));
    assert!(!out.status.success());
    let msg = stderr(&out);
    assert!(
        msg.contains("words.txt:2:") && msg.contains("more than 16 hex digits"),
        "{msg}"
    );
    assert_eq!(dir.files(), ["words.txt"]);
}

#[test]
fn backends_lists_every_backend_and_the_picks() {
    let out = run(sortnet().arg("backends"));
    assert_ok(&out);
    let text = stdout(&out);
    for b in sortnet::backend::available() {
        assert!(
            text.contains(b.name()),
            "{} missing from:\n{text}",
            b.name()
        );
    }
    assert!(
        text.contains("auto picks") && text.contains("nibbles"),
        "{text}"
    );
    // Float keys have rows of their own (their crossovers differ), with the same pick at
    // 2^24 keys as their integer row.
    let row = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .map(|l| l.split_whitespace().last().unwrap_or("").to_string())
    };
    assert!(row("f32").is_some() && row("f64").is_some(), "{text}");
    assert_eq!(row("f32"), row("keys32"), "{text}");
}

#[test]
fn a_saved_profile_is_used_and_a_corrupt_one_is_ignored_with_a_warning() {
    let dir = Scratch::new("profile");
    let path = dir.path("profile.txt");
    let out = run(sortnet().env("SORTNET_PROFILE", &path).args([
        "calibrate",
        "--max-size",
        "64",
        "--seconds",
        "0.001",
    ]));
    assert_ok(&out);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.starts_with("sortnet-profile 1\n"), "{saved}");
    let listing = run(sortnet().env("SORTNET_PROFILE", &path).arg("backends"));
    assert_ok(&listing);
    assert!(
        stdout(&listing).contains("calibration profile: in use"),
        "{}",
        stdout(&listing)
    );

    // The profile's integer rows rule integer keys; `f32` keys, which have no row of their
    // own, keep the built-in crossovers where their integer row picks radix.
    let only_radix: String = saved
        .lines()
        .filter(|l| !l.starts_with("keys32 "))
        .chain(["keys32 0 radix"])
        .map(|l| format!("{l}\n"))
        .collect();
    write(&path, only_radix.as_bytes());
    let row = |text: &str, name: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no `{name}` row in {text}"));
        line.split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect()
    };
    let with = stdout(&run(sortnet()
        .env("SORTNET_PROFILE", &path)
        .arg("backends")));
    let without = stdout(&run(sortnet().env("SORTNET_PROFILE", "0").arg("backends")));
    assert!(row(&with, "keys32").iter().all(|p| p == "radix"), "{with}");
    assert_eq!(row(&with, "f32"), row(&without, "f32"), "{with}\n{without}");

    write(
        &path,
        b"sortnet-profile 1\nbackends scalar\nnibbles zero scalar\n",
    );
    let listing = run(sortnet().env("SORTNET_PROFILE", &path).arg("backends"));
    assert_ok(&listing);
    let warning = stderr(&listing);
    assert!(
        warning.contains("warning: ignoring calibration profile") && warning.contains("line 3"),
        "{warning}"
    );
    assert!(stdout(&listing).contains("auto picks"));

    // XDG_CACHE_HOME is where calibrate saves by default, in this machine's file.
    let out = run(sortnet()
        .env_remove("SORTNET_PROFILE")
        .env("XDG_CACHE_HOME", &dir.0)
        .args(["calibrate", "--max-size", "16", "--seconds", "0.001"]));
    assert_ok(&out);
    let saved = names_in(&dir.path("sortnet"));
    assert!(
        saved.len() == 1 && saved[0].starts_with("profile-"),
        "{saved:?}"
    );
}

/// `sortnet backends` with the profile in `cache` measured or read as a program's `auto`
/// does by default; returns its profile line and stderr.
fn profile_line(cache: &std::path::Path, extra: &[&str]) -> (String, String) {
    let out = run(sortnet()
        .env_remove("SORTNET_PROFILE")
        .env("XDG_CACHE_HOME", cache)
        .args(extra)
        .arg("backends"));
    assert_ok(&out);
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("calibration profile:"))
        .unwrap_or_else(|| panic!("no profile line in {text}"))
        .to_string();
    (line, stderr(&out))
}

#[test]
fn auto_never_measures_unless_asked_and_writes_nothing() {
    let dir = Scratch::new("measure-once");
    // Off: nothing measured, nothing written.
    let (line, _) = profile_line(&dir.0, &["--no-profile"]);
    assert!(line.contains("off"), "{line}");
    assert!(!dir.path("sortnet").exists());

    // The default on an empty cache: the built-in rules, nothing measured, nothing written
    // (a first call costs what any call costs).
    let out = sortnet()
        .env_remove("SORTNET_PROFILE")
        .env("XDG_CACHE_HOME", &dir.0)
        .arg("backends")
        .output()
        .unwrap();
    assert_ok(&out);
    let text = stdout(&out);
    assert!(
        text.contains("calibration profile: none at") && !text.contains("measured by"),
        "{text}"
    );
    assert!(!dir.path("sortnet").exists());
}

#[test]
fn bench_with_tiny_sizes_prints_tables_and_writes_an_svg() {
    let dir = Scratch::new("bench");
    let svg = dir.path("chart.svg");
    let out = run(sortnet()
        .args([
            "bench",
            "--workload",
            "nibbles,u32,pairs",
            "--sizes",
            "16,300",
            "--seconds",
            "0.001",
            "--plot",
        ])
        .arg(&svg));
    assert_ok(&out);
    let text = stdout(&out);
    assert!(
        text.contains("nibbles (u64 words)")
            && text.contains("u32 keys")
            && text.contains("u32 keys + u32 values"),
        "{text}"
    );
    assert!(
        text.contains("reference") && text.contains("std") && text.contains("rayon"),
        "{text}"
    );
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.starts_with("<svg") && chart.contains("</svg>") && chart.contains("u32 keys"));
    assert_eq!(dir.files(), ["chart.svg"]);
}

#[test]
fn bench_times_the_calls_beyond_a_plain_sort() {
    let out = run(sortnet().args([
        "bench",
        "--workload",
        "u8,u16,descending,pairs-u64v,argsort,records16,records32,select,partial",
        "--sizes",
        "1,16,300",
        "--seconds",
        "0.001",
    ]));
    // Every backend's result is checked: a wrong one fails the command.
    assert_ok(&out);
    let text = stdout(&out);
    for title in [
        "u8 keys",
        "u16 keys",
        "u32 keys, descending",
        "u32 keys + u64 values",
        "argsort of u32 keys",
        "16-byte records by u32 key",
        "32-byte records by u64 key",
        "select_nth(n/2) of u32 keys",
        "partial_sort(n/100) of u32 keys",
    ] {
        assert!(text.contains(title), "no `{title}` table in:\n{text}");
    }
    assert!(text.contains("auto") && text.contains("std"), "{text}");
}

#[test]
fn bench_times_arranged_inputs_against_random_keys() {
    let out = run(sortnet().args([
        "bench",
        "--workload",
        "u32,f64,pairs",
        "--order",
        "random,ascending,descending,organ-pipe,sorted-halves,interleaved-halves,sawtooth,noisy,few-distinct",
        "--sizes",
        "1,300,1000",
        "--backends",
        "auto,std",
        "--seconds",
        "0.001",
    ]));
    // Every result is checked against the input, whatever its order.
    assert_ok(&out);
    let text = stdout(&out);
    assert!(text.contains("u32 keys, organ-pipe input"), "{text}");
    assert!(text.contains("time relative to random keys"), "{text}");
    let relative = text.split("time relative to random keys").nth(1).unwrap();
    // 3 workloads x 8 arranged orders x 2 contestants, each a ratio at every size.
    let rows: Vec<&str> = relative.lines().skip(2).filter(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), 48, "{relative}");
    assert!(
        rows.iter().all(|r| r.split_whitespace().count() == 6),
        "{relative}"
    );

    let refused = run(sortnet().args(["bench", "--workload", "select", "--order", "noisy"]));
    assert!(!refused.status.success());
    assert!(stderr(&refused).contains("--order applies to key and pair sorts"));
}

#[test]
fn bench_refuses_an_unknown_backend() {
    let out = run(sortnet().args(["bench", "--backends", "nope", "--sizes", "16"]));
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("`nope` is not a backend usable here"),
        "{}",
        stderr(&out)
    );
}
