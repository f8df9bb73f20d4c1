//! The calibration profile: which backend measured fastest on this machine, per workload and
//! length, written by `sortnet calibrate` and read by `auto`.
//!
//! The built-in thresholds are measured on one machine; a profile measured on this one wins
//! over them when it exists and was measured with the same set of backends (a profile from
//! before a GPU driver was installed, or with `SORTNET_NO_GPU` set differently, is stale and
//! ignored). A profile that does not parse is ignored with one warning on stderr: a broken
//! cache file must never stop a program that sorts.
//!
//! Where it lives: `$SORTNET_PROFILE` when that is a path, else
//! `$XDG_CACHE_HOME/sortnet/profile.txt`, else `$HOME/.cache/sortnet/profile.txt`.
//! `SORTNET_PROFILE=0` switches profiles off.
//!
//! The format is plain text, one fact per line, `#` starts a comment:
//!
//! ```text
//! sortnet-profile 1
//! backends scalar avx2 radix
//! # workload  from-length  backend
//! nibbles 0 avx2
//! keys32 0 avx2
//! keys32 1448 radix
//! ```
//!
//! A `workload from backend` line says that `backend` is the fastest for `workload` from
//! `from` elements up to the next line's `from`. The keys timed are integers (random bit
//! patterns); `auto` applies a profile to integer keys only and keeps the built-in
//! crossovers for `f32` and `f64`, which radix sorts with one digit more.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::sort_backend::Workload;
use crate::keys::key::KeyWidth;

/// The first line of every profile; the number is the format version.
const MAGIC: &str = "sortnet-profile";
/// The format version this code reads and writes.
const VERSION: u32 = 1;

/// Every workload a profile can speak about, with its name in the file.
pub const WORKLOADS: [(Workload, &str); 5] = [
    (Workload::Nibbles, "nibbles"),
    (Workload::Keys(KeyWidth::W32), "keys32"),
    (Workload::Keys(KeyWidth::W64), "keys64"),
    (Workload::Pairs(KeyWidth::W32), "pairs32"),
    (Workload::Pairs(KeyWidth::W64), "pairs64"),
];

/// The name of `workload` in a profile file.
pub fn workload_name(workload: Workload) -> &'static str {
    WORKLOADS
        .iter()
        .find(|(w, _)| *w == workload)
        .map(|(_, name)| *name)
        .expect("WORKLOADS lists every workload")
}

/// Measured crossovers for one machine.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Profile {
    /// Names of the backends that were usable when the profile was measured (without `auto`).
    pub backends: Vec<String>,
    /// `(workload, from length, fastest backend)`, sorted by workload then length.
    pub entries: Vec<(Workload, usize, String)>,
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
            if fields[0] == "backends" {
                if saw_backends {
                    return Err(format!("line {n}: a second `backends` line"));
                }
                saw_backends = true;
                profile.backends = fields[1..].iter().map(|s| s.to_string()).collect();
                continue;
            }
            let Some(&(workload, _)) = WORKLOADS.iter().find(|(_, name)| *name == fields[0]) else {
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
            if !profile.backends.iter().any(|b| b == backend) {
                return Err(format!(
                    "line {n}: `{backend}` is not on the profile's `backends` line"
                ));
            }
            if let Some((w, last, _)) = profile.entries.last() {
                if *w == workload && *last >= from {
                    return Err(format!(
                        "line {n}: lengths of `{}` must increase",
                        workload_name(workload)
                    ));
                }
            }
            profile.entries.push((workload, from, backend.to_string()));
        }
        if !saw_backends {
            return Err("no `backends` line".to_string());
        }
        Ok(profile)
    }

    /// The profile as text that [`parse`](Self::parse) reads back.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{MAGIC} {VERSION}\n# written by `sortnet calibrate`; delete this file to go back to \
             the built-in thresholds\nbackends {}\n# workload  from-length  backend\n",
            self.backends.join(" ")
        );
        for (workload, from, backend) in &self.entries {
            let _ = writeln!(text, "{} {from} {backend}", workload_name(*workload));
        }
        text
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
        let tmp = dir.join(format!(".{file_name}.tmp-{}", std::process::id()));
        let written =
            std::fs::write(&tmp, self.to_text()).and_then(|()| std::fs::rename(&tmp, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// The backend measured fastest for `workload` at `len` elements, if the profile has one.
    pub fn fastest(&self, workload: Workload, len: usize) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|(w, from, _)| *w == workload && *from <= len)
            .map(|(_, _, backend)| backend.as_str())
    }
}

/// Where the profile is read from and `sortnet calibrate` writes it: `$SORTNET_PROFILE`
/// when it is a path, else `$XDG_CACHE_HOME/sortnet/profile.txt`, else
/// `$HOME/.cache/sortnet/profile.txt`. `None` when profiles are switched off
/// (`SORTNET_PROFILE=0`) or no cache folder can be named.
pub fn default_path() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(p) = var("SORTNET_PROFILE") {
        if p == "0" {
            return None;
        }
        return Some(PathBuf::from(p));
    }
    // The XDG spec says relative paths in XDG_* variables are invalid and to be ignored.
    let cache = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(cache.join("sortnet").join("profile.txt"))
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
    /// In use by `auto`.
    Loaded(PathBuf, Profile),
    /// Handed to the registry by the program ([`ProfileChoice::Given`](super::ProfileChoice)),
    /// not read from a file: in use by `auto`.
    Given(Profile),
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            State::Off => write!(f, "off (SORTNET_PROFILE=0 or no cache folder)"),
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
            State::Loaded(p, _) => write!(f, "in use: {}", p.display()),
            State::Given(_) => write!(f, "in use: given by the program"),
        }
    }
}

impl State {
    /// Looks for the profile at [`default_path`] and checks it against `backends`, the names
    /// of the backends usable now (without `auto`). A corrupt file gives one warning on
    /// stderr and is otherwise ignored: a broken cache file must never stop a program that
    /// sorts.
    pub fn load(backends: &[&str]) -> State {
        match default_path() {
            Some(path) => State::load_from(path, backends),
            None => State::Off,
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
            State::Loaded(_, profile) | State::Given(profile) => Some(profile),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Profile {
        Profile {
            backends: vec!["scalar".into(), "avx2".into(), "radix".into()],
            entries: vec![
                (Workload::Nibbles, 0, "avx2".into()),
                (Workload::Keys(KeyWidth::W32), 0, "avx2".into()),
                (Workload::Keys(KeyWidth::W32), 1448, "radix".into()),
                (Workload::Pairs(KeyWidth::W64), 0, "radix".into()),
            ],
        }
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
        let k32 = Workload::Keys(KeyWidth::W32);
        assert_eq!(p.fastest(k32, 0), Some("avx2"));
        assert_eq!(p.fastest(k32, 1447), Some("avx2"));
        assert_eq!(p.fastest(k32, 1448), Some("radix"));
        assert_eq!(p.fastest(Workload::Keys(KeyWidth::W64), 10), None);
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
