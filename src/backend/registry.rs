//! The registry: every backend usable on this machine, built once on first use.

use std::sync::OnceLock;

use super::auto::Auto;
use super::cpu;
use super::SortBackend;

/// The concrete backends usable here, in a fixed order (CPU first, then GPU), without `auto`.
pub(crate) fn concrete() -> &'static [&'static dyn SortBackend] {
    static BACKENDS: OnceLock<Vec<&'static dyn SortBackend>> = OnceLock::new();
    BACKENDS.get_or_init(|| {
        // `mut` is only needed when the GPU backends are compiled in.
        #[cfg_attr(not(feature = "gpu"), allow(unused_mut))]
        let mut list = cpu::backends();
        #[cfg(feature = "gpu")]
        if !env_flag("SORTNET_NO_GPU") {
            list.extend(crate::gpu::backends());
        }
        list
    })
}

fn the_auto() -> &'static Auto {
    static AUTO: OnceLock<Auto> = OnceLock::new();
    AUTO.get_or_init(|| Auto::new(concrete()))
}

/// Every backend usable on this machine, `auto` last.
///
/// A backend is listed when the CPU has its instructions (`avx2`, `avx512`) or a Vulkan
/// device exists (`vulkan-*`, software drivers included). `SORTNET_NO_GPU=1` and
/// `SORTNET_NO_AVX512=1` take those backends off the list.
pub fn available() -> Vec<&'static dyn SortBackend> {
    let mut list = concrete().to_vec();
    list.push(the_auto());
    list
}

/// The backend with this stable name, if it is usable here (`"auto"` included).
pub fn by_name(name: &str) -> Option<&'static dyn SortBackend> {
    available().into_iter().find(|b| b.name() == name)
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
    forced.unwrap_or_else(|| the_auto())
}

/// The backend `auto` sends a call of `workload` with `len` elements to, for tools and
/// benchmarks that report the pick (`sortnet backends`, `sortnet bench`). It follows the
/// calibration profile and the built-in thresholds like `auto` does, but not
/// `SORTNET_BACKEND`; `None` when no usable backend does `workload`. For integer keys and
/// nibbles; float keys can go elsewhere at the same length, see [`auto_pick_for`].
pub fn auto_pick(workload: super::Workload, len: usize) -> Option<&'static dyn SortBackend> {
    auto_pick_for(workload, len, crate::KeyMap::Unsigned)
}

/// [`auto_pick`] for keys that map to unsigned order by `map` (`K::MAP` of a [`crate::Key`]
/// type): floats cost the radix sort one digit more than integers, so `auto` keeps them on
/// the vectorised quicksort up to longer slices.
pub fn auto_pick_for(
    workload: super::Workload,
    len: usize,
    map: crate::KeyMap,
) -> Option<&'static dyn SortBackend> {
    the_auto().pick(workload, len, map)
}

/// Whether an environment switch such as `SORTNET_NO_GPU` is set to something other than
/// empty or `0`.
pub(crate) fn env_flag(name: &str) -> bool {
    std::env::var(name)
        .map(|v| !v.is_empty() && v != "0")
        .unwrap_or(false)
}
