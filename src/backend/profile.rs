//! The calibration profile: which backend measured fastest on this machine, per workload and
//! length, read by `auto` when one is saved ([`ProfileChoice::Saved`], the default).
//! Measuring is what a user asks for: `sortnet calibrate` measures a full one, and
//! [`ProfileChoice::MeasureOnce`] has `auto` measure a short one the first time it routes a
//! call on a machine without one ([`calibration`](crate::tuning::calibration)). Without a profile
//! `auto` follows its built-in rules, which read the ISA and the cache sizes.
//!
//! The built-in thresholds are measured on two machines; a profile measured on this one wins
//! over them when it exists, was measured on this machine (its `machine` line: CPU model, L2
//! size, thread count, sortnet version) and with the same set of backends (a profile from
//! before a GPU driver was installed, or with `SORTNET_NO_GPU` set differently, is stale and
//! ignored). A profile that does not parse is ignored with one warning on stderr: a broken
//! cache file must never stop a program that sorts.
//!
//! Where it lives: a file the user names ([`ProfileChoice::File`], which
//! `Options::from_env` sets from `$SORTNET_PROFILE`: read, never measured into), else
//! `$XDG_CACHE_HOME/sortnet/profile-<key>.txt`, else `$HOME/.cache/sortnet/profile-<key>.txt`,
//! where `<key>` is a hash of the machine line and the usable backends, so that a home folder
//! shared between machines (or between settings of `SORTNET_NO_GPU`) keeps one file for
//! each. `SORTNET_PROFILE=0` switches profiles off (`ProfileChoice::BuiltIn`).
//!
//! The format is plain text, one fact per line, `#` starts a comment:
//!
//! ```text
//! sortnet-profile 1
//! machine AMD EPYC 9R14; l2 1024 KiB; threads 2; sortnet 0.1.0
//! backends scalar avx2 radix
//! timed avx2 radix
//! # workload  from-length  backend
//! nibbles 0 avx2
//! keys32 0 avx2
//! keys32 1448 radix
//! floats64 0 avx2
//! ```
//!
//! A `workload from backend` line says that `backend` is the fastest for `workload` from
//! `from` elements up to the next line's `from`; below a workload's first `from`, from a
//! line whose backend is `-` (past the largest size timed), and for workloads without
//! lines, the built-in thresholds decide. The profile speaks only among the
//! backends on its `timed` line (all of `backends` when there is none): where the built-in
//! thresholds pick one it did not time (the GPU, for the short measurement), that pick
//! stands. The `machine` and `timed` lines are optional. The keys timed are integers (random
//! bit patterns), and for `floats64` floats ([`Row`]). `auto` applies a workload's integer
//! lines to float keys only where they pick a quicksort (radix sorts floats with one digit
//! more, so a quicksort faster on integers is faster on floats); where they pick radix, or the
//! workload has no float lines, float keys keep the built-in crossovers.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::sort_backend::Workload;
use crate::keys::key::{KeyMap, KeyWidth};

/// The first line of every profile; the number is the format version.
const MAGIC: &str = "sortnet-profile";
/// The format version this code reads and writes.
const VERSION: u32 = 1;

/// The backend name of an entry that hands the lengths from it back to the built-in
/// thresholds (written past the largest size a measurement timed).
pub const BUILT_IN: &str = "-";

/// Every workload a profile can speak about, with its name in the file.
pub const WORKLOADS: [(Workload, &str); 5] = [
    (Workload::Nibbles, "nibbles"),
    (Workload::Keys(KeyWidth::W32), "keys32"),
    (Workload::Keys(KeyWidth::W64), "keys64"),
    (Workload::Pairs(KeyWidth::W32), "pairs32"),
    (Workload::Pairs(KeyWidth::W64), "pairs64"),
];

/// The workloads with a row for float keys of their own, with its name in the file. Only
/// 64-bit keys: without AVX-512 `avx2` sorts `f64` by float compares (`vminpd`/`vmaxpd`, where
/// the slice holds no NaN and no -0.0), 1.4-1.6x as fast as by their integer image on the
/// Xeon build machine, while every other quicksort of floats runs the integer kernel on their
/// image.
pub const FLOAT_ROWS: [(Workload, &str); 1] = [(Workload::Keys(KeyWidth::W64), "floats64")];

/// What one line of a profile speaks about: a workload and the keys it was timed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub workload: Workload,
    /// [`KeyMap::Unsigned`] for integer keys (random bit patterns, which stand for signed
    /// keys too), [`KeyMap::Float`] for floats (random bit patterns without NaN).
    pub keys: KeyMap,
}

impl Row {
    /// The row of `workload` timed on integer keys.
    pub const fn integers(workload: Workload) -> Row {
        Row {
            workload,
            keys: KeyMap::Unsigned,
        }
    }

    /// The row of `workload` timed on float keys.
    pub const fn floats(workload: Workload) -> Row {
        Row {
            workload,
            keys: KeyMap::Float,
        }
    }
}

/// Every row a profile can speak about, with its name in the file: the integer row of each
/// of [`WORKLOADS`], in that order (a workload's integer row has its index there), then
/// [`FLOAT_ROWS`].
pub fn rows() -> impl Iterator<Item = (Row, &'static str)> {
    let integers = WORKLOADS.iter().map(|&(w, name)| (Row::integers(w), name));
    integers.chain(FLOAT_ROWS.iter().map(|&(w, name)| (Row::floats(w), name)))
}

/// The position of `row` in [`rows`]; `None` for float keys of a workload without a float
/// row.
pub fn row_index(row: Row) -> Option<usize> {
    rows().position(|(r, _)| r == row)
}

/// The name of `row` in a profile file.
pub fn row_name(row: Row) -> &'static str {
    rows()
        .find(|(r, _)| *r == row)
        .map(|(_, name)| name)
        .expect("rows() lists every row a profile holds")
}

/// Measured crossovers for one machine.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Profile {
    /// The machine the profile was measured on ([`machine_key`]); `None` in a file written
    /// without one, which is then taken as this machine's.
    pub machine: Option<String>,
    /// Names of the backends that were usable when the profile was measured (without `auto`).
    pub backends: Vec<String>,
    /// The backends that were timed, among which the entries choose; empty when all of
    /// `backends` were.
    pub timed: Vec<String>,
    /// `(row, from length, fastest backend)`, each row's lengths increasing.
    pub entries: Vec<(Row, usize, String)>,
}

impl Profile {
    /// Reads a profile's text; `Err` says which line is wrong and why.
    pub fn parse(text: &str) -> Result<Profile, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, line)| (i + 1, line.split('#').next().unwrap_or("").trim()))
            .filter(|(_, line)| !line.is_empty());

        match lines.next() {
            Some((_, line)) if line == format!("{MAGIC} {VERSION}") => {}
            Some((n, line)) => {
                return Err(format!(
                    "line {n}: expected `{MAGIC} {VERSION}`, found `{line}`"
                ))
            }
            None => return Err("the file is empty".to_string()),
        }

        let mut profile = Profile::default();
        let mut saw_backends = false;
        for (n, line) in lines {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields[0] == "machine" {
                if profile.machine.is_some() || saw_backends {
                    return Err(format!(
                        "line {n}: one `machine` line, before the `backends` line"
                    ));
                }
                profile.machine = Some(fields[1..].join(" "));
                continue;
            }
            if fields[0] == "timed" {
                if !saw_backends || !profile.timed.is_empty() || !profile.entries.is_empty() {
                    return Err(format!(
                        "line {n}: one `timed` line, after `backends` and before the entries"
                    ));
                }
                if let Some(odd) = fields[1..]
                    .iter()
                    .find(|t| !profile.backends.contains(&t.to_string()))
                {
                    return Err(format!(
                        "line {n}: `{odd}` is not on the profile's `backends` line"
                    ));
                }
                profile.timed = fields[1..].iter().map(|s| s.to_string()).collect();
                continue;
            }
            if fields[0] == "backends" {
                if saw_backends {
                    return Err(format!("line {n}: a second `backends` line"));
                }
                saw_backends = true;
                profile.backends = fields[1..].iter().map(|s| s.to_string()).collect();
                continue;
            }
            let Some((row, _)) = rows().find(|(_, name)| *name == fields[0]) else {
                return Err(format!("line {n}: unknown workload `{}`", fields[0]));
            };
            let [_, from, backend] = fields[..] else {
                return Err(format!(
                    "line {n}: expected `workload from-length backend`, found `{line}`"
                ));
            };
            let from: usize = from
                .parse()
                .map_err(|e| format!("line {n}: `{from}` is not a length ({e})"))?;
            if !saw_backends {
                return Err(format!("line {n}: the `backends` line must come first"));
            }
            if backend != BUILT_IN && !profile.timed_names().any(|b| b == backend) {
                return Err(format!(
                    "line {n}: `{backend}` is not a backend the profile timed"
                ));
            }
            if let Some((r, last, _)) = profile.entries.last() {
                if *r == row && *last >= from {
                    return Err(format!(
                        "line {n}: lengths of `{}` must increase",
                        row_name(row)
                    ));
                }
            }
            profile.entries.push((row, from, backend.to_string()));
        }
        if !saw_backends {
            return Err("no `backends` line".to_string());
        }
        Ok(profile)
    }

    /// The profile as text that [`parse`](Self::parse) reads back.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{MAGIC} {VERSION}\n# measured by sortnet (`sortnet calibrate`, or `auto` once per \
             machine); delete this file to measure again\n"
        );
        if let Some(machine) = &self.machine {
            let _ = writeln!(text, "machine {machine}");
        }
        let _ = writeln!(text, "backends {}", self.backends.join(" "));
        if !self.timed.is_empty() {
            let _ = writeln!(text, "timed {}", self.timed.join(" "));
        }
        text.push_str("# workload  from-length  backend\n");
        for (row, from, backend) in &self.entries {
            let _ = writeln!(text, "{} {from} {backend}", row_name(*row));
        }
        text
    }

    /// The backends the entries choose among: `timed`, or all of `backends`.
    pub fn timed_names(&self) -> impl Iterator<Item = &str> {
        let list = if self.timed.is_empty() {
            &self.backends
        } else {
            &self.timed
        };
        list.iter().map(String::as_str)
    }

    /// Reads and parses the profile at `path`.
    pub fn load(path: &Path) -> Result<Profile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        Profile::parse(&text)
    }

    /// Writes the profile to `path`, creating its folder. The text goes to a temporary file
    /// in the same folder that is then renamed over `path`, so a reader never sees half a
    /// profile.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "profile".to_string());
        // Unique per process and per call, so that writers in other processes or threads
        // never share a temporary file; the rename is atomic, so the last writer wins whole.
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{file_name}.tmp-{}-{call}", std::process::id()));
        let written =
            std::fs::write(&tmp, self.to_text()).and_then(|()| std::fs::rename(&tmp, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// The backend measured fastest for `row` at `len` elements, if the profile has one.
    pub fn fastest(&self, row: Row, len: usize) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|(r, from, _)| *r == row && *from <= len)
            .map(|(_, _, backend)| backend.as_str())
            .filter(|backend| *backend != BUILT_IN)
    }
}

/// What identifies the machine a profile is measured on, as one line of text: the CPU model,
/// the L2 size read at run time, the number of rayon threads the sorts run on, and this
/// version and build (debug or not) of sortnet, whose sorts the profile timed.
pub fn machine_key() -> String {
    let model = cpu_model().unwrap_or_else(|| std::env::consts::ARCH.to_string());
    // A debug build's timings say nothing about a release build's: keep their files apart.
    let build = if cfg!(debug_assertions) { " debug" } else { "" };
    let key = format!(
        "{model}; l2 {} KiB; threads {}; sortnet {}{build}",
        crate::keys::cache::l2_bytes() >> 10,
        rayon::current_num_threads(),
        env!("CARGO_PKG_VERSION")
    );
    // One line, no comment character, single spaces: it must read back as written.
    key.replace('#', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The CPU's model name from `/proc/cpuinfo` (Linux), `None` elsewhere.
fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info
        .lines()
        .find(|l| l.starts_with("model name") || l.starts_with("CPU part"))?;
    Some(line.split(':').nth(1)?.trim().to_string())
}

/// Where the profile is: a file the user named, or one in the cache folder for this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A file the user named ([`ProfileChoice::File`]): read as it is (whatever machine it
    /// names), never measured into.
    Named(PathBuf),
    /// The cache folder's file for this machine and set of backends ([`cache_path`]): `auto`
    /// measures into it when it is missing, stale, foreign or broken.
    Cache(PathBuf),
}

impl Location {
    /// The path of the file.
    pub fn path(&self) -> &Path {
        match self {
            Location::Named(p) | Location::Cache(p) => p,
        }
    }
}

/// The file name in the cache folder for `machine` (see [`machine_key`]) and the usable
/// `backends`: `profile-` and 16 hex digits of a hash (FNV-1a) of both.
pub fn cache_file_name(machine: &str, backends: &[&str]) -> String {
    let mut names = backends.to_vec();
    names.sort_unstable();
    let text = format!("{machine}\n{}", names.join(" "));
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    format!("profile-{hash:016x}.txt")
}

/// The profile for this machine and `backends` in the user's cache folder:
/// `$XDG_CACHE_HOME/sortnet/<file>`, else `$HOME/.cache/sortnet/<file>`
/// ([`cache_file_name`]); `None` when no cache folder can be named.
pub fn cache_path(backends: &[&str]) -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v: &std::ffi::OsString| !v.is_empty());
    // The XDG spec says relative paths in XDG_* variables are invalid and to be ignored.
    let cache = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(
        cache
            .join("sortnet")
            .join(cache_file_name(&machine_key(), backends)),
    )
}

/// Where the profile for `backends` is read from and `sortnet calibrate` writes it under
/// `choice`: the file it names, else [`cache_path`]. `None` for the choices that read no
/// file ([`ProfileChoice::BuiltIn`], [`ProfileChoice::Given`]) and when no cache folder can
/// be named.
pub fn location(choice: &ProfileChoice, backends: &[&str]) -> Option<Location> {
    match choice {
        ProfileChoice::BuiltIn | ProfileChoice::Given(_) => None,
        ProfileChoice::File(path) => Some(Location::Named(path.clone())),
        ProfileChoice::Saved | ProfileChoice::MeasureOnce => {
            cache_path(backends).map(Location::Cache)
        }
    }
}

/// Which calibration profile an `auto` follows.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum ProfileChoice {
    /// What ships: the profile for this machine in the cache folder ([`location`]), if
    /// `sortnet calibrate` (or a [`MeasureOnce`](Self::MeasureOnce) process) saved one;
    /// else the built-in rules. Never measures, never writes: a first call costs what any
    /// call costs.
    #[default]
    Saved,
    /// As [`Saved`](Self::Saved), but when the cache folder has no profile for this machine
    /// (or a stale, foreign or broken one), `auto` measures a short one the first time it
    /// routes a call (1.3-2.5 s on the 2-core Xeon build machine, about 110 MB more memory
    /// meanwhile; see [`calibration`](crate::tuning::calibration)), saves it and follows it, and
    /// later processes read it. Never under Miri, and not when the first call comes from a
    /// rayon worker thread (then a saved profile is read, if any).
    MeasureOnce,
    /// This file, read as it is (whatever machine it names) and never measured into;
    /// `SORTNET_PROFILE=<path>` in [`Options::from_env`](super::Options::from_env).
    File(PathBuf),
    /// None: the built-in rules alone, nothing read or measured (`SORTNET_PROFILE=0`).
    BuiltIn,
    /// This profile, as given (entries naming backends that are not in the registry are
    /// ignored).
    Given(Profile),
}

/// What happened to the profile when this process first looked for it.
#[derive(Debug, Clone)]
pub enum State {
    /// Switched off with `SORTNET_PROFILE=0`, or no cache folder to look in.
    Off,
    /// No file at the path: `auto` uses the built-in thresholds.
    Missing(PathBuf),
    /// The file did not parse (reason given): ignored, built-in thresholds used.
    Corrupt(PathBuf, String),
    /// Measured with a different set of backends than this process has: stale, ignored.
    Stale(PathBuf, Vec<String>),
    /// In the cache folder, but measured on another machine (its `machine` line given):
    /// ignored.
    Foreign(PathBuf, String),
    /// Measured by `auto` in this process, as none for this machine was there
    /// ([`ProfileChoice::MeasureOnce`](super::ProfileChoice)), and saved at the path
    /// (`Err`: why it could not be; the next process measures again).
    Measured(PathBuf, Profile, Result<(), String>),
    /// In use by `auto`.
    Loaded(PathBuf, Profile),
    /// Handed to the registry by the program ([`ProfileChoice::Given`](super::ProfileChoice)),
    /// not read from a file: in use by `auto`.
    Given(Profile),
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            State::Off => write!(
                f,
                "off (built-in thresholds only: SORTNET_PROFILE=0, --no-profile, \
                 ProfileChoice::BuiltIn or no cache folder)"
            ),
            State::Missing(p) => write!(
                f,
                "none at {}; auto uses the built-in thresholds (run `sortnet calibrate`)",
                p.display()
            ),
            State::Corrupt(p, why) => write!(
                f,
                "ignored {}: {why}; run `sortnet calibrate` to rewrite it",
                p.display()
            ),
            State::Stale(p, names) => write!(
                f,
                "ignored {}: measured with backends [{}], not the ones usable now; run \
                 `sortnet calibrate` again",
                p.display(),
                names.join(" ")
            ),
            State::Foreign(p, machine) => write!(
                f,
                "ignored {}: measured on another machine ({machine})",
                p.display()
            ),
            State::Loaded(p, _) => write!(f, "in use: {}", p.display()),
            State::Measured(p, _, Ok(())) => {
                write!(
                    f,
                    "measured by this process, in use, saved to {}",
                    p.display()
                )
            }
            State::Measured(p, _, Err(why)) => write!(
                f,
                "measured by this process, in use; not saved to {}: {why}",
                p.display()
            ),
            State::Given(_) => write!(f, "in use: given by the program"),
        }
    }
}

impl State {
    /// Looks for the profile at `choice`'s [`location`] and checks it against `backends`, the names
    /// of the backends usable now (without `auto`). A corrupt file gives one warning on
    /// stderr and is otherwise ignored: a broken cache file must never stop a program that
    /// sorts.
    pub fn load(choice: &ProfileChoice, backends: &[&str]) -> State {
        match location(choice, backends) {
            Some(at) => State::load_at(&at, backends),
            None => State::Off,
        }
    }

    /// As [`load`](Self::load), from `at`; a file in the cache folder must also name this
    /// machine ([`machine_key`]) if it names one.
    pub fn load_at(at: &Location, backends: &[&str]) -> State {
        let state = State::load_from(at.path().to_path_buf(), backends);
        match (at, state) {
            (Location::Cache(_), State::Loaded(path, profile)) => {
                let here = machine_key();
                match &profile.machine {
                    Some(there) if *there != here => State::Foreign(path, there.clone()),
                    _ => State::Loaded(path, profile),
                }
            }
            (_, state) => state,
        }
    }

    /// As [`load`](Self::load), from the file at `path`.
    pub fn load_from(path: PathBuf, backends: &[&str]) -> State {
        if !path.exists() {
            return State::Missing(path);
        }
        match Profile::load(&path) {
            Err(why) => {
                eprintln!(
                    "sortnet: warning: ignoring calibration profile {}: {why}; run `sortnet \
                     calibrate` to rewrite it",
                    path.display()
                );
                State::Corrupt(path, why)
            }
            Ok(profile) => {
                let mut now = backends.to_vec();
                let mut then: Vec<&str> = profile.backends.iter().map(String::as_str).collect();
                now.sort_unstable();
                then.sort_unstable();
                if now == then {
                    State::Loaded(path, profile)
                } else {
                    State::Stale(path, profile.backends.clone())
                }
            }
        }
    }

    /// The profile in use, if any.
    pub fn profile(&self) -> Option<&Profile> {
        match self {
            State::Loaded(_, profile) | State::Given(profile) | State::Measured(_, profile, _) => {
                Some(profile)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Profile {
        Profile {
            machine: Some("Some CPU @ 2.0GHz; l2 1024 KiB; threads 2; sortnet 0.1.0".into()),
            backends: vec!["scalar".into(), "avx2".into(), "radix".into()],
            timed: vec!["avx2".into(), "radix".into()],
            entries: vec![
                (Row::integers(Workload::Nibbles), 0, "avx2".into()),
                (
                    Row::integers(Workload::Keys(KeyWidth::W32)),
                    0,
                    "avx2".into(),
                ),
                (
                    Row::integers(Workload::Keys(KeyWidth::W32)),
                    1448,
                    "radix".into(),
                ),
                (
                    Row::integers(Workload::Keys(KeyWidth::W32)),
                    1 << 21,
                    BUILT_IN.into(),
                ),
                (
                    Row::floats(Workload::Keys(KeyWidth::W64)),
                    64,
                    "avx2".into(),
                ),
                (
                    Row::integers(Workload::Pairs(KeyWidth::W64)),
                    0,
                    "radix".into(),
                ),
            ],
        }
    }

    #[test]
    fn a_profile_without_machine_or_timed_lines_still_reads() {
        let p =
            Profile::parse("sortnet-profile 1\nbackends scalar radix\nkeys32 0 scalar\n").unwrap();
        assert_eq!(p.machine, None);
        assert_eq!(p.timed_names().collect::<Vec<_>>(), ["scalar", "radix"]);
    }

    #[test]
    fn the_cache_file_is_keyed_by_machine_and_backends() {
        let a = cache_file_name("CPU A; l2 1024 KiB; threads 2", &["radix", "avx2"]);
        // The order of the backends does not matter; the machine and the set do.
        assert_eq!(
            a,
            cache_file_name("CPU A; l2 1024 KiB; threads 2", &["avx2", "radix"])
        );
        assert_ne!(
            a,
            cache_file_name("CPU A; l2 1024 KiB; threads 16", &["avx2", "radix"])
        );
        assert_ne!(
            a,
            cache_file_name("CPU B; l2 1024 KiB; threads 2", &["avx2", "radix"])
        );
        assert_ne!(
            a,
            cache_file_name(
                "CPU A; l2 1024 KiB; threads 2",
                &["avx2", "radix", "vulkan-radix"]
            )
        );
        assert!(
            a.starts_with("profile-") && a.ends_with(".txt") && a.len() == 28,
            "{a}"
        );
        // This machine's key is one line that reads back from a profile unchanged.
        let here = machine_key();
        assert!(
            here.contains("threads") && here.contains("sortnet"),
            "{here}"
        );
        let p = Profile {
            machine: Some(here.clone()),
            backends: vec!["radix".into()],
            ..Profile::default()
        };
        assert_eq!(Profile::parse(&p.to_text()).unwrap().machine, Some(here));
    }

    #[test]
    fn a_cache_file_from_another_machine_is_foreign() {
        let dir = std::env::temp_dir().join(format!("sortnet-foreign-{}", std::process::id()));
        let path = dir.join("profile.txt");
        let mut p = sample();
        p.save(&path).unwrap();
        let names = ["scalar", "avx2", "radix"];
        // In the cache folder another machine's file is ignored; named by the user, used.
        let cache = State::load_at(&Location::Cache(path.clone()), &names);
        assert!(matches!(cache, State::Foreign(..)), "{cache}");
        let named = State::load_at(&Location::Named(path.clone()), &names);
        assert!(matches!(named, State::Loaded(..)), "{named}");
        p.machine = Some(machine_key());
        p.save(&path).unwrap();
        let cache = State::load_at(&Location::Cache(path.clone()), &names);
        assert!(matches!(cache, State::Loaded(..)), "{cache}");
        // Another set of backends: stale.
        let other = State::load_at(&Location::Cache(path.clone()), &["scalar", "radix"]);
        assert!(matches!(other, State::Stale(..)), "{other}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn concurrent_writers_leave_a_whole_profile() {
        let dir = std::env::temp_dir().join(format!("sortnet-writers-{}", std::process::id()));
        let path = dir.join("profile.txt");
        sample().save(&path).unwrap();
        let profiles: Vec<Profile> = (0..4)
            .map(|i| {
                let mut p = sample();
                p.entries.push((
                    Row::integers(Workload::Keys(KeyWidth::W64)),
                    100 + i,
                    "avx2".into(),
                ));
                p
            })
            .collect();
        std::thread::scope(|s| {
            for p in &profiles {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..50 {
                        p.save(path).unwrap();
                    }
                });
            }
            // A reader between the renames sees one writer's profile whole, never a mix.
            for _ in 0..200 {
                let read = Profile::load(&path).unwrap();
                assert!(read == sample() || profiles.contains(&read), "{read:?}");
            }
        });
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(files.len(), 1, "no temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn text_roundtrips() {
        let p = sample();
        assert_eq!(Profile::parse(&p.to_text()), Ok(p));
    }

    #[test]
    fn save_then_load_roundtrips_and_leaves_no_temp_file() {
        let dir = std::env::temp_dir().join(format!("sortnet-profile-test-{}", std::process::id()));
        let path = dir.join("nested").join("profile.txt");
        let p = sample();
        p.save(&path).unwrap();
        assert_eq!(Profile::load(&path), Ok(p));
        let files: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(files.len(), 1, "only profile.txt remains");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fastest_takes_the_last_entry_at_or_below_the_length() {
        let p = sample();
        let k32 = Row::integers(Workload::Keys(KeyWidth::W32));
        assert_eq!(p.fastest(k32, 0), Some("avx2"));
        assert_eq!(p.fastest(k32, 1447), Some("avx2"));
        assert_eq!(p.fastest(k32, 1448), Some("radix"));
        assert_eq!(p.fastest(k32, 1 << 21), None, "past the measured sizes");
        // Float keys of 64 bits have a row of their own, apart from the integers'.
        let k64 = Workload::Keys(KeyWidth::W64);
        assert_eq!(p.fastest(Row::integers(k64), 100), None);
        assert_eq!(p.fastest(Row::floats(k64), 63), None);
        assert_eq!(p.fastest(Row::floats(k64), 64), Some("avx2"));
    }

    #[test]
    fn every_row_has_its_own_name_and_index() {
        let names: Vec<&str> = rows().map(|(_, name)| name).collect();
        assert_eq!(names.len(), WORKLOADS.len() + FLOAT_ROWS.len());
        for (i, (row, name)) in rows().enumerate() {
            assert_eq!(row_index(row), Some(i));
            assert_eq!(row_name(row), name);
            assert_eq!(names.iter().filter(|n| **n == name).count(), 1);
        }
        assert_eq!(row_index(Row::floats(Workload::Keys(KeyWidth::W32))), None);
        assert!(row_index(Row::floats(Workload::Keys(KeyWidth::W64))).is_some());
    }

    #[test]
    fn corrupt_profiles_are_errors_that_name_the_line() {
        let good = sample().to_text();
        let cases = [
            ("", "empty"),
            ("garbage\n", "line 1"),
            ("sortnet-profile 2\nbackends a\n", "line 1"),
            ("sortnet-profile 1\n", "no `backends`"),
            (
                "sortnet-profile 1\nnibbles 0 scalar\nbackends scalar\n",
                "line 2",
            ),
            (
                "sortnet-profile 1\nbackends scalar\nnibbles x scalar\n",
                "line 3",
            ),
            (
                "sortnet-profile 1\nbackends scalar\nnibbles 0 avx2\n",
                "line 3",
            ),
            (
                "sortnet-profile 1\nbackends scalar\nwords 0 scalar\n",
                "unknown workload",
            ),
            ("sortnet-profile 1\nbackends scalar\nnibbles 0\n", "line 3"),
            (
                "sortnet-profile 1\nbackends scalar\nnibbles 9 scalar\nnibbles 9 scalar\n",
                "increase",
            ),
            (
                "sortnet-profile 1\nbackends scalar avx2\ntimed scalar\nnibbles 0 avx2\n",
                "line 4",
            ),
            ("sortnet-profile 1\nbackends scalar\ntimed avx2\n", "line 3"),
            ("sortnet-profile 1\nbackends scalar\nmachine x\n", "line 3"),
        ];
        for (text, expect) in cases {
            let err = Profile::parse(text).unwrap_err();
            assert!(err.contains(expect), "{text:?}: {err}");
        }
        // Truncating a good profile anywhere never panics.
        for cut in 0..good.len() {
            let _ = Profile::parse(&good[..cut]);
        }
    }
}
