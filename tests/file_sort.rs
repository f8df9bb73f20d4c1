//! `sortnet::file`: files sorted in memory and in runs on disk, against a plain reference,
//! for every key type, both formats and both orders; inputs that fail (truncated, a bad
//! line, a missing or full temporary folder, a full output disk) fail clearly and leave
//! nothing behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use quickcheck::{QuickCheck, TestResult};
use sortnet::file::{self, FileSortOptions, Format, KeyType, Order, MIN_MEMORY};
use sortnet::Key;

/// A scratch folder for one test, removed when dropped; `tmp` inside it is the temporary
/// folder the sorts are given, so a test can see that no run stayed behind.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("sortnet-file-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn tmp(&self) -> PathBuf {
        self.0.join("tmp")
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Asserts that the temporary folder is empty and the scratch folder holds `files`
    /// (and `tmp`).
    fn assert_left(&self, files: &[&str]) {
        assert_eq!(
            Scratch::names(&self.tmp()),
            Vec::<String>::new(),
            "runs left"
        );
        let mut want: Vec<String> = files.iter().map(|s| s.to_string()).collect();
        want.push("tmp".to_string());
        want.sort();
        assert_eq!(Scratch::names(&self.0), want, "files left");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Small reproducible random numbers (xorshift*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// A key type as these tests make, write and read them.
trait TestKey: Key + std::fmt::Debug + std::str::FromStr + PartialEq {
    const TYPE: KeyType;
    fn random(bits: u64) -> Self;
    fn to_le(self) -> Vec<u8>;
    fn from_le(bytes: &[u8]) -> Self;
    /// Equal as the file formats keep them: bit for bit (NaNs included).
    fn same(&self, other: &Self) -> bool;
}

macro_rules! test_key {
    ($($t:ty, $kt:ident, $w:expr, |$b:ident| $make:expr, |$x:ident| $bits:expr;)*) => {$(
        impl TestKey for $t {
            const TYPE: KeyType = KeyType::$kt;
            fn random($b: u64) -> Self { $make }
            fn to_le(self) -> Vec<u8> { self.to_le_bytes().to_vec() }
            fn from_le(bytes: &[u8]) -> Self { <$t>::from_le_bytes(bytes.try_into().unwrap()) }
            fn same(&self, other: &Self) -> bool {
                let $x = self;
                let a = $bits;
                let $x = other;
                a == $bits
            }
        }
    )*};
}

test_key! {
    u32, U32, 4, |b| b as u32, |x| *x;
    i32, I32, 4, |b| b as i32, |x| *x;
    // Floats from random bits: NaNs, infinities, subnormals and both zeros all appear.
    f32, F32, 4, |b| f32::from_bits(b as u32), |x| x.to_bits();
    u64, U64, 8, |b| b, |x| *x;
    i64, I64, 8, |b| b as i64, |x| *x;
    f64, F64, 8, |b| f64::from_bits(b), |x| x.to_bits();
}

fn random_keys<K: TestKey>(n: usize, seed: u64) -> Vec<K> {
    let mut rng = Rng(seed | 1);
    (0..n).map(|_| K::random(rng.next())).collect()
}

fn encode<K: TestKey>(keys: &[K], format: Format) -> Vec<u8> {
    match format {
        Format::Binary => keys.iter().flat_map(|k| k.to_le()).collect(),
        Format::Text => keys
            .iter()
            .map(|k| format!("{k:?}\n"))
            .collect::<String>()
            .into_bytes(),
    }
}

fn decode<K: TestKey>(bytes: &[u8], format: Format) -> Vec<K> {
    match format {
        Format::Binary => bytes
            .chunks_exact(std::mem::size_of::<K>())
            .map(K::from_le)
            .collect(),
        Format::Text => std::str::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|l| l.parse().ok().expect("the output parses back"))
            .collect(),
    }
}

/// What the output must be: the input in order. Text drops a NaN's sign and payload, so
/// the reference goes through text too.
fn reference<K: TestKey>(keys: &[K], format: Format, order: Order) -> Vec<K> {
    let mut want: Vec<K> = decode(&encode(keys, format), format);
    want.sort_by(|a, b| a.key_cmp(b));
    if order == Order::Descending {
        want.reverse();
    }
    want
}

fn options<K: TestKey>(
    s: &Scratch,
    format: Format,
    order: Order,
    memory: usize,
) -> FileSortOptions {
    FileSortOptions {
        key_type: K::TYPE,
        format,
        order,
        memory,
        temp_dir: Some(s.tmp()),
        ..FileSortOptions::default()
    }
}

/// Writes `keys`, sorts the file with `opts`, checks the output against the reference and
/// that no temporary file stayed; returns the report.
fn check_sort<K: TestKey>(s: &Scratch, keys: &[K], opts: &FileSortOptions) -> file::FileSortReport {
    let (input, output) = (s.path("in"), s.path("out"));
    std::fs::write(&input, encode(keys, opts.format)).unwrap();
    let report = file::sort_file(&input, &output, opts).unwrap();
    let got: Vec<K> = decode(&std::fs::read(&output).unwrap(), opts.format);
    let want = reference(keys, opts.format, opts.order);
    assert_eq!(got.len(), want.len(), "{:?} {opts:?}", K::TYPE);
    if let Some(i) = (0..got.len()).find(|&i| !got[i].same(&want[i])) {
        panic!(
            "{:?} {opts:?}: key {i} is {:?}, want {:?}",
            K::TYPE,
            got[i],
            want[i]
        );
    }
    assert_eq!(report.keys, keys.len() as u64);
    s.assert_left(&["in", "out"]);
    report
}

/// Every format and order for one key type: in memory, in runs with one merge, and with a
/// fan-in of 3 so that several merges run.
fn every_way<K: TestKey>() {
    let s = Scratch::new(&format!("{:?}", K::TYPE));
    // 1.5 MiB of binary keys: over the smallest budget's half, so it is sorted in runs.
    let n = (3 << 19) / std::mem::size_of::<K>();
    let keys: Vec<K> = random_keys(n, 7);
    for format in [Format::Binary, Format::Text] {
        for order in [Order::Ascending, Order::Descending] {
            let opts = options::<K>(&s, format, order, 64 << 20);
            let r = check_sort(&s, &keys, &opts);
            assert_eq!((r.runs, r.merges), (0, 0), "{opts:?}: in memory");

            let opts = options::<K>(&s, format, order, MIN_MEMORY);
            let r = check_sort(&s, &keys, &opts);
            assert!(r.runs >= 4 && r.merges == 1, "{opts:?}: {r:?}");

            let opts = FileSortOptions {
                fan_in: 3,
                ..options::<K>(&s, format, order, MIN_MEMORY)
            };
            let r = check_sort(&s, &keys, &opts);
            assert!(r.merges >= 2, "{opts:?}: {r:?}");
        }
    }
}

#[test]
fn u32_keys_in_memory_and_in_runs() {
    every_way::<u32>();
}

#[test]
fn i32_keys_in_memory_and_in_runs() {
    every_way::<i32>();
}

#[test]
fn f32_keys_in_memory_and_in_runs() {
    every_way::<f32>();
}

#[test]
fn u64_keys_in_memory_and_in_runs() {
    every_way::<u64>();
}

#[test]
fn i64_keys_in_memory_and_in_runs() {
    every_way::<i64>();
}

#[test]
fn f64_keys_in_memory_and_in_runs() {
    every_way::<f64>();
}

/// Tens of MiB with a budget of a few: dozens of runs, more than the budget's fan-in, so a
/// multi-pass merge happens with the shipped fan-in.
#[test]
fn a_file_ten_times_the_budget_takes_several_merges() {
    let s = Scratch::new("large");
    let keys: Vec<u64> = random_keys(4 << 20, 11); // 32 MiB
    let opts = options::<u64>(&s, Format::Binary, Order::Ascending, 2 << 20);
    let r = check_sort(&s, &keys, &opts);
    assert!(r.runs > 40 && r.merges >= 2, "{r:?}");
}

#[test]
fn equal_and_presorted_inputs_and_the_smallest_budget() {
    let s = Scratch::new("patterns");
    let n = 300_000;
    let equal = vec![42u32; n];
    let ascending: Vec<u32> = (0..n as u32).collect();
    let descending: Vec<u32> = (0..n as u32).rev().collect();
    // The extreme keys are what a finished run shows the merge: they must still all come out.
    let mut extremes = vec![u32::MAX; n];
    extremes[..n / 3].fill(0);
    for keys in [&equal, &ascending, &descending, &extremes] {
        for order in [Order::Ascending, Order::Descending] {
            // A budget of one byte, smaller than one block, is raised to the smallest.
            let opts = FileSortOptions {
                fan_in: 2,
                ..options::<u32>(&s, Format::Binary, order, 1)
            };
            let r = check_sort(&s, keys, &opts);
            assert_eq!(r.memory, MIN_MEMORY);
            assert!(r.runs > 2, "{r:?}");
        }
    }
    // Empty input, both formats.
    for format in [Format::Binary, Format::Text] {
        let r = check_sort::<u64>(&s, &[], &options::<u64>(&s, format, Order::Ascending, 1));
        assert_eq!(r.keys, 0);
    }
}

/// Inputs that end just after a chunk boundary: for text the last lines are already in the
/// read buffer when the file's last byte has been read, and must still be sorted.
#[test]
fn inputs_ending_just_past_a_chunk_keep_their_last_keys() {
    let s = Scratch::new("boundary");
    let chunk = MIN_MEMORY / 3 / 8;
    for format in [Format::Binary, Format::Text] {
        for n in [chunk, chunk + 1, 2 * chunk, 2 * chunk + 5, 3 * chunk - 1] {
            let keys: Vec<u64> = random_keys(n, n as u64);
            let opts = options::<u64>(&s, format, Order::Ascending, MIN_MEMORY);
            check_sort(&s, &keys, &opts);
        }
    }
}

#[test]
fn input_and_output_may_be_the_same_file() {
    let s = Scratch::new("same");
    let keys: Vec<i64> = random_keys(400_000, 3);
    let path = s.path("keys");
    for memory in [64 << 20, MIN_MEMORY] {
        std::fs::write(&path, encode(&keys, Format::Binary)).unwrap();
        let opts = options::<i64>(&s, Format::Binary, Order::Ascending, memory);
        file::sort_file(&path, &path, &opts).unwrap();
        let got: Vec<i64> = decode(&std::fs::read(&path).unwrap(), Format::Binary);
        assert_eq!(got, reference(&keys, Format::Binary, Order::Ascending));
        s.assert_left(&["keys"]);
    }
}

#[test]
fn a_truncated_binary_file_and_a_bad_line_fail_and_write_nothing() {
    let s = Scratch::new("bad-input");
    let (input, output) = (s.path("in"), s.path("out"));
    std::fs::write(&input, [0u8; 10]).unwrap();
    let opts = options::<u64>(&s, Format::Binary, Order::Ascending, MIN_MEMORY);
    let err = file::sort_file(&input, &output, &opts).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("in: 10 bytes") && msg.contains("8-byte u64"),
        "{msg}"
    );
    s.assert_left(&["in"]);

    // The bad line comes after several runs were written: they go too.
    let mut text = encode(&random_keys::<u32>(400_000, 5), Format::Text);
    text.extend_from_slice(b"12\n-3\n");
    std::fs::write(&input, &text).unwrap();
    std::fs::write(&output, b"keep me").unwrap();
    let opts = options::<u32>(&s, Format::Text, Order::Ascending, MIN_MEMORY);
    let err = file::sort_file(&input, &output, &opts).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("in:400002: `-3` is not a u32") && msg.contains("nothing was written"),
        "{msg}"
    );
    assert_eq!(std::fs::read(&output).unwrap(), b"keep me");
    s.assert_left(&["in", "out"]);
}

#[test]
fn a_missing_or_unusable_temporary_folder_fails_clearly() {
    let s = Scratch::new("no-tmp");
    let (input, output) = (s.path("in"), s.path("out"));
    std::fs::write(
        &input,
        encode(&random_keys::<u64>(200_000, 9), Format::Binary),
    )
    .unwrap();
    for (tmp, why) in [
        (s.path("missing"), "No such file"),
        (input.clone(), "Not a directory"),
    ] {
        let opts = FileSortOptions {
            temp_dir: Some(tmp.clone()),
            ..options::<u64>(&s, Format::Binary, Order::Ascending, MIN_MEMORY)
        };
        let err = file::sort_file(&input, &output, &opts).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&format!(
                "{}: cannot create a temporary folder in",
                tmp.display()
            )) && msg.contains(why),
            "{msg}"
        );
        s.assert_left(&["in"]);
    }
}

/// A tmpfs of `size` at `dir` (as root); `false` where mounting is not allowed.
fn mount_tmpfs(dir: &Path, size: &str) -> bool {
    std::fs::create_dir_all(dir).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .stderr(Stdio::null())
        .status();
    matches!(mounted, Ok(st) if st.success())
}

fn unmount(dir: &Path) {
    let _ = Command::new("umount").arg(dir).status();
}

/// Runs, merges and the output on ramfs, which refuses `O_DIRECT` at open (tmpfs takes it
/// since Linux 6.6): the sort falls back to buffered I/O and loses nothing.
#[test]
#[cfg(target_os = "linux")]
fn a_file_system_without_direct_io_gets_buffered_runs_and_output() {
    let s = Scratch::new("ramfs");
    let dir = s.path("ramfs");
    std::fs::create_dir_all(&dir).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "ramfs", "ramfs"])
        .arg(&dir)
        .stderr(Stdio::null())
        .status();
    if !matches!(mounted, Ok(st) if st.success()) {
        eprintln!("skipped: cannot mount a ramfs here");
        return;
    }
    // 3 MiB of keys and a ragged tail: runs with an unaligned end, one merge.
    let keys: Vec<u64> = random_keys((3 << 17) + 77, 17);
    let (input, output) = (dir.join("in"), dir.join("out"));
    std::fs::write(&input, encode(&keys, Format::Binary)).unwrap();
    let opts = FileSortOptions {
        temp_dir: Some(dir.clone()),
        ..options::<u64>(&s, Format::Binary, Order::Ascending, MIN_MEMORY)
    };
    let result = file::sort_file(&input, &output, &opts);
    let got = std::fs::read(&output).map(|b| decode::<u64>(&b, Format::Binary));
    let left = Scratch::names(&dir);
    unmount(&dir);
    let report = result.unwrap();
    assert!(report.runs >= 2, "{report:?}");
    assert_eq!(
        got.unwrap(),
        reference(&keys, Format::Binary, Order::Ascending)
    );
    assert_eq!(left, ["in", "out"], "no run left");
    let _ = std::fs::remove_dir(&dir);
}

/// A full disk while the runs are written, while a merge writes a longer run, and while the
/// output is written: each fails naming the folder or file and the reason, and leaves no
/// run and no partial output.
#[test]
#[cfg(target_os = "linux")]
fn a_full_disk_at_any_stage_fails_clearly_and_leaves_nothing() {
    let s = Scratch::new("full");
    let (input, output) = (s.path("in"), s.path("out"));
    // 2 MiB of keys: 6 runs of a third of the smallest budget.
    std::fs::write(
        &input,
        encode(&random_keys::<u64>(1 << 18, 13), Format::Binary),
    )
    .unwrap();
    let small = s.path("small");
    if !mount_tmpfs(&small, "256k") {
        eprintln!("skipped: cannot mount a tmpfs here");
        return;
    }
    let opts = FileSortOptions {
        temp_dir: Some(small.clone()),
        ..options::<u64>(&s, Format::Binary, Order::Ascending, MIN_MEMORY)
    };
    let err = file::sort_file(&input, &output, &opts).unwrap_err();
    let runs_left = Scratch::names(&small);
    unmount(&small);
    let msg = err.to_string();
    assert!(
        msg.contains("cannot write a sorted run in") && msg.contains("No space left"),
        "{msg}"
    );
    assert_eq!(
        runs_left,
        Vec::<String>::new(),
        "no run left on the full disk"
    );

    // Room for the runs but not for a merge's longer run beside them.
    let roomy = s.path("roomy");
    assert!(mount_tmpfs(&roomy, "2200k"));
    let opts = FileSortOptions {
        temp_dir: Some(roomy.clone()),
        fan_in: 3,
        ..options::<u64>(&s, Format::Binary, Order::Ascending, MIN_MEMORY)
    };
    let err = file::sort_file(&input, &output, &opts).unwrap_err();
    let runs_left = Scratch::names(&roomy);
    unmount(&roomy);
    let msg = err.to_string();
    assert!(
        msg.contains("cannot write a sorted run in") && msg.contains("No space left"),
        "{msg}"
    );
    assert_eq!(
        runs_left,
        Vec::<String>::new(),
        "no run left after the merge failed"
    );

    // The output's disk is full; the old output stays.
    let out_dir = s.path("outfs");
    assert!(mount_tmpfs(&out_dir, "256k"));
    let old = out_dir.join("out");
    std::fs::write(&old, b"keep me").unwrap();
    for memory in [64 << 20, MIN_MEMORY] {
        let opts = options::<u64>(&s, Format::Binary, Order::Ascending, memory);
        let err = file::sort_file(&input, &old, &opts).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("{}: cannot write", old.display()))
                && msg.contains("No space left"),
            "{msg}"
        );
    }
    let kept = std::fs::read(&old).unwrap();
    let left = Scratch::names(&out_dir);
    unmount(&out_dir);
    assert_eq!(kept, b"keep me");
    assert_eq!(left, ["out"], "no temporary output left");
    for dir in ["small", "roomy", "outfs"] {
        let _ = std::fs::remove_dir(s.path(dir));
    }
    s.assert_left(&["in"]);
}

/// The output is the sorted input for random sizes, budgets, fan-ins, types and orders.
#[test]
fn the_output_is_the_sorted_input() {
    fn prop(len: u32, memory: u8, fan_in: u8, seed: u64, desc: bool, text: bool) -> TestResult {
        let s = Scratch::new(&format!("prop-{seed}"));
        let n = (len % 600_000) as usize;
        let opts_for = |t: KeyType| FileSortOptions {
            key_type: t,
            format: if text { Format::Text } else { Format::Binary },
            order: if desc {
                Order::Descending
            } else {
                Order::Ascending
            },
            memory: MIN_MEMORY + (memory as usize % 4) * MIN_MEMORY / 2,
            fan_in: 2 + fan_in as usize % 8,
            temp_dir: Some(s.tmp()),
            ..FileSortOptions::default()
        };
        if seed.is_multiple_of(2) {
            check_sort::<f32>(&s, &random_keys(n, seed), &opts_for(KeyType::F32));
        } else {
            check_sort::<i64>(&s, &random_keys(n, seed), &opts_for(KeyType::I64));
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(12)
        .quickcheck(prop as fn(u32, u8, u8, u64, bool, bool) -> TestResult);
}
