//! The registry: the backends usable on this machine under some [`Options`], and the `auto`
//! over them. One registry, built from the environment on first use, serves the functions
//! of [`backend`](super); programs build others with [`Registry::new`].

use std::sync::OnceLock;

use super::auto::Auto;
use super::cpu;
pub use super::profile::ProfileChoice;
use super::profile::State;
use super::sort_backend::{SortBackend, Workload};
use crate::keys::key::KeyMap;

/// Which backends a [`Registry`] holds and which calibration profile its `auto` follows.
///
/// `Options::default()` is what ships: every backend the machine can run, and the profile
/// saved for this machine if there is one ([`ProfileChoice::Saved`]; nothing is measured
/// unless asked for). [`Options::from_env`] is the default with the user's switches
/// applied; the process-wide registry uses it.
///
/// ```
/// use sortnet::backend::{Options, ProfileChoice, Registry};
/// // What a CPU without AVX-512 and a machine without a GPU see, in this process.
/// // Built-in thresholds only: nothing is read or measured.
/// let registry = Registry::new(&Options {
///     avx512: false,
///     gpu: false,
///     profile: ProfileChoice::BuiltIn,
/// });
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
    /// `SORTNET_PROFILE=<path>` reads the profile from that file ([`ProfileChoice::File`])
    /// and `SORTNET_PROFILE=0` switches profiles off ([`ProfileChoice::BuiltIn`]). This is
    /// the only place the library reads them: a [`Registry`] built from typed `Options`
    /// follows those alone.
    pub fn from_env() -> Self {
        let profile = match std::env::var_os("SORTNET_PROFILE").filter(|v| !v.is_empty()) {
            Some(v) if v == "0" => ProfileChoice::BuiltIn,
            Some(path) => ProfileChoice::File(path.into()),
            None => ProfileChoice::Saved,
        };
        Options {
            avx512: !env_flag("SORTNET_NO_AVX512"),
            gpu: !env_flag("SORTNET_NO_GPU"),
            profile,
        }
    }
}

/// The backends usable under some [`Options`], `auto` included.
pub struct Registry {
    backends: Vec<&'static dyn SortBackend>,
    auto: Auto,
}

impl Registry {
    /// Detects the backends `options` allows (CPU features, Vulkan devices; detection itself
    /// happens once per process) and builds the `auto` over them. The profile is read (or
    /// measured) when `auto` first routes a call, not here.
    pub fn new(options: &Options) -> Registry {
        #[cfg_attr(not(feature = "gpu"), allow(unused_mut))]
        let mut backends = cpu::backends(options.avx512);
        #[cfg(feature = "gpu")]
        if options.gpu {
            backends.extend(crate::gpu::backends());
        }
        let auto = Auto::with_choice(&backends, options.profile.clone());
        Registry { backends, auto }
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
    pub(crate) fn auto_pick_for(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
    ) -> Option<&'static dyn SortBackend> {
        self.auto.pick(workload, len, map)
    }

    /// What happened to the calibration profile this registry's `auto` follows (reading or
    /// measuring it now if `auto` has not routed a call yet).
    pub(crate) fn profile_state(&self) -> &State {
        self.auto.profile_state()
    }
}

/// The process-wide registry, built on first use from the options given to [`configure`],
/// else from [`Options::from_env`].
static REGISTRY: OnceLock<Registry> = OnceLock::new();

fn global() -> &'static Registry {
    REGISTRY.get_or_init(|| Registry::new(&Options::from_env()))
}

/// Builds the process-wide registry (behind [`available`], [`by_name`], [`auto`]) from
/// `options` instead of [`Options::from_env`]; `false` when it was already built (by an
/// earlier call of these functions), which then stays as it is. Call it first thing, e.g.
/// to switch a saved calibration profile off:
///
/// ```
/// use sortnet::backend::{self, Options, ProfileChoice};
/// backend::configure(Options {
///     profile: ProfileChoice::BuiltIn,
///     ..Options::from_env()
/// });
/// let mut keys = vec![3u32, 1, 2];
/// backend::auto().sort(&mut keys)?;
/// assert_eq!(keys, [1, 2, 3]);
/// # Ok::<(), sortnet::Error>(())
/// ```
pub fn configure(options: Options) -> bool {
    let mut fresh = false;
    REGISTRY.get_or_init(|| {
        fresh = true;
        Registry::new(&options)
    });
    fresh
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
/// (for `sortnet backends`; reading or measuring it now if `auto` has not routed a call
/// yet).
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
