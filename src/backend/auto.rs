//! `auto`: routes each call to the fastest usable backend for its workload and length.
//!
//! The crossover sizes live in `thresholds`, each with the measurement behind it; a
//! calibration [`profile`](super::profile) measured on this machine (by `sortnet calibrate`,
//! or on request by `auto` itself, [`ProfileChoice::MeasureOnce`]) goes first, among the
//! backends it timed. `auto` never
//! routes to a software GPU driver, sends pairs only to backends whose pair sort is stable
//! (whatever a profile says), and falls back to the best CPU backend with the data untouched
//! when a GPU fails.

use std::sync::OnceLock;

use super::calibration::measure_once;
use super::cpu::{KeyKernel, NibbleKernel};
use super::profile::{location, row_index, rows, ProfileChoice, Row, State, WORKLOADS};
use super::sort_backend::{Device, Own, SortBackend, Values, Workload};
use super::thresholds::{preference, Machine, LISTS, STABLE_PAIRS};
use crate::error::{Error, Result};
use crate::keys::key::{KeyMap, KeyWidth};
use crate::nibble::thresholds::NIBBLE_TAIL_LUT_MAX_WORDS;

/// Whether `b` may take a call of `workload` from `auto`: it does the workload, and for
/// pairs its sort is stable.
fn does(b: &dyn SortBackend, workload: Workload) -> bool {
    b.supports(workload)
        && (!matches!(workload, Workload::Pairs(_)) || STABLE_PAIRS.contains(&b.name()))
}

/// Which devices a pick may run on.
#[derive(Clone, Copy)]
enum Allowed {
    /// Anything but a software GPU driver: what `auto` runs.
    NotSoftware,
    /// The CPU: the fallback when a GPU fails.
    CpuOnly,
}

impl Allowed {
    const ALL: [Allowed; 2] = [Allowed::NotSoftware, Allowed::CpuOnly];

    fn admits(self, device: Device) -> bool {
        match self {
            Allowed::NotSoftware => device != Device::Gpu { software: true },
            Allowed::CpuOnly => device == Device::Cpu,
        }
    }
}

/// The `auto` backend. Get the process-wide one from [`backend::auto`](super::auto), or
/// one over other [`Options`](super::Options) from a [`Registry`](super::Registry).
pub(crate) struct Auto {
    backends: Vec<&'static dyn SortBackend>,
    /// Where the calibration profile comes from.
    choice: ProfileChoice,
    /// The machine facts the built-in rules read: this machine's, or in tests another
    /// class's.
    machine: Machine,
    /// The profile and the picks resolved from it, built when the first call is routed
    /// (reading the profile, or measuring it once per machine, takes that long).
    routes: OnceLock<Routes>,
}

/// One entry of a calibration profile: from this length, this backend.
struct Measured {
    from: usize,
    /// `None` where the profile names a backend that is not here or may not take the
    /// workload (see [`does`]): the built-in lists decide those lengths.
    backend: Option<&'static dyn SortBackend>,
    /// Whether each [`Allowed`] admits the backend.
    admits: [bool; 2],
}

/// What `auto` decides from once, when it first routes a call.
struct Routes {
    /// What happened to the calibration profile.
    state: State,
    /// The calibration profile's picks per row (indexed as [`rows`]), by length.
    /// Looked up on every call, so ready to use: a lookup that compared names cost as much
    /// as sorting 16 keys.
    measured: Vec<Vec<Measured>>,
    /// For each entry of `resolved`: whether the profile timed that built-in pick. A pick
    /// it did not time (the GPU, for the short measurement) stands against the profile's.
    resolved_timed: Vec<bool>,
    /// The nibble kernel when the pick is a CPU backend and the same at every length,
    /// resolved once: the built-in nibble preference does not depend on the length, and
    /// resolving it per call cost more than sorting a short batch (4 ns of the 13 ns a
    /// one-word call takes). `None` when a calibration profile picks different nibble
    /// backends by length.
    nibbles_cpu: Option<NibbleKernel>,
    /// The pick of every built-in preference list ([`LISTS`]) for every workload and
    /// [`Allowed`], resolved once: looking the names up on every call cost 20 to 60 ns, as
    /// much as sorting 8 keys.
    resolved: Vec<Option<&'static dyn SortBackend>>,
    /// The key kernel of `auto`'s pick for key sorts shorter than [`TINY_KEYS`], for each
    /// of [`tiny_index`]'s classes, by length, when the pick is a CPU backend with one
    /// ([`KeyKernel`]); `None` sends the call through the general route. 16 keys sort in
    /// 7.5 ns: the general lookup took another 10 (0.5x `avx2` on the AMD EPYC), a table of
    /// backends and their trait method another 2.3 (0.76x).
    tiny: [[Option<KeyKernel>; TINY_KEYS]; 4],
}

/// Key sorts shorter than this take their kernel from a table ([`Routes::tiny`]): up to 256
/// keys (200 ns) the general route's 15 ns was 7% of the sort, past 512 keys it is under 3%.
const TINY_KEYS: usize = 512;

/// The class of a key sort in [`Routes::tiny`]: key width, and floats apart (their
/// crossovers differ).
fn tiny_index(width: KeyWidth, map: KeyMap) -> usize {
    2 * usize::from(width == KeyWidth::W64) + usize::from(map == KeyMap::Float)
}

impl Auto {
    /// `auto` over `backends`, with the picks of `profile` (if any) before the built-in
    /// thresholds.
    #[cfg(test)]
    pub(crate) fn new(
        backends: &[&'static dyn SortBackend],
        profile: Option<&super::profile::Profile>,
    ) -> Self {
        let choice = match profile {
            Some(p) => ProfileChoice::Given(p.clone()),
            None => ProfileChoice::BuiltIn,
        };
        Auto::with_choice(backends, choice)
    }

    /// `auto` over `backends`, following the profile `choice` says (read or measured when
    /// the first call is routed).
    pub(crate) fn with_choice(
        backends: &[&'static dyn SortBackend],
        choice: ProfileChoice,
    ) -> Self {
        Auto {
            backends: backends.to_vec(),
            choice,
            machine: Machine::here(),
            routes: OnceLock::new(),
        }
    }

    /// This `auto` with the built-in rules of `machine` instead of this machine's.
    #[cfg(test)]
    pub(crate) fn on(mut self, machine: Machine) -> Self {
        self.machine = machine;
        self
    }

    /// What happened to the calibration profile (read or measured now if no call has been
    /// routed yet).
    pub(crate) fn profile_state(&self) -> &State {
        &self.routes().state
    }

    fn routes(&self) -> &Routes {
        self.routes.get_or_init(|| self.build_routes())
    }

    /// The profile `choice` names: Miri neither reads files nor has time to measure.
    fn profile(&self) -> State {
        let names: Vec<&str> = self.backends.iter().map(|b| b.name()).collect();
        match &self.choice {
            ProfileChoice::BuiltIn => State::Off,
            ProfileChoice::Given(profile) => State::Given(profile.clone()),
            _ if cfg!(miri) => State::Off,
            // On a rayon worker the measurement's own parallel sorts could make this thread
            // run another queued job that routes through `auto` while the routes are being
            // built (a deadlock): read a saved profile only, and measure in a later process.
            ProfileChoice::MeasureOnce if rayon::current_thread_index().is_none() => {
                match location(&self.choice, &names) {
                    None => State::Off,
                    Some(at) => match State::load_at(&at, &names) {
                        State::Loaded(path, profile) => State::Loaded(path, profile),
                        _ => measure_once(at.path().to_path_buf(), &self.backends),
                    },
                }
            }
            choice => State::load(choice, &names),
        }
    }

    fn build_routes(&self) -> Routes {
        let state = self.profile();
        let named = |name: &str| self.backends.iter().copied().find(|b| b.name() == name);
        let measured: Vec<Vec<Measured>> = rows()
            .map(|(row, _)| {
                let entries = state.profile().map_or(&[][..], |p| &p.entries[..]);
                entries
                    .iter()
                    .filter(|(r, _, _)| *r == row)
                    .map(|(r, from, name)| {
                        let backend = named(name).filter(|b| does(*b, r.workload));
                        Measured {
                            from: *from,
                            backend,
                            admits: Allowed::ALL
                                .map(|a| backend.is_some_and(|b| a.admits(b.device()))),
                        }
                    })
                    .collect()
            })
            .collect();
        let timed: Vec<&str> = state
            .profile()
            .map(|p| p.timed_names().collect())
            .unwrap_or_default();
        // Index: (list * WORKLOADS.len() + workload) * Allowed::ALL.len() + allowed.
        let resolved = LISTS
            .iter()
            .flat_map(|list| {
                WORKLOADS
                    .iter()
                    .map(move |&(workload, _)| (*list, workload))
            })
            .flat_map(|(list, workload)| Allowed::ALL.map(|a| (list, workload, a)))
            .map(|(list, workload, allowed)| self.resolve(list, None, workload, allowed))
            .collect::<Vec<_>>();
        let resolved_timed = resolved
            .iter()
            .map(|pick| pick.is_none_or(|b| timed.contains(&b.name())))
            .collect();
        let nibbles = row_index(Row::integers(Workload::Nibbles)).expect("a row for nibbles");
        let profile_varies = {
            let mut picks = measured[nibbles]
                .iter()
                .map(|m| m.backend.map(|b| b.name()));
            picks
                .next()
                .is_some_and(|first| picks.any(|other| other != first))
        };
        let mut routes = Routes {
            state,
            measured,
            resolved_timed,
            nibbles_cpu: None,
            resolved,
            tiny: [[None; TINY_KEYS]; 4],
        };
        let mut tiny = [[None; TINY_KEYS]; 4];
        for width in [KeyWidth::W32, KeyWidth::W64] {
            for map in [KeyMap::Unsigned, KeyMap::Float] {
                for (len, kernel) in tiny[tiny_index(width, map)].iter_mut().enumerate() {
                    *kernel = self
                        .first_preferred_in(
                            &routes,
                            Workload::Keys(width),
                            len,
                            map,
                            Allowed::NotSoftware,
                        )
                        .filter(|b| b.device() == Device::Cpu)
                        .and_then(|b| KeyKernel::of(b.name()));
                }
            }
        }
        routes.tiny = tiny;
        if !profile_varies {
            routes.nibbles_cpu = self
                .first_preferred_in(
                    &routes,
                    Workload::Nibbles,
                    0,
                    KeyMap::Unsigned,
                    Allowed::NotSoftware,
                )
                .filter(|b| b.device() == Device::Cpu)
                .and_then(|b| NibbleKernel::of(b.name()));
        }
        routes
    }

    fn named(&self, name: &str) -> Option<&'static dyn SortBackend> {
        self.backends.iter().copied().find(|b| b.name() == name)
    }

    /// The first backend of `measured` (a calibration profile's pick) then `list` that is
    /// usable here, may take `workload` ([`does`]) and is `allowed`; else any usable CPU
    /// backend that may take it.
    fn resolve(
        &self,
        list: &[&str],
        measured: Option<&'static dyn SortBackend>,
        workload: Workload,
        allowed: Allowed,
    ) -> Option<&'static dyn SortBackend> {
        measured
            .into_iter()
            .chain(list.iter().filter_map(|name| self.named(name)))
            .find(|b| does(*b, workload) && allowed.admits(b.device()))
            .or_else(|| {
                self.backends
                    .iter()
                    .copied()
                    .find(|b| does(*b, workload) && b.device() == Device::Cpu)
            })
    }

    /// The first backend of the preference list for `workload` and `len` (keys mapped by
    /// `map`) that is usable here, does `workload` and is `allowed`.
    fn first_preferred(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
        allowed: Allowed,
    ) -> Option<&'static dyn SortBackend> {
        self.first_preferred_in(self.routes(), workload, len, map, allowed)
    }

    fn first_preferred_in(
        &self,
        routes: &Routes,
        workload: Workload,
        len: usize,
        map: KeyMap,
        allowed: Allowed,
    ) -> Option<&'static dyn SortBackend> {
        let list = preference(workload, len, map, self.machine);
        let w = WORKLOADS.iter().position(|&(w, _)| w == workload);
        let at = LISTS
            .iter()
            .position(|l| std::ptr::eq(*l, list))
            .zip(w)
            .map(|(l, w)| (l * WORKLOADS.len() + w) * Allowed::ALL.len() + allowed as usize);
        let built_in = match at.and_then(|at| routes.resolved.get(at)) {
            Some(pick) => *pick,
            None => self.resolve(list, None, workload, allowed),
        };
        // A calibration profile measured on this machine goes before the built-in list,
        // among the backends it timed: the float row where it has lines for these keys, else
        // the integer row. Radix needs a digit more for floats than for integers (see
        // KEYS32_FLOAT_RADIX_MIN_LEN), so a quicksort measured faster than radix on integers
        // is faster on floats too, while a radix win on integers leaves float keys to their
        // own built-in crossovers.
        // `rows()` lists the integer rows in `WORKLOADS`' order first: the integer row's
        // index is `w`, found above.
        let lines = |index: Option<usize>| {
            index
                .and_then(|i| routes.measured.get(i))
                .filter(|m| !m.is_empty())
        };
        let float_lines = (map == KeyMap::Float)
            .then(|| lines(row_index(Row::floats(workload))))
            .flatten();
        let from_integers = map == KeyMap::Float && float_lines.is_none();
        let entry = float_lines
            .or_else(|| lines(w))
            .and_then(|entries| entries.iter().rev().find(|m| m.from <= len));
        let Some(Measured {
            backend: Some(measured),
            admits,
            ..
        }) = entry
        else {
            return built_in;
        };
        if from_integers && measured.name() == "radix" {
            return built_in;
        }
        let timed = match at.and_then(|at| routes.resolved_timed.get(at)) {
            Some(timed) => *timed,
            None => true,
        };
        match (timed, admits[allowed as usize]) {
            (false, _) => built_in,
            (true, true) => Some(*measured),
            (true, false) => self.resolve(list, Some(*measured), workload, allowed),
        }
    }

    /// The backend `auto` sends a call of `workload` with `len` elements to, for keys that
    /// map to unsigned order by `map` (never a software GPU driver).
    pub(crate) fn pick(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
    ) -> Option<&'static dyn SortBackend> {
        self.first_preferred(workload, len, map, Allowed::NotSoftware)
    }

    /// The key kernel for a key sort shorter than [`TINY_KEYS`], from the table; `None`
    /// for longer ones, picks without a kernel, and before the routes are built (the general
    /// route builds them: keeping that call out of this path spares every short sort the
    /// register saves it needs).
    #[inline]
    fn tiny_kernel(&self, width: KeyWidth, len: usize, map: KeyMap) -> Option<KeyKernel> {
        if len >= TINY_KEYS {
            return None;
        }
        self.routes.get()?.tiny[tiny_index(width, map)][len]
    }

    /// The best CPU backend for `workload`, used as the fallback when a GPU fails.
    fn best_cpu(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
    ) -> Option<&'static dyn SortBackend> {
        self.first_preferred(workload, len, map, Allowed::CpuOnly)
    }

    /// Runs `call` on the picked backend; a GPU error falls back to the best CPU backend
    /// (GPU backends leave the data untouched when they fail).
    fn route(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
        mut call: impl FnMut(&'static dyn SortBackend) -> Result<()>,
    ) -> Result<()> {
        let Some(backend) = self.pick(workload, len, map) else {
            return Err(self.unsupported(workload));
        };
        match call(backend) {
            Err(Error::Gpu(_)) | Err(Error::TooLarge { .. }) if backend.device() != Device::Cpu => {
                match self.best_cpu(workload, len, map) {
                    Some(cpu) => call(cpu),
                    None => Err(self.unsupported(workload)),
                }
            }
            other => other,
        }
    }
}

impl Auto {
    /// The nibble call when the pick is not resolved once (GPU, or a calibration profile
    /// that varies by length); kept out of line so the resolved path stays short.
    #[cold]
    #[inline(never)]
    fn route_nibbles(&self, words: &mut [u64]) -> Result<()> {
        self.route(Workload::Nibbles, words.len(), KeyMap::Unsigned, |b| {
            b.sort_nibbles(words)
        })
    }

    /// A 32-bit key sort the tiny table does not take, ascending or `descending`; out of
    /// line so that the table's path stays a few instructions (inlined, this route's
    /// register saves cost a short sort 20 instructions).
    #[inline(never)]
    fn route_keys32(&self, keys: &mut [u32], map: KeyMap, descending: bool) -> Result<()> {
        self.route(Workload::Keys(KeyWidth::W32), keys.len(), map, |b| {
            if descending {
                b.sort_keys32_descending(keys, map)
            } else {
                b.sort_keys32(keys, map)
            }
        })
    }

    /// [`route_keys32`](Self::route_keys32) for 64-bit keys.
    #[inline(never)]
    fn route_keys64(&self, keys: &mut [u64], map: KeyMap, descending: bool) -> Result<()> {
        self.route(Workload::Keys(KeyWidth::W64), keys.len(), map, |b| {
            if descending {
                b.sort_keys64_descending(keys, map)
            } else {
                b.sort_keys64(keys, map)
            }
        })
    }
}

/// Where `auto` sends select and partial sort: the CPU (a GPU backend would sort the whole
/// slice, and the transfers alone cost more than a select), the widest vectorised partition
/// first.
static SELECT: [&str; 4] = ["avx512", "avx2", "radix", "portable"];

impl Auto {
    /// The backend for a select or partial sort of keys of `width`.
    fn pick_select(&self, width: KeyWidth) -> Result<&'static dyn SortBackend> {
        let workload = Workload::Keys(width);
        self.resolve(&SELECT, None, workload, Allowed::CpuOnly)
            .ok_or_else(|| self.unsupported(workload))
    }
}

impl SortBackend for Auto {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn supports(&self, workload: Workload) -> bool {
        self.backends.iter().any(|b| does(*b, workload))
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        match self.routes().nibbles_cpu {
            // Every CPU nibble kernel hands a few words to the lookup-table sort; going
            // there directly saves the calls in between (2 of the 16 ns of a one-word call).
            Some(_) if words.len() <= NIBBLE_TAIL_LUT_MAX_WORDS => {
                crate::nibble::lut::sort_words(words);
                Ok(())
            }
            Some(kernel) => {
                kernel.sort(words);
                Ok(())
            }
            None => self.route_nibbles(words),
        }
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        match self.tiny_kernel(KeyWidth::W32, keys.len(), map) {
            Some(kernel) => {
                kernel.sort32(keys, map);
                Ok(())
            }
            None => self.route_keys32(keys, map, false),
        }
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        match self.tiny_kernel(KeyWidth::W64, keys.len(), map) {
            Some(kernel) => {
                kernel.sort64(keys, map);
                Ok(())
            }
            None => self.route_keys64(keys, map, false),
        }
    }

    fn sort_pairs32(&self, keys: &mut [u32], values: &mut [u32], map: KeyMap) -> Result<()> {
        self.route(Workload::Pairs(KeyWidth::W32), keys.len(), map, |b| {
            b.sort_pairs32(keys, values, map)
        })
    }

    fn sort_pairs64(&self, keys: &mut [u64], values: &mut [u32], map: KeyMap) -> Result<()> {
        self.route(Workload::Pairs(KeyWidth::W64), keys.len(), map, |b| {
            b.sort_pairs64(keys, values, map)
        })
    }

    fn sort_keys32_descending(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        match self.tiny_kernel(KeyWidth::W32, keys.len(), map) {
            Some(kernel) => {
                kernel.sort32_descending(keys, map);
                Ok(())
            }
            None => self.route_keys32(keys, map, true),
        }
    }

    fn sort_keys64_descending(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        match self.tiny_kernel(KeyWidth::W64, keys.len(), map) {
            Some(kernel) => {
                kernel.sort64_descending(keys, map);
                Ok(())
            }
            None => self.route_keys64(keys, map, true),
        }
    }

    fn sort_pairs32_values(
        &self,
        keys: &mut [u32],
        mut values: Values<'_>,
        map: KeyMap,
    ) -> Result<()> {
        self.route(Workload::Pairs(KeyWidth::W32), keys.len(), map, |b| {
            b.sort_pairs32_values(keys, values.reborrow(), map)
        })
    }

    fn sort_pairs64_values(
        &self,
        keys: &mut [u64],
        mut values: Values<'_>,
        map: KeyMap,
    ) -> Result<()> {
        self.route(Workload::Pairs(KeyWidth::W64), keys.len(), map, |b| {
            b.sort_pairs64_values(keys, values.reborrow(), map)
        })
    }

    fn select_nth32(&self, keys: &mut [u32], n: usize, map: KeyMap) -> Result<()> {
        self.pick_select(KeyWidth::W32)?.select_nth32(keys, n, map)
    }

    fn select_nth64(&self, keys: &mut [u64], n: usize, map: KeyMap) -> Result<()> {
        self.pick_select(KeyWidth::W64)?.select_nth64(keys, n, map)
    }

    fn partial_sort32(&self, keys: &mut [u32], k: usize, map: KeyMap) -> Result<()> {
        self.pick_select(KeyWidth::W32)?
            .partial_sort32(keys, k, map)
    }

    fn partial_sort64(&self, keys: &mut [u64], k: usize, map: KeyMap) -> Result<()> {
        self.pick_select(KeyWidth::W64)?
            .partial_sort64(keys, k, map)
    }

    fn own_backend(&self) -> Option<Own> {
        // Every backend `auto` routes to comes from the crate's registry.
        Some(Own(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolved_picks_match_the_lists_on_every_machine_class() {
        for l2_bytes in super::super::thresholds::classes::L2_BYTES {
            for wide_avx512 in [false, true] {
                let machine = Machine {
                    l2_bytes,
                    wide_avx512,
                };
                let auto = Auto::new(&super::super::cpu::backends(true), None).on(machine);
                resolved_picks_match_the_lists(&auto);
            }
        }
    }

    fn resolved_picks_match_the_lists(auto: &Auto) {
        let lens = (0..70)
            .chain((4..31).flat_map(|k| [(1usize << k) - 1, 1 << k, (1 << k) + 1]))
            .chain([600, 799, 800, 3071, 3072, 6143, 6144]);
        for len in lens {
            for &(workload, _) in &WORKLOADS {
                for map in [KeyMap::Unsigned, KeyMap::Signed, KeyMap::Float] {
                    for allowed in Allowed::ALL {
                        let list = preference(workload, len, map, auto.machine);
                        // Every list is one of LISTS, so every call takes the resolved pick.
                        assert!(LISTS.iter().any(|l| std::ptr::eq(*l, list)));
                        let name = |b: Option<&'static dyn SortBackend>| b.map(|b| b.name());
                        assert_eq!(
                            name(auto.first_preferred(workload, len, map, allowed)),
                            name(auto.resolve(list, None, workload, allowed)),
                            "{workload:?} {len} {map:?}"
                        );
                        if let (Workload::Keys(width), Allowed::NotSoftware) = (workload, allowed) {
                            if len < TINY_KEYS {
                                assert_eq!(
                                    auto.tiny_kernel(width, len, map).map(KeyKernel::name),
                                    name(auto.pick(workload, len, map)),
                                    "tiny {workload:?} {len} {map:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// A CPU backend that is only a name and the workloads it takes: the backend sets of
    /// other machines for routing tests (it sorts nothing; `auto` over these is never
    /// called, only asked for its picks).
    struct Named(&'static str);

    impl SortBackend for Named {
        fn name(&self) -> &'static str {
            self.0
        }

        fn device(&self) -> Device {
            Device::Cpu
        }

        fn supports(&self, workload: Workload) -> bool {
            matches!(workload, Workload::Keys(_)) || self.0 == "radix"
        }
    }

    /// The CPU backends of a machine with AVX-512, as names.
    fn avx512_machine() -> Vec<&'static dyn SortBackend> {
        static NAMED: [Named; 4] = [
            Named("portable"),
            Named("avx2"),
            Named("avx512"),
            Named("radix"),
        ];
        NAMED
            .iter()
            .map(|b| b as &'static dyn SortBackend)
            .collect()
    }

    #[test]
    fn a_profile_rules_integer_keys_among_the_backends_it_timed() {
        let backends = avx512_machine();
        let names: Vec<&str> = backends.iter().map(|b| b.name()).collect();
        let profile = |lines: &str| {
            let text = format!("sortnet-profile 1\nbackends {}\n{lines}", names.join(" "));
            super::super::profile::Profile::parse(&text).unwrap()
        };
        let pick = |auto: &Auto, len, map| {
            auto.pick(Workload::Keys(KeyWidth::W32), len, map)
                .map(|b| b.name())
        };
        let auto = Auto::new(
            &backends,
            Some(&profile("keys32 0 radix\nkeys32 5000 avx512\n")),
        );
        assert_eq!(pick(&auto, 100, KeyMap::Unsigned), Some("radix"));
        assert_eq!(pick(&auto, 100, KeyMap::Signed), Some("radix"));
        auto.profile_state();
        let tiny = auto.tiny_kernel(KeyWidth::W32, 100, KeyMap::Unsigned);
        assert_eq!(tiny.map(KeyKernel::name), Some("radix"));
        assert_eq!(pick(&auto, 5000, KeyMap::Unsigned), Some("avx512"));
        assert_eq!(pick(&auto, 1 << 30, KeyMap::Unsigned), Some("avx512"));
        // Float keys keep the built-in crossovers where the profile measured radix, take
        // the measured quicksort otherwise; other workloads keep theirs.
        let built_in = Auto::new(&backends, None);
        assert_eq!(
            pick(&auto, 100, KeyMap::Float),
            pick(&built_in, 100, KeyMap::Float)
        );
        assert_eq!(pick(&auto, 1 << 18, KeyMap::Float), Some("avx512"));
        assert_eq!(
            auto.pick(Workload::Keys(KeyWidth::W64), 100, KeyMap::Unsigned)
                .map(|b| b.name()),
            built_in
                .pick(Workload::Keys(KeyWidth::W64), 100, KeyMap::Unsigned)
                .map(|b| b.name())
        );
        // A built-in pick the profile did not time stands: here avx512 at 100 keys.
        let auto = Auto::new(&backends, Some(&profile("timed radix\nkeys32 0 radix\n")));
        assert_eq!(
            pick(&auto, 100, KeyMap::Unsigned),
            pick(&built_in, 100, KeyMap::Unsigned)
        );
    }

    #[test]
    fn a_float_row_rules_float_keys_of_its_width_whatever_it_picks() {
        let backends: Vec<_> = avx512_machine()
            .into_iter()
            .filter(|b| b.name() != "avx512")
            .collect();
        let names: Vec<&str> = backends.iter().map(|b| b.name()).collect();
        let text = format!(
            "sortnet-profile 1\nbackends {}\nkeys64 0 radix\nfloats64 0 avx2\nfloats64 5000 \
             radix\n",
            names.join(" ")
        );
        let profile = super::super::profile::Profile::parse(&text).unwrap();
        let auto = Auto::new(&backends, Some(&profile));
        let built_in = Auto::new(&backends, None);
        let pick = |auto: &Auto, width, len, map| {
            auto.pick(Workload::Keys(width), len, map).map(|b| b.name())
        };
        let w64 = KeyWidth::W64;
        assert_eq!(pick(&auto, w64, 100, KeyMap::Float), Some("avx2"));
        // The short sorts' table holds the pick's kernel, where this CPU has it.
        assert_eq!(
            auto.tiny_kernel(w64, 100, KeyMap::Float)
                .map(KeyKernel::name),
            KeyKernel::of("avx2").map(KeyKernel::name)
        );
        // A radix pick of the float row stands, where one of the integer row would not.
        assert_eq!(pick(&auto, w64, 5000, KeyMap::Float), Some("radix"));
        assert_eq!(pick(&auto, w64, 1 << 30, KeyMap::Float), Some("radix"));
        for map in [KeyMap::Unsigned, KeyMap::Signed] {
            assert_eq!(pick(&auto, w64, 100, map), Some("radix"));
        }
        // 32-bit floats have no row: the integer row has none either, so the built-in list.
        for len in [100, 5000, 1 << 20] {
            assert_eq!(
                pick(&auto, KeyWidth::W32, len, KeyMap::Float),
                pick(&built_in, KeyWidth::W32, len, KeyMap::Float)
            );
        }
    }

    #[test]
    fn a_first_call_on_a_rayon_worker_never_measures() {
        let backends = super::super::cpu::backends(true);
        let auto = Auto::with_choice(&backends, ProfileChoice::MeasureOnce);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let state = pool.install(|| {
            let mut keys = vec![3u32, 1, 2];
            (&auto as &dyn SortBackend).sort(&mut keys).unwrap();
            assert_eq!(keys, [1, 2, 3]);
            auto.profile_state()
        });
        assert!(!matches!(state, State::Measured(..)), "{state}");
    }

    /// A GPU backend whose pair sort is fast and not stable (equal keys come out with their
    /// values in reverse order), as `vulkan-bitonic`'s was.
    struct UnstablePairs;

    impl SortBackend for UnstablePairs {
        fn name(&self) -> &'static str {
            "vulkan-bitonic"
        }

        fn device(&self) -> Device {
            Device::Gpu { software: false }
        }

        fn supports(&self, workload: Workload) -> bool {
            matches!(workload, Workload::Pairs(_))
        }

        fn sort_pairs32(&self, keys: &mut [u32], values: &mut [u32], map: KeyMap) -> Result<()> {
            let mut pairs: Vec<(u32, u32)> =
                keys.iter().copied().zip(values.iter().copied()).collect();
            pairs.sort_by_key(|&(k, v)| (map.encode32(k), std::cmp::Reverse(v)));
            for (i, (k, v)) in pairs.into_iter().enumerate() {
                keys[i] = k;
                values[i] = v;
            }
            Ok(())
        }
    }

    #[test]
    fn a_profile_never_sends_pairs_to_an_unstable_backend() {
        let mut backends = super::super::cpu::backends(true);
        backends.push(&UnstablePairs);
        let names: Vec<String> = backends.iter().map(|b| b.name().to_string()).collect();
        let mut text = format!("sortnet-profile 1\nbackends {}\n", names.join(" "));
        for workload in ["pairs32", "pairs64"] {
            text.push_str(&format!("{workload} 0 vulkan-bitonic\n"));
        }
        let profile = super::super::profile::Profile::parse(&text).unwrap();
        let auto = Auto::new(&backends, Some(&profile));
        for len in [0, 1, 100, 1 << 12, 1 << 20, 1 << 30] {
            for width in [KeyWidth::W32, KeyWidth::W64] {
                let pick = auto.pick(Workload::Pairs(width), len, KeyMap::Unsigned);
                assert_eq!(pick.map(|b| b.name()), Some("radix"), "{width:?} {len}");
            }
        }
        // Through `auto`, equal keys keep their values in input order.
        let mut keys: Vec<u32> = (0..5000).map(|i| (i * 7919) % 13).collect();
        let mut values: Vec<u32> = (0..5000).collect();
        (&auto as &dyn SortBackend)
            .sort_pairs(&mut keys, &mut values)
            .unwrap();
        for i in 1..keys.len() {
            assert!(
                keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && values[i - 1] < values[i]),
                "unstable at {i}"
            );
        }
        // Without the profile's say the fake backend is still never picked for pairs.
        let auto = Auto::new(&backends, None);
        assert_eq!(
            auto.pick(Workload::Pairs(KeyWidth::W32), 1 << 20, KeyMap::Unsigned)
                .map(|b| b.name()),
            Some("radix")
        );
    }
}
