//! The registry: the backends usable on this machine under some [`Options`], and the `auto`
//! over them. One registry, built from the environment on first use, serves the functions
//! of [`backend`](super); programs build others with [`Registry::new`].

use std::sync::OnceLock;

use super::auto::Auto;
use super::cpu;
use super::profile::{Profile, State};
use super::sort_backend::{SortBackend, Workload};
use crate::keys::key::KeyMap;

/// Which backends a [`Registry`] holds and which calibration profile its `auto` follows.
///
/// `Options::default()` is what ships: every backend the machine can run and the profile
/// saved by `sortnet calibrate`. [`Options::from_env`] is the default with the user's
/// switches applied; the process-wide registry uses it.
///
/// ```
/// use sortnet::backend::{Options, Registry};
/// // What a CPU without AVX-512 and a machine without a GPU see, in this process.
/// let registry = Registry::new(&Options { avx512: false, gpu: false, ..Options::default() });
/// assert!(registry.by_name("avx512").is_none());
/// let mut keys = vec![3u32, 1, 2];
/// registry.auto().sort(&mut keys)?;
/// assert_eq!(keys, [1, 2, 3]);
/// # Ok::<(), sortnet::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    /// Offer the `avx512` backend where the CPU has the AVX-512 subsets it uses.
    /// `SORTNET_NO_AVX512=1` sets it to false.
    pub avx512: bool,
    /// Offer the Vulkan backends where a device exists (and the `gpu` feature is built).
    /// `SORTNET_NO_GPU=1` sets it to false.
    pub gpu: bool,
    /// The calibration profile `auto` follows before its built-in thresholds.
    pub profile: ProfileChoice,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            avx512: true,
            gpu: true,
            profile: ProfileChoice::Saved,
        }
    }
}

impl Options {
    /// The default with the environment's switches applied: `SORTNET_NO_AVX512=1` and
    /// `SORTNET_NO_GPU=1` (any value but empty or `0`) leave those backends out;
    /// `SORTNET_PROFILE` says where the saved profile is (see [`ProfileChoice::Saved`]).
    pub fn from_env() -> Self {
        Options {
            avx512: !env_flag("SORTNET_NO_AVX512"),
            gpu: !env_flag("SORTNET_NO_GPU"),
            profile: ProfileChoice::Saved,
        }
    }
}

/// Which calibration profile an `auto` follows.
#[derive(Debug, Clone, Default)]
pub enum ProfileChoice {
    /// The file `sortnet calibrate` saved, at [`profile::default_path`](super::profile::default_path)
    /// (`$SORTNET_PROFILE`, else the user's cache folder; `SORTNET_PROFILE=0` for none). A
    /// file measured with another set of backends is stale and ignored, as is one that does
    /// not parse.
    #[default]
    Saved,
    /// None: the built-in thresholds alone.
    BuiltIn,
    /// This profile, as given (entries naming backends that are not in the registry are
    /// ignored).
    Given(Profile),
}

/// The backends usable under some [`Options`], `auto` included.
pub struct Registry {
    backends: Vec<&'static dyn SortBackend>,
    auto: Auto,
    profile: State,
}

impl Registry {
    /// Detects the backends `options` allows (CPU features, Vulkan devices; detection itself
    /// happens once per process) and builds the `auto` over them.
    pub fn new(options: &Options) -> Registry {
        #[cfg_attr(not(feature = "gpu"), allow(unused_mut))]
        let mut backends = cpu::backends(options.avx512);
        #[cfg(feature = "gpu")]
        if options.gpu {
            backends.extend(crate::gpu::backends());
        }
        let names: Vec<&str> = backends.iter().map(|b| b.name()).collect();
        let profile = match &options.profile {
            ProfileChoice::Saved => State::load(&names),
            ProfileChoice::BuiltIn => State::Off,
            ProfileChoice::Given(profile) => State::Given(profile.clone()),
        };
        let auto = Auto::new(&backends, profile.profile());
        Registry {
            backends,
            auto,
            profile,
        }
    }

    /// Every backend of this registry, in a fixed order (CPU first, then GPU), `auto` last.
    pub fn available(&self) -> Vec<&(dyn SortBackend + 'static)> {
        let mut list: Vec<&(dyn SortBackend + 'static)> = self.backends.to_vec();
        list.push(&self.auto);
        list
    }

    /// The backend with this stable name, if this registry has it (`"auto"` included).
    pub fn by_name(&self, name: &str) -> Option<&(dyn SortBackend + 'static)> {
        self.available().into_iter().find(|b| b.name() == name)
    }

    /// The `auto` of this registry (without `SORTNET_BACKEND`'s override).
    pub fn auto(&self) -> &(dyn SortBackend + 'static) {
        &self.auto
    }

    /// The backend this registry's `auto` sends a call of `workload` with `len` elements
    /// to, for keys that map to unsigned order by `map` (see [`auto_pick_for`]).
    pub fn auto_pick_for(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
    ) -> Option<&'static dyn SortBackend> {
        self.auto.pick(workload, len, map)
    }

    /// What happened to the calibration profile this registry's `auto` follows.
    pub fn profile_state(&self) -> &State {
        &self.profile
    }
}

/// The process-wide registry, built from [`Options::from_env`] on first use.
fn global() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry::new(&Options::from_env()))
}

/// Every backend usable on this machine, `auto` last.
///
/// A backend is listed when the CPU has its instructions (`avx2`, `avx512`) or a Vulkan
/// device exists (`vulkan-*`, software drivers included). `SORTNET_NO_GPU=1` and
/// `SORTNET_NO_AVX512=1` take those backends off the list; a [`Registry`] does the same
/// without the environment.
pub fn available() -> Vec<&'static dyn SortBackend> {
    global().available()
}

/// The backend with this stable name, if it is usable here (`"auto"` included).
pub fn by_name(name: &str) -> Option<&'static dyn SortBackend> {
    global().by_name(name)
}

/// The backend that picks the fastest usable backend for each call.
///
/// `SORTNET_BACKEND=<name>` makes this return that backend instead (a name not usable here
/// is reported once on stderr and ignored).
pub fn auto() -> &'static dyn SortBackend {
    static FORCED: OnceLock<Option<&'static dyn SortBackend>> = OnceLock::new();
    let forced = FORCED.get_or_init(|| {
        let name = std::env::var("SORTNET_BACKEND").ok()?;
        let found = by_name(&name);
        if found.is_none() {
            eprintln!("sortnet: SORTNET_BACKEND={name} is not a backend usable here; using auto");
        }
        found
    });
    forced.unwrap_or_else(|| global().auto())
}

/// The backend `auto` sends a call of `workload` with `len` elements to, for tools and
/// benchmarks that report the pick (`sortnet backends`, `sortnet bench`). It follows the
/// calibration profile and the built-in thresholds like `auto` does, but not
/// `SORTNET_BACKEND`; `None` when no usable backend does `workload`. For integer keys and
/// nibbles; float keys can go elsewhere at the same length, see [`auto_pick_for`].
pub fn auto_pick(workload: Workload, len: usize) -> Option<&'static dyn SortBackend> {
    auto_pick_for(workload, len, KeyMap::Unsigned)
}

/// [`auto_pick`] for keys that map to unsigned order by `map` (`K::MAP` of a [`crate::Key`]
/// type): floats cost the radix sort one digit more than integers, so `auto` keeps them on
/// the vectorised quicksort up to longer slices.
pub fn auto_pick_for(
    workload: Workload,
    len: usize,
    map: KeyMap,
) -> Option<&'static dyn SortBackend> {
    global().auto_pick_for(workload, len, map)
}

/// What happened to the calibration profile when the process-wide registry looked for it
/// (for `sortnet backends`).
pub fn profile_state() -> &'static State {
    global().profile_state()
}

/// Whether an environment switch such as `SORTNET_NO_GPU` is set to something other than
/// empty or `0`.
fn env_flag(name: &str) -> bool {
    std::env::var(name)
        .map(|v| !v.is_empty() && v != "0")
        .unwrap_or(false)
}
