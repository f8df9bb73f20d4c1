//! The trait every backend implements, [`SortBackend`], and the words it speaks:
//! [`Workload`] (what a call sorts) and [`Device`] (where a backend runs). A leaf: it knows
//! no backend.

use crate::error::{Error, Result};
use crate::keys::key::{as_bits32, as_bits64, Key, KeyMap, KeyWidth};

/// One kind of sort call, for [`SortBackend::supports`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    /// Sort the 16 nibbles of every `u64` word.
    Nibbles,
    /// Sort keys of the given width.
    Keys(KeyWidth),
    /// Sort keys of the given width with `u32` values that follow them.
    Pairs(KeyWidth),
}

impl Workload {
    /// Words for error messages: `"nibbles"`, `"32-bit keys"`, ...
    pub fn describe(self) -> &'static str {
        match self {
            Workload::Nibbles => "nibbles",
            Workload::Keys(KeyWidth::W32) => "32-bit keys",
            Workload::Keys(KeyWidth::W64) => "64-bit keys",
            Workload::Pairs(KeyWidth::W32) => "32-bit key/value pairs",
            Workload::Pairs(KeyWidth::W64) => "64-bit key/value pairs",
        }
    }
}

/// Where a backend runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    /// On this machine's CPU.
    Cpu,
    /// On a Vulkan device; `software` for CPU-emulated drivers such as lavapipe, which
    /// `auto` never picks.
    Gpu {
        /// The driver runs on the CPU (Vulkan device type CPU).
        software: bool,
    },
}

/// A sorting implementation. Get one from [`available`](super::available),
/// [`by_name`](super::by_name) or [`auto`](super::auto).
///
/// Every method returns `Err` instead of panicking; on `Err` the slices hold either their
/// original contents or the fully sorted result. A backend that does not do a workload
/// returns [`Error::Unsupported`] (the default of every core method).
pub trait SortBackend: Send + Sync {
    /// The stable id: `scalar`, `lut`, `portable`, `avx2`, `avx512`, `radix`,
    /// `vulkan-bitonic`, `vulkan-radix` or `auto`.
    fn name(&self) -> &'static str;

    /// Where it runs. CPU unless a GPU backend says otherwise.
    fn device(&self) -> Device {
        Device::Cpu
    }

    /// One line of status for `sortnet backends`: CPU features used, or GPU name, driver,
    /// subgroup size and memory.
    fn status(&self) -> String {
        String::new()
    }

    /// Whether this backend does `workload` (a call for one it does not do returns
    /// [`Error::Unsupported`]).
    fn supports(&self, workload: Workload) -> bool;

    /// Sorts the 16 nibbles inside every word: the largest nibble ends in bits 60..64.
    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        let _ = words;
        Err(self.unsupported(Workload::Nibbles))
    }

    /// Sorts 32-bit keys ascending by `map.encode32(key)`; the keys stay in their own
    /// representation (the map is applied and undone inside).
    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        let _ = (keys, map);
        Err(self.unsupported(Workload::Keys(KeyWidth::W32)))
    }

    /// Sorts 64-bit keys, as [`sort_keys32`](Self::sort_keys32).
    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        let _ = (keys, map);
        Err(self.unsupported(Workload::Keys(KeyWidth::W64)))
    }

    /// Sorts 32-bit keys and moves each value with its key. The caller has checked that
    /// both slices have the same length.
    fn sort_pairs32(&self, keys: &mut [u32], values: &mut [u32], map: KeyMap) -> Result<()> {
        let _ = (keys, values, map);
        Err(self.unsupported(Workload::Pairs(KeyWidth::W32)))
    }

    /// Sorts 64-bit keys and moves each value with its key, as
    /// [`sort_pairs32`](Self::sort_pairs32).
    fn sort_pairs64(&self, keys: &mut [u64], values: &mut [u32], map: KeyMap) -> Result<()> {
        let _ = (keys, values, map);
        Err(self.unsupported(Workload::Pairs(KeyWidth::W64)))
    }

    /// The `Unsupported` error for this backend and `workload`.
    fn unsupported(&self, workload: Workload) -> Error {
        Error::Unsupported {
            backend: self.name(),
            workload: workload.describe().to_string(),
        }
    }
}

impl dyn SortBackend {
    /// Sorts `keys` ascending; floats in IEEE-754 total order (`f32::total_cmp`).
    ///
    /// ```
    /// use sortnet::backend;
    /// let mut keys = vec![3.5f32, -0.0, f32::NAN, -1.0, 0.0];
    /// backend::auto().sort(&mut keys).unwrap();
    /// assert_eq!(keys[..4], [-1.0, -0.0, 0.0, 3.5]);
    /// assert!(keys[4].is_nan());
    /// ```
    pub fn sort<K: Key>(&self, keys: &mut [K]) -> Result<()> {
        if let Some(bits) = as_bits32(keys) {
            self.sort_keys32(bits, K::MAP)
        } else if let Some(bits) = as_bits64(keys) {
            self.sort_keys64(bits, K::MAP)
        } else {
            unreachable!("every Key is 32 or 64 bits wide")
        }
    }

    /// Sorts `keys` ascending and moves `values[i]` along with `keys[i]`.
    ///
    /// Slices of different lengths give [`Error::LengthMismatch`] and are left unchanged.
    pub fn sort_pairs<K: Key>(&self, keys: &mut [K], values: &mut [u32]) -> Result<()> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        if let Some(bits) = as_bits32(keys) {
            self.sort_pairs32(bits, values, K::MAP)
        } else if let Some(bits) = as_bits64(keys) {
            self.sort_pairs64(bits, values, K::MAP)
        } else {
            unreachable!("every Key is 32 or 64 bits wide")
        }
    }
}

impl std::fmt::Debug for dyn SortBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SortBackend({})", self.name())
    }
}
