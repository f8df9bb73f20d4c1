//! `auto`: routes each call to the fastest usable backend for its workload and length.
//!
//! The crossover sizes live in [`thresholds`](super::thresholds), each with the measurement
//! behind it; a calibration [`profile`](super::profile) measured on this machine goes first.
//! `auto` never routes to a software GPU driver, and a GPU failure falls back to the best CPU
//! backend with the data untouched.

use super::{Device, SortBackend, Workload};
use crate::error::{Error, Result};
use crate::keys::key::{KeyMap, KeyWidth};

/// The `auto` backend. Get it from [`backend::auto`](super::auto).
pub struct Auto {
    backends: Vec<&'static dyn SortBackend>,
    /// The nibble kernel when the pick is a CPU backend and the same at every length,
    /// resolved once: the built-in nibble preference does not depend on the length, and
    /// resolving it per call cost more than sorting a short batch (4 ns of the 13 ns a
    /// one-word call takes). `None` when a calibration profile picks different nibble
    /// backends by length.
    nibbles_cpu: Option<super::cpu::NibbleKernel>,
}

impl Auto {
    pub(crate) fn new(backends: &[&'static dyn SortBackend]) -> Self {
        let mut auto = Auto {
            backends: backends.to_vec(),
            nibbles_cpu: None,
        };
        let profile_varies = match super::profile::state() {
            super::profile::State::Loaded(_, profile) => {
                let mut picks = profile
                    .entries
                    .iter()
                    .filter(|(w, _, _)| *w == Workload::Nibbles)
                    .map(|(_, _, backend)| backend);
                picks
                    .next()
                    .is_some_and(|first| picks.any(|other| other != first))
            }
            _ => false,
        };
        if !profile_varies {
            auto.nibbles_cpu = auto
                .pick(Workload::Nibbles, 0, KeyMap::Unsigned)
                .filter(|b| b.device() == Device::Cpu)
                .and_then(|b| super::cpu::NibbleKernel::of(b.name()));
        }
        auto
    }

    fn named(&self, name: &str) -> Option<&'static dyn SortBackend> {
        self.backends.iter().copied().find(|b| b.name() == name)
    }

    /// The first backend of the preference list for `workload` and `len` (keys mapped by
    /// `map`) that is usable here, does `workload` and passes `allowed`; else any usable CPU
    /// backend that does it.
    fn first_preferred(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
        allowed: impl Fn(Device) -> bool,
    ) -> Option<&'static dyn SortBackend> {
        // A calibration profile measured on this machine goes before the built-in list.
        super::profile::measured_fastest(workload, len)
            .into_iter()
            .chain(
                super::thresholds::preference(workload, len, map)
                    .iter()
                    .copied(),
            )
            .filter_map(|name| self.named(name))
            .find(|b| b.supports(workload) && allowed(b.device()))
            .or_else(|| {
                self.backends
                    .iter()
                    .copied()
                    .find(|b| b.supports(workload) && b.device() == Device::Cpu)
            })
    }

    /// The backend `auto` sends a call of `workload` with `len` elements to, for keys that
    /// map to unsigned order by `map` (never a software GPU driver).
    pub fn pick(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
    ) -> Option<&'static dyn SortBackend> {
        self.first_preferred(workload, len, map, |d| d != Device::Gpu { software: true })
    }

    /// The best CPU backend for `workload`, used as the fallback when a GPU fails.
    fn best_cpu(
        &self,
        workload: Workload,
        len: usize,
        map: KeyMap,
    ) -> Option<&'static dyn SortBackend> {
        self.first_preferred(workload, len, map, |d| d == Device::Cpu)
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
}

impl SortBackend for Auto {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn supports(&self, workload: Workload) -> bool {
        self.backends.iter().any(|b| b.supports(workload))
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        match self.nibbles_cpu {
            // Every CPU nibble kernel hands a few words to the lookup-table sort; going
            // there directly saves the calls in between (2 of the 16 ns of a one-word call).
            Some(_) if words.len() <= super::thresholds::NIBBLE_TAIL_LUT_MAX_WORDS => {
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
        self.route(Workload::Keys(KeyWidth::W32), keys.len(), map, |b| {
            b.sort_keys32(keys, map)
        })
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        self.route(Workload::Keys(KeyWidth::W64), keys.len(), map, |b| {
            b.sort_keys64(keys, map)
        })
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
}
