//! [`Options`]: what a [`Registry`](super::Registry) is built from, and the one place the
//! library reads its environment variables ([`Options::from_env`]).

use std::ffi::OsString;
use std::sync::Once;

use super::profile::ProfileChoice;

/// Which backends a [`Registry`](super::Registry) holds, which calibration profile its
/// `auto` follows, which backend stands in for `auto`, and how much GPU memory its GPU
/// backends may take.
///
/// `Options::default()` is what ships: every backend the machine can run, the profile saved
/// for this machine if there is one ([`ProfileChoice::Saved`]; nothing is measured unless
/// asked for), `auto` itself, no GPU memory cap. [`Options::from_env`] is the default with
/// the user's environment variables applied; the process-wide registry uses it (unless
/// [`configure`](super::configure)d). A registry built from typed `Options` follows those
/// alone and reads no environment variable.
///
/// ```
/// use sortnet::backend::{Options, ProfileChoice, Registry};
/// // What a CPU without AVX-512 and a machine without a GPU see, in this process.
/// // Built-in thresholds only: nothing is read or measured.
/// let registry = Registry::new(&Options {
///     avx512: false,
///     gpu: false,
///     profile: ProfileChoice::BuiltIn,
///     ..Options::default()
/// });
/// assert!(registry.by_name("avx512").is_none());
/// let mut keys = vec![3u32, 1, 2];
/// registry.auto().sort(&mut keys)?;
/// assert_eq!(keys, [1, 2, 3]);
/// # Ok::<(), sortnet::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Offer the `avx512` backend where the CPU has the AVX-512 subsets it uses
    /// (`SORTNET_NO_AVX512`).
    pub avx512: bool,
    /// Offer the Vulkan backends where a device exists and the `gpu` feature is built
    /// (`SORTNET_NO_GPU`).
    pub gpu: bool,
    /// The calibration profile `auto` follows before its built-in rules
    /// (`SORTNET_PROFILE`).
    pub profile: ProfileChoice,
    /// The backend, by its stable name, that the registry's
    /// [`auto`](super::Registry::auto) returns instead of `auto` (`SORTNET_BACKEND`); a name
    /// the registry does not hold is reported once on stderr and `auto` stays. `None`:
    /// `auto`.
    pub backend: Option<String>,
    /// The most bytes of device memory the GPU backends allocate for their own buffers
    /// (`SORTNET_GPU_MEMORY_CAP`); an allocation past it is an [`Error::Gpu`] before Vulkan
    /// is asked, so that failure paths can be tested on any device. `None`: no cap. A
    /// registry whose cap differs from that of the shared context (`gpu::context::context()`,
    /// which takes [`Options::from_env`]'s) runs its GPU backends on a context of its own,
    /// made once per cap and kept for the process.
    ///
    /// [`Error::Gpu`]: crate::Error::Gpu
    pub gpu_memory_cap: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            avx512: true,
            gpu: true,
            profile: ProfileChoice::Saved,
            backend: None,
            gpu_memory_cap: None,
        }
    }
}

impl Options {
    /// The default with the environment variables a user sets applied; the only place the
    /// library reads them (each once per call; the process-wide registry calls it once).
    /// Unset and empty variables leave the default.
    ///
    /// | variable | field | value |
    /// |---|---|---|
    /// | `SORTNET_NO_AVX512` | [`avx512`](Self::avx512) | anything but `0`: false |
    /// | `SORTNET_NO_GPU` | [`gpu`](Self::gpu) | anything but `0`: false |
    /// | `SORTNET_PROFILE` | [`profile`](Self::profile) | a path: [`ProfileChoice::File`]; `0`: [`ProfileChoice::BuiltIn`] |
    /// | `SORTNET_BACKEND` | [`backend`](Self::backend) | a backend's name |
    /// | `SORTNET_GPU_MEMORY_CAP` | [`gpu_memory_cap`](Self::gpu_memory_cap) | bytes, with a `k`, `m` or `g` suffix (powers of 1024) |
    ///
    /// A value that cannot be used (a cap that is not a size, a backend name that is not
    /// UTF-8) is reported once per process on stderr and leaves the default.
    pub fn from_env() -> Self {
        let (options, problems) = Self::from_vars(|name| std::env::var_os(name));
        static REPORTED: Once = Once::new();
        REPORTED.call_once(|| {
            for problem in &problems {
                eprintln!("sortnet: {problem}");
            }
        });
        options
    }

    /// [`from_env`](Self::from_env) over `var` (a variable's value, `None` when unset),
    /// with what cannot be used, one sentence each.
    fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> (Self, Vec<String>) {
        let var = |name| var(name).filter(|v| !v.is_empty());
        let flag = |name| var(name).is_some_and(|v| v != "0");
        let mut problems = Vec::new();
        let profile = match var("SORTNET_PROFILE") {
            Some(v) if v == "0" => ProfileChoice::BuiltIn,
            Some(path) => ProfileChoice::File(path.into()),
            None => ProfileChoice::Saved,
        };
        let backend = var("SORTNET_BACKEND").and_then(|v| match v.into_string() {
            Ok(name) => Some(name),
            Err(v) => {
                problems.push(format!(
                    "SORTNET_BACKEND={} is not a backend name (not UTF-8); using auto",
                    v.to_string_lossy()
                ));
                None
            }
        });
        let gpu_memory_cap = var("SORTNET_GPU_MEMORY_CAP").and_then(|v| {
            let cap = v.to_str().and_then(parse_bytes);
            if cap.is_none() {
                problems.push(format!(
                    "SORTNET_GPU_MEMORY_CAP={} is not a size in bytes (a number, optionally \
                     with a k, m or g suffix); no cap",
                    v.to_string_lossy()
                ));
            }
            cap
        });
        let options = Options {
            avx512: !flag("SORTNET_NO_AVX512"),
            gpu: !flag("SORTNET_NO_GPU"),
            profile,
            backend,
            gpu_memory_cap,
        };
        (options, problems)
    }
}

/// Bytes, optionally with a `k`, `m` or `g` suffix (powers of 1024, either case).
fn parse_bytes(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_lowercase();
    let (digits, scale) = match text.chars().last()? {
        'k' => (&text[..text.len() - 1], 1u64 << 10),
        'm' => (&text[..text.len() - 1], 1 << 20),
        'g' => (&text[..text.len() - 1], 1 << 30),
        _ => (&text[..], 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// `from_vars` over these variables alone.
    fn from(vars: &[(&str, &str)]) -> (Options, Vec<String>) {
        Options::from_vars(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn memory_cap_parses_suffixes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("64k"), Some(64 << 10));
        assert_eq!(parse_bytes("3M"), Some(3 << 20));
        assert_eq!(parse_bytes(" 2g "), Some(2 << 30));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes(""), None);
    }

    #[test]
    fn no_variables_give_the_default() {
        let (options, problems) = from(&[]);
        assert_eq!(options, Options::default());
        assert!(problems.is_empty());
        // Empty values count as unset.
        let names = [
            "SORTNET_NO_AVX512",
            "SORTNET_NO_GPU",
            "SORTNET_PROFILE",
            "SORTNET_BACKEND",
            "SORTNET_GPU_MEMORY_CAP",
        ];
        let empty: Vec<(&str, &str)> = names.iter().map(|&n| (n, "")).collect();
        assert_eq!(from(&empty), (Options::default(), vec![]));
    }

    #[test]
    fn every_variable_sets_its_field() {
        let (options, problems) = from(&[
            ("SORTNET_NO_AVX512", "1"),
            ("SORTNET_NO_GPU", "yes"),
            ("SORTNET_PROFILE", "/tmp/profile.txt"),
            ("SORTNET_BACKEND", "radix"),
            ("SORTNET_GPU_MEMORY_CAP", "3m"),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(!options.avx512 && !options.gpu);
        assert_eq!(
            options.profile,
            ProfileChoice::File(PathBuf::from("/tmp/profile.txt"))
        );
        assert_eq!(options.backend.as_deref(), Some("radix"));
        assert_eq!(options.gpu_memory_cap, Some(3 << 20));
        // `0` switches nothing off, and switches profiles off.
        let (options, _) = from(&[
            ("SORTNET_NO_AVX512", "0"),
            ("SORTNET_NO_GPU", "0"),
            ("SORTNET_PROFILE", "0"),
        ]);
        assert!(options.avx512 && options.gpu);
        assert_eq!(options.profile, ProfileChoice::BuiltIn);
    }

    #[test]
    fn a_cap_that_is_not_a_size_is_reported_and_leaves_no_cap() {
        let (options, problems) = from(&[("SORTNET_GPU_MEMORY_CAP", "lots")]);
        assert_eq!(options.gpu_memory_cap, None);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].contains("SORTNET_GPU_MEMORY_CAP=lots"),
            "{problems:?}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_backend_name_that_is_not_utf8_is_reported_and_leaves_auto() {
        use std::os::unix::ffi::OsStringExt;
        let (options, problems) = Options::from_vars(|name| {
            (name == "SORTNET_BACKEND").then(|| OsString::from_vec(vec![b'r', 0xff]))
        });
        assert_eq!(options.backend, None);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("SORTNET_BACKEND"), "{problems:?}");
    }
}
