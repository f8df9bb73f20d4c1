//! The registry: the backends usable on this machine under some [`Options`], and the `auto`
//! over them. One registry, built from [`Options::from_env`] on first use (or from the
//! options given to [`configure`]), serves the functions of [`backend`](super); programs
//! build others with [`Registry::new`].

use std::sync::OnceLock;

use super::auto::Auto;
use super::cpu;
use super::options::Options;
use super::profile::State;
use super::sort_backend::{SortBackend, Workload};
use crate::keys::key::KeyMap;

/// The backends usable under some [`Options`], `auto` included.
pub struct Registry {
    backends: Vec<&'static dyn SortBackend>,
    auto: Auto,
    /// The backend [`Options::backend`] names, where this registry holds it.
    forced: Option<&'static dyn SortBackend>,
    options: Options,
}

impl Registry {
    /// Detects the backends `options` allows (CPU features, Vulkan devices; detection itself
    /// happens once per process) and builds the `auto` over them. The profile is read (or
    /// measured) when `auto` first routes a call, not here. Nothing but `options` decides:
    /// no `SORTNET_*` variable is read (a saved profile's cache folder comes from
    /// `XDG_CACHE_HOME` or `HOME`, as any program's does).
    pub fn new(options: &Options) -> Registry {
        #[cfg_attr(not(feature = "gpu"), allow(unused_mut))]
        let mut backends = cpu::backends(options.avx512);
        #[cfg(feature = "gpu")]
        if options.gpu {
            backends.extend(crate::gpu::backends(options.gpu_memory_cap));
        }
        let auto = Auto::with_choice(&backends, options.profile.clone());
        let forced = options.backend.as_deref().and_then(|name| {
            let found = backends.iter().find(|b| b.name() == name).copied();
            if found.is_none() && name != "auto" {
                eprintln!(
                    "sortnet: backend {name} (Options::backend, SORTNET_BACKEND) is not usable \
                     here; using auto"
                );
            }
            found
        });
        Registry {
            backends,
            auto,
            forced,
            options: options.clone(),
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

    /// The backend this registry's calls go to by default: its `auto`, or the backend
    /// [`Options::backend`] names. (`by_name("auto")` is the `auto` either way.)
    pub fn auto(&self) -> &(dyn SortBackend + 'static) {
        match self.forced {
            Some(forced) => forced,
            None => &self.auto,
        }
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

    /// The options this registry was built from.
    pub(crate) fn options(&self) -> &Options {
        &self.options
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
/// device exists (`vulkan-*`, software drivers included), and the process-wide
/// [`Options`] allow it ([`Options::avx512`], [`Options::gpu`]).
pub fn available() -> Vec<&'static dyn SortBackend> {
    global().available()
}

/// The backend with this stable name, if it is usable here (`"auto"` included).
pub fn by_name(name: &str) -> Option<&'static dyn SortBackend> {
    global().by_name(name)
}

/// The backend that picks the fastest usable backend for each call.
///
/// [`Options::backend`] (`SORTNET_BACKEND=<name>`) makes this return that backend instead
/// (a name not usable here is reported once on stderr and ignored).
pub fn auto() -> &'static dyn SortBackend {
    global().auto()
}

/// The backend `auto` sends a call of `workload` with `len` elements to, for tools and
/// benchmarks that report the pick (`sortnet backends`, `sortnet bench`). It follows the
/// calibration profile and the built-in thresholds like `auto` does, but not
/// [`Options::backend`]; `None` when no usable backend does `workload`. For integer keys and
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

/// The options the process-wide registry was built from: [`Options::from_env`], or those
/// given to [`configure`] (for `sortnet backends`).
pub fn options() -> &'static Options {
    global().options()
}
