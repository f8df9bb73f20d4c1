//! The trait every backend implements, [`SortBackend`], and the words it speaks:
//! [`Workload`] (what a call sorts) and [`Device`] (where a backend runs). A leaf: it knows
//! no backend.

use std::mem::MaybeUninit;

use crate::error::{Error, Result};
use crate::keys::key::{
    as_bits128, as_bits32, as_bits64, bits128, from_small_image, is_small, is_wide, small_image,
    Key, KeyMap, KeyWidth,
};
use crate::keys::records::{self, Image, Order};
use crate::keys::{keys128, strings};

/// The words of `Unsupported` for 16-byte keys.
const KEYS128: &str = "128-bit keys";

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

/// The values of a pair sort as the raw bytes of their type: any `Copy` value of 4 or 8
/// bytes moves as one unit, padding included and never read as a number. Backends receive
/// it in [`SortBackend::sort_pairs32_values`]; only the crate's own code sees the bytes, and
/// it only permutes them.
pub struct Values<'a>(pub(crate) ValueBytes<'a>);

/// What [`Values`] holds.
pub(crate) enum ValueBytes<'a> {
    /// 4-byte values.
    B4(&'a mut [[MaybeUninit<u8>; 4]]),
    /// 8-byte values.
    B8(&'a mut [[MaybeUninit<u8>; 8]]),
    /// 16-byte values (small records).
    B16(&'a mut [[MaybeUninit<u8>; 16]]),
    /// 32-byte values.
    B32(&'a mut [[MaybeUninit<u8>; 32]]),
}

/// Applies `$body` to the byte slice inside a [`ValueBytes`], whatever its width.
macro_rules! each_width {
    ($bytes:expr, $v:ident => $body:expr) => {
        match $bytes {
            ValueBytes::B4($v) => $body,
            ValueBytes::B8($v) => $body,
            ValueBytes::B16($v) => $body,
            ValueBytes::B32($v) => $body,
        }
    };
}
pub(crate) use each_width;

impl<'a> Values<'a> {
    /// The values of `values`, if they are 4, 8, 16 or 32 bytes wide.
    pub(crate) fn of<V: Copy + Send + Sync>(values: &'a mut [V]) -> Option<Self> {
        // SAFETY: `V` is `Copy`: any permutation of its values, even a wrong one with
        // duplicates, leaves valid values that own nothing.
        unsafe { Self::of_moved(values) }
    }

    /// The elements of `items`, of any type, as values, if they are 4, 8, 16 or 32 bytes wide.
    ///
    /// # Safety
    /// The caller passes the result only to a sort that permutes the elements (one of the
    /// crate's own backends): a duplicated element of a type that owns memory would be
    /// dropped twice.
    pub(crate) unsafe fn of_moved<T>(items: &'a mut [T]) -> Option<Self> {
        let (ptr, n) = (items.as_mut_ptr(), items.len());
        // SAFETY (every arm): `T` is exactly as wide as the byte arrays, which have
        // alignment 1 and accept any bytes, padding included; the view borrows `items` for
        // `'a`. The elements are only moved whole, so each stays a valid `T` (the caller's
        // contract keeps it a permutation).
        let bytes = match std::mem::size_of::<T>() {
            // SAFETY: see above.
            4 => ValueBytes::B4(unsafe { std::slice::from_raw_parts_mut(ptr.cast(), n) }),
            // SAFETY: see above.
            8 => ValueBytes::B8(unsafe { std::slice::from_raw_parts_mut(ptr.cast(), n) }),
            // SAFETY: see above.
            16 => ValueBytes::B16(unsafe { std::slice::from_raw_parts_mut(ptr.cast(), n) }),
            // SAFETY: see above.
            32 => ValueBytes::B32(unsafe { std::slice::from_raw_parts_mut(ptr.cast(), n) }),
            _ => return None,
        };
        Some(Values(bytes))
    }

    /// How many values.
    pub fn len(&self) -> usize {
        each_width!(&self.0, v => v.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per value: 4, 8, 16 or 32.
    pub fn value_bytes(&self) -> usize {
        match &self.0 {
            ValueBytes::B4(_) => 4,
            ValueBytes::B8(_) => 8,
            ValueBytes::B16(_) => 16,
            ValueBytes::B32(_) => 32,
        }
    }

    /// The same values, borrowed again (a call that may be retried on another backend).
    pub fn reborrow(&mut self) -> Values<'_> {
        match &mut self.0 {
            ValueBytes::B4(v) => Values(ValueBytes::B4(v)),
            ValueBytes::B8(v) => Values(ValueBytes::B8(v)),
            ValueBytes::B16(v) => Values(ValueBytes::B16(v)),
            ValueBytes::B32(v) => Values(ValueBytes::B32(v)),
        }
    }

    /// Moves `values[i]` to the old `values[order[i]]` (a sorted index order).
    pub(crate) fn gather(self, order: &[u32]) {
        each_width!(self.0, v => records::gather_copy(v, order))
    }
}

/// The mark of the crate's own backends ([`SortBackend::own_backend`]); nothing outside the
/// crate can build one.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Own(pub(crate) ());

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

    /// Sorts 32-bit keys descending by `map.encode32(key)` (floats: +NaN first). The default
    /// sorts ascending and reverses, which is the same result for keys alone (equal keys
    /// have equal bits).
    fn sort_keys32_descending(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        self.sort_keys32(keys, map)?;
        keys.reverse();
        Ok(())
    }

    /// [`sort_keys32_descending`](Self::sort_keys32_descending) for 64-bit keys.
    fn sort_keys64_descending(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        self.sort_keys64(keys, map)?;
        keys.reverse();
        Ok(())
    }

    /// Sorts 32-bit keys and moves each 4- or 8-byte value with its key; stable. The caller
    /// has checked the lengths. The default sorts the keys with their indices
    /// ([`sort_pairs32`](Self::sort_pairs32)) and gathers the values once.
    fn sort_pairs32_values(&self, keys: &mut [u32], values: Values<'_>, map: KeyMap) -> Result<()> {
        let n = keys.len();
        if !self.supports(Workload::Pairs(KeyWidth::W32)) || u32::try_from(n).is_err() {
            return Err(self.unsupported(Workload::Pairs(KeyWidth::W32)));
        }
        let mut order = records::iota32(n);
        self.sort_pairs32(keys, &mut order, map)?;
        values.gather(&order);
        Ok(())
    }

    /// [`sort_pairs32_values`](Self::sort_pairs32_values) for 64-bit keys.
    fn sort_pairs64_values(&self, keys: &mut [u64], values: Values<'_>, map: KeyMap) -> Result<()> {
        let n = keys.len();
        if !self.supports(Workload::Pairs(KeyWidth::W64)) || u32::try_from(n).is_err() {
            return Err(self.unsupported(Workload::Pairs(KeyWidth::W64)));
        }
        let mut order = records::iota32(n);
        self.sort_pairs64(keys, &mut order, map)?;
        values.gather(&order);
        Ok(())
    }

    /// Puts the `n`-th smallest 32-bit key at `keys[n]`, smaller or equal keys before it and
    /// greater or equal ones after; the caller has checked `n < keys.len()`. The default
    /// sorts the whole slice.
    fn select_nth32(&self, keys: &mut [u32], n: usize, map: KeyMap) -> Result<()> {
        let _ = n;
        self.sort_keys32(keys, map)
    }

    /// [`select_nth32`](Self::select_nth32) for 64-bit keys.
    fn select_nth64(&self, keys: &mut [u64], n: usize, map: KeyMap) -> Result<()> {
        let _ = n;
        self.sort_keys64(keys, map)
    }

    /// Puts the `k` smallest 32-bit keys, ascending, in `keys[..k]`; the caller has checked
    /// `k <= keys.len()`. The default sorts the whole slice.
    fn partial_sort32(&self, keys: &mut [u32], k: usize, map: KeyMap) -> Result<()> {
        let _ = k;
        self.sort_keys32(keys, map)
    }

    /// [`partial_sort32`](Self::partial_sort32) for 64-bit keys.
    fn partial_sort64(&self, keys: &mut [u64], k: usize, map: KeyMap) -> Result<()> {
        let _ = k;
        self.sort_keys64(keys, map)
    }

    /// Whether this is one of the crate's own backends, whose pair sorts only ever permute
    /// the values. `sort_by_key` moves records by the order such a backend returns without
    /// checking that it is a permutation; other backends' orders are checked first. Only the
    /// crate can build the answer.
    #[doc(hidden)]
    fn own_backend(&self) -> Option<Own> {
        None
    }

    /// The `Unsupported` error for this backend and `workload`.
    fn unsupported(&self, workload: Workload) -> Error {
        Error::Unsupported {
            backend: self.name(),
            workload: workload.describe().to_string(),
        }
    }
}

impl<'a> dyn SortBackend + 'a {
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
        if let Some(bits) = as_bits128(keys) {
            self.on_cpu(KEYS128)?;
            keys128::sort(bits, K::MAP, false);
            Ok(())
        } else if is_small::<K>() {
            self.sort_small(keys, false)
        } else if let Some(bits) = as_bits32(keys) {
            self.sort_keys32(bits, K::MAP)
        } else if let Some(bits) = as_bits64(keys) {
            self.sort_keys64(bits, K::MAP)
        } else {
            unreachable!("every Key is 1, 2, 4, 8 or 16 bytes wide")
        }
    }

    /// Sorts `keys` descending: the reverse of [`sort`](#method.sort)'s order, so floats
    /// start with +NaN and end with -NaN. One pass of the key map (the image's bits
    /// inverted), not a sort and a reversal, on the backends that map keys anyway.
    ///
    /// ```
    /// use sortnet::backend;
    /// let mut keys = vec![3i16, -7, 12, 0];
    /// backend::auto().sort_descending(&mut keys)?;
    /// assert_eq!(keys, [12, 3, 0, -7]);
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn sort_descending<K: Key>(&self, keys: &mut [K]) -> Result<()> {
        if let Some(bits) = as_bits128(keys) {
            self.on_cpu(KEYS128)?;
            keys128::sort(bits, K::MAP, true);
            Ok(())
        } else if is_small::<K>() {
            self.sort_small(keys, true)
        } else if let Some(bits) = as_bits32(keys) {
            self.sort_keys32_descending(bits, K::MAP)
        } else if let Some(bits) = as_bits64(keys) {
            self.sort_keys64_descending(bits, K::MAP)
        } else {
            unreachable!("every Key is 1, 2, 4, 8 or 16 bytes wide")
        }
    }

    /// Whether the calls on this backend take keys of type `K`: those of [`Workload::Keys`]
    /// of `K`'s width, and for `u128` and `i128` every backend that sorts keys on the CPU.
    ///
    /// No [`KeyWidth`] names 16-byte keys: the crossovers, calibration profile and GPU jobs
    /// that match on widths know 32 and 64 bits only, and one engine serves 128-bit keys on
    /// every CPU backend (a stable MSD radix sort over the bytes that vary, `keys128`), so
    /// `auto` (a CPU backend) sends them there too. GPU backends return
    /// [`Error::Unsupported`] for them, and this method says so.
    ///
    /// ```
    /// use sortnet::backend;
    /// let b = backend::auto();
    /// assert!(b.supports_key::<i128>() && b.supports_key::<f32>());
    /// let mut prices = vec![1999i128, -250, 10_000_000_000_000_000_000_000];
    /// b.sort(&mut prices)?;
    /// assert_eq!(prices, [-250, 1999, 10_000_000_000_000_000_000_000]);
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn supports_key<K: Key>(&self) -> bool {
        if is_wide::<K>() {
            self.cpu_key_sorter()
        } else {
            self.supports(Workload::Keys(K::WIDTH))
        }
    }

    /// Whether [`sort_strings`](#method.sort_strings) and
    /// [`argsort_strings`](#method.argsort_strings) work on this backend: on every backend
    /// that sorts keys on the CPU (one engine, `strings`, serves them all, and `auto`);
    /// GPU backends return [`Error::Unsupported`].
    pub fn supports_strings(&self) -> bool {
        self.cpu_key_sorter()
    }

    /// Whether this backend sorts keys on the CPU: those run the CPU's engines for 128-bit
    /// keys and byte strings.
    fn cpu_key_sorter(&self) -> bool {
        self.device() == Device::Cpu
            && (self.supports(Workload::Keys(KeyWidth::W32))
                || self.supports(Workload::Keys(KeyWidth::W64)))
    }

    /// `Ok` if this backend runs the CPU's engines (see `cpu_key_sorter`), else the
    /// `Unsupported` error for `what`.
    fn on_cpu(&self, what: &str) -> Result<()> {
        if self.cpu_key_sorter() {
            Ok(())
        } else {
            Err(Error::Unsupported {
                backend: self.name(),
                workload: what.to_string(),
            })
        }
    }

    /// Sorts byte strings in byte order (`memcmp`: a prefix before its extensions; UTF-8
    /// text in code point order). `names` may hold `String`s, `&str`s, `Vec<u8>`s, `&[u8]`s,
    /// Arrow's row format's rows, anything that is `AsRef<[u8]>`.
    ///
    /// An MSD radix sort over 8 bytes at a time, which reads a shared prefix once per
    /// string (see [`argsort_strings`](#method.argsort_strings) for the engine and its
    /// memory); the strings themselves are moved by one gather (one copy of `names`, not of
    /// their bytes). Equal strings keep their order. Backends that do not sort on the CPU
    /// (the GPU) return [`Error::Unsupported`] with `names` unchanged.
    ///
    /// ```
    /// use sortnet::backend;
    /// let mut names = vec!["émile", "bob", "", "bo", "Zoé"];
    /// backend::auto().sort_strings(&mut names)?;
    /// assert_eq!(names, ["", "Zoé", "bo", "bob", "émile"]);
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn sort_strings<S: AsRef<[u8]> + Send + Sync>(&self, names: &mut [S]) -> Result<()> {
        self.on_cpu("byte strings")?;
        let order = strings::order(names);
        // SAFETY: the engine's order is a permutation of `0..n`: the indices `0..n`, only
        // permuted.
        unsafe { order.gather_records(names) };
        Ok(())
    }

    /// The indices that sort `rows` in byte order (as [`sort_strings`](#method.sort_strings)),
    /// rows untouched; stable (equal rows in index order), so several columns encoded as one
    /// comparable string (Arrow's row format) sort as one key.
    ///
    /// The engine reads each string's next 8 bytes as a big-endian `u64` and sorts those
    /// with the indices by the 64-bit pair sort, then sorts the strings whose 8 bytes agree
    /// by the next 8; small groups are sorted by comparison. Memory: `28n` bytes (the rows'
    /// addresses and lengths, the 8-byte digits, the indices) and the pair sort's scratch
    /// (`12n`), freed before the call returns. Backends that do not sort on the CPU (the GPU)
    /// return [`Error::Unsupported`].
    ///
    /// ```
    /// use sortnet::backend;
    /// let rows = [b"b\x00".to_vec(), b"a".to_vec(), b"b".to_vec(), b"a".to_vec()];
    /// let order: Vec<usize> = backend::auto().argsort_strings(&rows)?;
    /// assert_eq!(order, [1, 3, 2, 0]);
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn argsort_strings<S: AsRef<[u8]> + Send + Sync>(&self, rows: &[S]) -> Result<Vec<usize>> {
        self.on_cpu("byte strings")?;
        Ok(strings::order(rows).into_usize())
    }

    /// 1- and 2-byte keys: counted on the CPU backends that sort keys where the slice pays
    /// for the counters, else widened to 32 bits and sorted by this backend's own 32-bit
    /// sort (`auto`'s routes it by length).
    fn sort_small<K: Key>(&self, keys: &mut [K], descending: bool) -> Result<()> {
        // The length first: on `auto`, `supports` asks every backend (10-20 ns, a third of
        // a 16-key sort), and only a slice long enough to count needs it.
        if crate::keys::small::counts::<K>(keys.len())
            && self.device() == Device::Cpu
            && self.supports(Workload::Keys(KeyWidth::W32))
            && crate::keys::small::sort_by_count(keys, descending)
        {
            return Ok(());
        }
        crate::keys::small::sort_widened(keys, descending, |wide| {
            self.sort_keys32(wide, KeyMap::Unsigned)
        })
    }

    /// Sorts `keys` ascending and moves `values[i]` along with `keys[i]`; stable (equal
    /// keys keep their values in input order).
    ///
    /// Values of 4, 8, 16 and 32 bytes (`u32`, `f32`, `u64`, `usize`, pointers, small
    /// structs) move with their keys inside the sort; other types go through (key, index) pairs and
    /// one gather, which holds a copy of the values (`size_of::<V>() * n` bytes) and the
    /// indices (`4n`) during the call. Slices of different lengths give
    /// [`Error::LengthMismatch`] and are left unchanged.
    ///
    /// ```
    /// use sortnet::backend;
    /// let mut keys = vec![2.5f64, -1.0, 2.5, 0.0];
    /// let mut names = vec!["c", "a", "d", "b"];
    /// backend::auto().sort_pairs(&mut keys, &mut names)?;
    /// assert_eq!(names, ["a", "b", "c", "d"]);
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn sort_pairs<K: Key, V: Copy + Send + Sync>(
        &self,
        keys: &mut [K],
        values: &mut [V],
    ) -> Result<()> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        if let Some(bits) = as_bits128(keys) {
            self.on_cpu(KEYS128)?;
            keys128::sort_pairs(bits, values, K::MAP, false);
            Ok(())
        } else if is_small::<K>() {
            let mut wide: Vec<u32> = keys.iter().map(|&k| small_image(k)).collect();
            self.pairs32(&mut wide, values, KeyMap::Unsigned)?;
            for (k, w) in keys.iter_mut().zip(wide) {
                *k = from_small_image(w);
            }
            Ok(())
        } else if let Some(bits) = as_bits32(keys) {
            self.pairs32(bits, values, K::MAP)
        } else if let Some(bits) = as_bits64(keys) {
            self.pairs64(bits, values, K::MAP)
        } else {
            unreachable!("every Key is 1, 2, 4, 8 or 16 bytes wide")
        }
    }

    /// 32-bit keys with values of any type: 4- and 8-byte values inside the sort, others
    /// by index.
    fn pairs32<V: Copy + Send + Sync>(
        &self,
        keys: &mut [u32],
        values: &mut [V],
        map: KeyMap,
    ) -> Result<()> {
        match Values::of(values) {
            Some(v) => self.sort_pairs32_values(keys, v, map),
            None => {
                self.order32(keys, map)?.gather_copy(values);
                Ok(())
            }
        }
    }

    /// [`pairs32`](#method.pairs32) for 64-bit keys.
    fn pairs64<V: Copy + Send + Sync>(
        &self,
        keys: &mut [u64],
        values: &mut [V],
        map: KeyMap,
    ) -> Result<()> {
        match Values::of(values) {
            Some(v) => self.sort_pairs64_values(keys, v, map),
            None => {
                self.order64(keys, map)?.gather_copy(values);
                Ok(())
            }
        }
    }

    /// Sorts `keys` and returns their stable sorting order: the indices `0..n` sorted as
    /// the values of a pair sort (`u32` while they fit, else `u64`).
    fn order32(&self, keys: &mut [u32], map: KeyMap) -> Result<Order> {
        if u32::try_from(keys.len()).is_ok() {
            let mut order = records::iota32(keys.len());
            self.sort_pairs32(keys, &mut order, map)?;
            Ok(Order::U32(order))
        } else {
            let mut order: Vec<u64> = (0..keys.len() as u64).collect();
            let values = Values::of(&mut order).expect("u64 is 8 bytes");
            self.sort_pairs32_values(keys, values, map)?;
            Ok(Order::U64(order))
        }
    }

    /// [`order32`](#method.order32) for 64-bit keys.
    fn order64(&self, keys: &mut [u64], map: KeyMap) -> Result<Order> {
        if u32::try_from(keys.len()).is_ok() {
            let mut order = records::iota32(keys.len());
            self.sort_pairs64(keys, &mut order, map)?;
            Ok(Order::U32(order))
        } else {
            let mut order: Vec<u64> = (0..keys.len() as u64).collect();
            let values = Values::of(&mut order).expect("u64 is 8 bytes");
            self.sort_pairs64_values(keys, values, map)?;
            Ok(Order::U64(order))
        }
    }

    /// The stable sorting order of the keys whose images `image` holds.
    fn order_of(&self, image: Image) -> Result<Order> {
        match image {
            Image::W32(mut keys, map) => self.order32(&mut keys, map),
            Image::W64(mut keys, map) => self.order64(&mut keys, map),
        }
    }

    /// Sorts `items` by `key(item)` ascending; stable (items with equal keys keep their
    /// order). Keys are [`Key`] types, floats in total order.
    ///
    /// Up to 2^16 items wider than 8 bytes, with keys of 32 bits or fewer, are sorted as
    /// packed (key, index) words (`8n` bytes, twice for the radix sort's scratch) and moved
    /// by one gather (one copy of the items). Otherwise:
    /// the keys are computed once per item (in parallel for long slices). Items of 4, 8,
    /// 16 or 32 bytes then move with their keys inside the sort (the radix sort's scratch
    /// holds `n` keys and `n` items); larger ones are sorted by (key, index) pairs and moved
    /// to their places by one gather, which holds the keys and indices (`8n` to `16n`
    /// bytes, twice for the radix sort's scratch) and one copy of the items
    /// (`size_of::<T>() * n` bytes).
    ///
    /// ```
    /// use sortnet::backend;
    /// struct City { name: &'static str, population: u32 }
    /// let mut cities = vec![
    ///     City { name: "Lyon", population: 522_000 },
    ///     City { name: "Nice", population: 342_000 },
    ///     City { name: "Paris", population: 2_103_000 },
    /// ];
    /// backend::auto().sort_by_key(&mut cities, |c| c.population)?;
    /// let names: Vec<_> = cities.iter().map(|c| c.name).collect();
    /// assert_eq!(names, ["Nice", "Lyon", "Paris"]);
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn sort_by_key<T, K, F>(&self, items: &mut [T], key: F) -> Result<()>
    where
        T: Send + Sync,
        K: Key,
        F: Fn(&T) -> K + Sync,
    {
        if is_wide::<K>() {
            self.on_cpu(KEYS128)?;
            let order = keys128::order(items.iter().map(|it| bits128(key(it))).collect(), K::MAP);
            // SAFETY: the engine's order is a permutation of `0..n`: the indices `0..n`,
            // only permuted.
            unsafe { order.gather_records(items) };
            return Ok(());
        }
        if self.own_backend().is_some()
            && std::mem::size_of::<T>() > 8
            && self.supports(Workload::Pairs(KeyWidth::W32))
            && self.supports(Workload::Keys(KeyWidth::W64))
        {
            let packed = {
                let items: &[T] = items;
                records::packed32(items.len(), |i| key(&items[i]))
            };
            if let Some(mut packed) = packed {
                // Short slices: (image, index) words sorted as keys, then one gather.
                self.sort_keys64(&mut packed, KeyMap::Unsigned)?;
                // SAFETY: the crate's own backends only permute the keys they sort, and
                // the words' low halves were `0..n`.
                unsafe { records::gather_packed(items, &packed) };
                return Ok(());
            }
        }
        let image = {
            let items: &[T] = items;
            Image::of(items.len(), |i| key(&items[i]))
        };
        if self.own_backend().is_some() {
            // SAFETY: the crate's own backends only permute the values they are given.
            if let Some(values) = unsafe { Values::of_moved(items) } {
                // Small records move with their keys inside the sort, with no gather.
                return match image {
                    Image::W32(mut keys, map) => self.sort_pairs32_values(&mut keys, values, map),
                    Image::W64(mut keys, map) => self.sort_pairs64_values(&mut keys, values, map),
                };
            }
        }
        let order = self.order_of(image)?;
        if self.own_backend().is_none() && !order.is_permutation() {
            return Err(Error::Gpu(format!(
                "backend `{}` returned an order that is not a permutation; the items are \
                 unchanged",
                self.name()
            )));
        }
        // SAFETY: the order is a permutation of `0..n`: built from `0..n` and only permuted
        // by one of the crate's backends, or checked just above.
        unsafe { order.gather_records(items) };
        Ok(())
    }

    /// The indices that sort `keys` ascending: `keys[order[0]]` is the smallest. Stable
    /// (equal keys in index order); the keys are left untouched.
    ///
    /// ```
    /// use sortnet::backend;
    /// let keys = [0.5f32, -2.0, 0.5, f32::NEG_INFINITY];
    /// let order: Vec<usize> = backend::auto().argsort(&keys)?;
    /// assert_eq!(order, [3, 1, 0, 2]);
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn argsort<K: Key>(&self, keys: &[K]) -> Result<Vec<usize>> {
        if is_wide::<K>() {
            self.on_cpu(KEYS128)?;
            let images = keys.iter().map(|&k| bits128(k)).collect();
            return Ok(keys128::order(images, K::MAP).into_usize());
        }
        let order = self.order_of(Image::of(keys.len(), |i| keys[i]))?;
        Ok(order.into_usize())
    }

    /// Puts the `n`-th smallest key (0-based) at `keys[n]`, smaller or equal keys before it
    /// and greater or equal ones after it, in no particular order. Not a full sort.
    ///
    /// `n >= keys.len()` gives [`Error::SelectOutOfRange`] with the keys unchanged.
    ///
    /// ```
    /// use sortnet::backend;
    /// let mut keys = vec![9u64, 1, 8, 2, 7, 3];
    /// backend::auto().select_nth(&mut keys, 2)?;
    /// assert_eq!(keys[2], 3);
    /// assert!(keys[..2].iter().all(|&k| k <= 3) && keys[3..].iter().all(|&k| k >= 3));
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn select_nth<K: Key>(&self, keys: &mut [K], n: usize) -> Result<()> {
        if n >= keys.len() {
            return Err(Error::SelectOutOfRange { n, len: keys.len() });
        }
        if let Some(bits) = as_bits128(keys) {
            self.on_cpu(KEYS128)?;
            keys128::select_nth(bits, n, K::MAP);
            Ok(())
        } else if is_small::<K>() {
            let mut wide: Vec<u32> = keys.iter().map(|&k| small_image(k)).collect();
            self.select_nth32(&mut wide, n, KeyMap::Unsigned)?;
            for (k, w) in keys.iter_mut().zip(wide) {
                *k = from_small_image(w);
            }
            Ok(())
        } else if let Some(bits) = as_bits32(keys) {
            self.select_nth32(bits, n, K::MAP)
        } else if let Some(bits) = as_bits64(keys) {
            self.select_nth64(bits, n, K::MAP)
        } else {
            unreachable!("every Key is 1, 2, 4, 8 or 16 bytes wide")
        }
    }

    /// Puts the `k` smallest keys, ascending, in `keys[..k]`; the rest follow in any order
    /// (top-k). Selects, then sorts only the prefix.
    ///
    /// `k > keys.len()` gives [`Error::PartialSortOutOfRange`] with the keys unchanged.
    ///
    /// ```
    /// use sortnet::backend;
    /// let mut keys = vec![5i32, -1, 9, 0, 3, -8];
    /// backend::auto().partial_sort(&mut keys, 3)?;
    /// assert_eq!(keys[..3], [-8, -1, 0]);
    /// # Ok::<(), sortnet::Error>(())
    /// ```
    pub fn partial_sort<K: Key>(&self, keys: &mut [K], k: usize) -> Result<()> {
        if k > keys.len() {
            return Err(Error::PartialSortOutOfRange { k, len: keys.len() });
        }
        if let Some(bits) = as_bits128(keys) {
            self.on_cpu(KEYS128)?;
            keys128::partial_sort(bits, k, K::MAP);
            Ok(())
        } else if is_small::<K>() {
            let mut wide: Vec<u32> = keys.iter().map(|&x| small_image(x)).collect();
            self.partial_sort32(&mut wide, k, KeyMap::Unsigned)?;
            for (x, w) in keys.iter_mut().zip(wide) {
                *x = from_small_image(w);
            }
            Ok(())
        } else if let Some(bits) = as_bits32(keys) {
            self.partial_sort32(bits, k, K::MAP)
        } else if let Some(bits) = as_bits64(keys) {
            self.partial_sort64(bits, k, K::MAP)
        } else {
            unreachable!("every Key is 1, 2, 4, 8 or 16 bytes wide")
        }
    }
}

impl std::fmt::Debug for dyn SortBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SortBackend({})", self.name())
    }
}
