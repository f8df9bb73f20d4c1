//! The CPU backends: each a capability token (built only where the CPU can run it) that
//! wires the nibble and key kernels of one instruction set to [`SortBackend`].

use super::sort_backend::{each_width, Own, SortBackend, ValueBytes, Values, Workload};
use crate::error::Result;
use crate::keys::key::KeyMap;
use crate::keys::{radix, select};
use crate::nibble;

/// The select and partial sort of every CPU backend that sorts keys (the vectorised
/// quicksorts' partition serves AVX2 and AVX-512 where their tokens provide one), and the
/// mark of the crate's own backends.
macro_rules! cpu_select {
    () => {
        fn select_nth32(&self, keys: &mut [u32], n: usize, map: KeyMap) -> Result<()> {
            select::select_nth32(keys, n, map);
            Ok(())
        }

        fn select_nth64(&self, keys: &mut [u64], n: usize, map: KeyMap) -> Result<()> {
            select::select_nth64(keys, n, map);
            Ok(())
        }

        fn partial_sort32(&self, keys: &mut [u32], k: usize, map: KeyMap) -> Result<()> {
            select::partial_sort32(keys, k, map);
            Ok(())
        }

        fn partial_sort64(&self, keys: &mut [u64], k: usize, map: KeyMap) -> Result<()> {
            select::partial_sort64(keys, k, map);
            Ok(())
        }
    };
}

/// [`SortBackend::own_backend`] for the crate's CPU backends.
macro_rules! own {
    () => {
        fn own_backend(&self) -> Option<Own> {
            Some(Own(()))
        }
    };
}

/// The CPU backends usable on this machine, `avx512` left out unless `avx512` is true.
pub(crate) fn backends(avx512: bool) -> Vec<&'static dyn SortBackend> {
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut list: Vec<&'static dyn SortBackend> = vec![&Scalar, &Lut, &Portable];
    #[cfg(target_arch = "x86_64")]
    {
        // Detected once per process; the tokens are plain values, so the statics are the
        // whole cost.
        static AVX2: std::sync::OnceLock<Option<Avx2>> = std::sync::OnceLock::new();
        static AVX512: std::sync::OnceLock<Option<Avx512>> = std::sync::OnceLock::new();
        if let Some(avx2) = AVX2.get_or_init(Avx2::new) {
            list.push(avx2);
        }
        if avx512 {
            if let Some(avx512) = AVX512.get_or_init(Avx512::new) {
                list.push(avx512);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = avx512;
    list.push(&Radix);
    list
}

/// The nibble kernel of one CPU backend as a plain value, parallel split included. The
/// backends below call it, and `auto` keeps the one it picked and calls it directly,
/// without a second dynamic dispatch (that cost 2.5 of the 21 ns 16 words take).
#[derive(Clone, Copy, Debug)]
pub(crate) enum NibbleKernel {
    Scalar,
    Lut,
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2(nibble::x86_64::avx2::Avx2Token),
    #[cfg(target_arch = "x86_64")]
    Avx512(nibble::x86_64::avx512::Avx512Token),
}

impl NibbleKernel {
    /// The kernel of the CPU backend called `name`, if the CPU can run it.
    pub(crate) fn of(name: &str) -> Option<Self> {
        match name {
            "scalar" => Some(NibbleKernel::Scalar),
            "lut" => Some(NibbleKernel::Lut),
            "portable" => Some(NibbleKernel::Portable),
            #[cfg(target_arch = "x86_64")]
            "avx2" => nibble::x86_64::avx2::Avx2Token::new().map(NibbleKernel::Avx2),
            #[cfg(target_arch = "x86_64")]
            "avx512" => nibble::x86_64::avx512::Avx512Token::new().map(NibbleKernel::Avx512),
            _ => None,
        }
    }

    /// Sorts the nibbles of every word, over rayon's pool above the kernel's threshold.
    #[inline]
    pub(crate) fn sort(self, words: &mut [u64]) {
        use nibble::thresholds::{
            NIBBLE_LUT_PARALLEL_MIN_WORDS as LUT_MIN, NIBBLE_PARALLEL_CHUNK_WORDS as CHUNK,
            NIBBLE_SIMD_PARALLEL_MIN_WORDS as SIMD_MIN,
        };
        match self {
            NibbleKernel::Scalar => nibble::scalar::sort_words(words),
            NibbleKernel::Lut => {
                nibble::sort_in_parallel(words, LUT_MIN, CHUNK, nibble::lut::sort_words)
            }
            NibbleKernel::Portable => {
                nibble::sort_in_parallel(words, SIMD_MIN, CHUNK, nibble::portable::sort_words)
            }
            #[cfg(target_arch = "x86_64")]
            NibbleKernel::Avx2(token) => {
                nibble::sort_in_parallel(words, SIMD_MIN, CHUNK, |w| token.sort_words(w))
            }
            #[cfg(target_arch = "x86_64")]
            NibbleKernel::Avx512(token) => {
                nibble::sort_in_parallel(words, SIMD_MIN, CHUNK, |w| token.sort_words(w))
            }
        }
    }
}

/// The key sort of one CPU backend as a plain value, for `auto`'s short slices: it keeps
/// the kernel it picked for each short length and calls it directly, without a second
/// dynamic dispatch (the lookup and that call cost 2.3 of the 9.8 ns 16 `u32` keys took
/// through `auto` on the AMD EPYC: 0.76x its own pick).
#[derive(Clone, Copy, Debug)]
pub(crate) enum KeyKernel {
    Radix,
    #[cfg(target_arch = "x86_64")]
    Avx2(crate::keys::x86_64::avx2::Avx2KeysToken),
    #[cfg(target_arch = "x86_64")]
    Avx512(crate::keys::x86_64::avx512::Avx512KeysToken),
}

impl KeyKernel {
    /// The key kernel of the CPU backend called `name`, if it has one here (`portable` and
    /// the nibble-only backends have none: `auto` calls them through the backend).
    pub(crate) fn of(name: &str) -> Option<Self> {
        match name {
            "radix" => Some(KeyKernel::Radix),
            #[cfg(target_arch = "x86_64")]
            "avx2" => crate::keys::x86_64::avx2::Avx2KeysToken::new().map(KeyKernel::Avx2),
            #[cfg(target_arch = "x86_64")]
            "avx512" => crate::keys::x86_64::avx512::Avx512KeysToken::new().map(KeyKernel::Avx512),
            _ => None,
        }
    }

    /// The name of the backend whose kernel this is.
    #[cfg(test)]
    pub(crate) fn name(self) -> &'static str {
        match self {
            KeyKernel::Radix => "radix",
            #[cfg(target_arch = "x86_64")]
            KeyKernel::Avx2(_) => "avx2",
            #[cfg(target_arch = "x86_64")]
            KeyKernel::Avx512(_) => "avx512",
        }
    }

    /// Sorts 32-bit keys ascending by `map`, as the backend's `sort_keys32` does.
    #[inline]
    pub(crate) fn sort32(self, keys: &mut [u32], map: KeyMap) {
        match self {
            KeyKernel::Radix => radix::sort32(keys, map),
            #[cfg(target_arch = "x86_64")]
            KeyKernel::Avx2(token) => token.sort32(keys, map),
            #[cfg(target_arch = "x86_64")]
            KeyKernel::Avx512(token) => token.sort32(keys, map),
        }
    }

    /// Sorts 64-bit keys ascending by `map`, as the backend's `sort_keys64` does.
    #[inline]
    pub(crate) fn sort64(self, keys: &mut [u64], map: KeyMap) {
        match self {
            KeyKernel::Radix => radix::sort64(keys, map),
            #[cfg(target_arch = "x86_64")]
            KeyKernel::Avx2(token) => token.sort64(keys, map),
            #[cfg(target_arch = "x86_64")]
            KeyKernel::Avx512(token) => token.sort64(keys, map),
        }
    }

    /// Sorts 32-bit keys descending by `map`, as the backend's `sort_keys32_descending`
    /// does (the quicksorts sort ascending and reverse).
    #[inline]
    pub(crate) fn sort32_descending(self, keys: &mut [u32], map: KeyMap) {
        match self {
            KeyKernel::Radix => radix::sort32_descending(keys, map),
            #[cfg(target_arch = "x86_64")]
            _ => {
                self.sort32(keys, map);
                keys.reverse();
            }
        }
    }

    /// [`sort32_descending`](Self::sort32_descending) for 64-bit keys.
    #[inline]
    pub(crate) fn sort64_descending(self, keys: &mut [u64], map: KeyMap) {
        match self {
            KeyKernel::Radix => radix::sort64_descending(keys, map),
            #[cfg(target_arch = "x86_64")]
            _ => {
                self.sort64(keys, map);
                keys.reverse();
            }
        }
    }
}

/// `scalar`: counting sort with packed counters; runs everywhere.
pub(crate) struct Scalar;

impl SortBackend for Scalar {
    fn name(&self) -> &'static str {
        "scalar"
    }

    fn supports(&self, workload: Workload) -> bool {
        workload == Workload::Nibbles
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        nibble::scalar::sort_words(words);
        Ok(())
    }

    own!();
}

/// `lut`: counting sort with lookup tables (Jerome's contest winner); runs everywhere.
pub(crate) struct Lut;

impl SortBackend for Lut {
    fn name(&self) -> &'static str {
        "lut"
    }

    fn status(&self) -> String {
        "lookup tables, no SIMD".to_string()
    }

    fn supports(&self, workload: Workload) -> bool {
        workload == Workload::Nibbles
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        NibbleKernel::Lut.sort(words);
        Ok(())
    }

    own!();
}

/// `portable`: the sorting network over `wide`'s 128-bit vectors (SSE2, NEON, or plain
/// arrays) for nibbles, and the vectorised key quicksort over `wide`'s `u32x8`/`u64x4`;
/// runs everywhere.
pub(crate) struct Portable;

impl SortBackend for Portable {
    fn name(&self) -> &'static str {
        "portable"
    }

    fn status(&self) -> String {
        let isa = if cfg!(target_arch = "x86_64") {
            "sse2"
        } else if cfg!(all(target_arch = "aarch64", target_feature = "neon")) {
            "neon"
        } else {
            "scalar fallback"
        };
        format!("wide u8x16, u32x8, u64x4 ({isa})")
    }

    fn supports(&self, workload: Workload) -> bool {
        matches!(workload, Workload::Nibbles | Workload::Keys(_))
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        crate::keys::portable::sort32(keys, map);
        Ok(())
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        crate::keys::portable::sort64(keys, map);
        Ok(())
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        NibbleKernel::Portable.sort(words);
        Ok(())
    }

    cpu_select!();
    own!();
}

/// `avx2`: the sorting network over 256-bit vectors, 32 words per block; the vectorised key
/// quicksort over 8 `u32` or 4 `u64` lanes.
#[cfg(target_arch = "x86_64")]
pub(crate) struct Avx2 {
    nibbles: nibble::x86_64::avx2::Avx2Token,
    /// `None` on a CPU with AVX2 but without POPCNT (none is known; kept truthful).
    keys: Option<crate::keys::x86_64::avx2::Avx2KeysToken>,
}

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// The backend, if this CPU has AVX2.
    pub(crate) fn new() -> Option<Self> {
        let nibbles = nibble::x86_64::avx2::Avx2Token::new()?;
        let keys = crate::keys::x86_64::avx2::Avx2KeysToken::new();
        Some(Avx2 { nibbles, keys })
    }
}

#[cfg(target_arch = "x86_64")]
impl SortBackend for Avx2 {
    fn name(&self) -> &'static str {
        "avx2"
    }

    fn status(&self) -> String {
        match self.keys {
            Some(_) => crate::keys::x86_64::avx2::Avx2KeysToken::FEATURES.to_string(),
            None => "avx2 (no key sort: no popcnt)".to_string(),
        }
    }

    fn supports(&self, workload: Workload) -> bool {
        match workload {
            Workload::Nibbles => true,
            Workload::Keys(_) => self.keys.is_some(),
            Workload::Pairs(_) => false,
        }
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        match self.keys {
            Some(token) => {
                token.sort32(keys, map);
                Ok(())
            }
            None => Err(self.unsupported(Workload::Keys(crate::KeyWidth::W32))),
        }
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        match self.keys {
            Some(token) => {
                token.sort64(keys, map);
                Ok(())
            }
            None => Err(self.unsupported(Workload::Keys(crate::KeyWidth::W64))),
        }
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        NibbleKernel::Avx2(self.nibbles).sort(words);
        Ok(())
    }

    fn select_nth32(&self, keys: &mut [u32], n: usize, map: KeyMap) -> Result<()> {
        match self.keys {
            Some(token) => {
                token.select_nth32(keys, n, map);
                Ok(())
            }
            None => Err(self.unsupported(Workload::Keys(crate::KeyWidth::W32))),
        }
    }

    fn select_nth64(&self, keys: &mut [u64], n: usize, map: KeyMap) -> Result<()> {
        match self.keys {
            Some(token) => {
                token.select_nth64(keys, n, map);
                Ok(())
            }
            None => Err(self.unsupported(Workload::Keys(crate::KeyWidth::W64))),
        }
    }

    fn partial_sort32(&self, keys: &mut [u32], k: usize, map: KeyMap) -> Result<()> {
        match self.keys {
            Some(token) => {
                token.partial_sort32(keys, k, map);
                Ok(())
            }
            None => Err(self.unsupported(Workload::Keys(crate::KeyWidth::W32))),
        }
    }

    fn partial_sort64(&self, keys: &mut [u64], k: usize, map: KeyMap) -> Result<()> {
        match self.keys {
            Some(token) => {
                token.partial_sort64(keys, k, map);
                Ok(())
            }
            None => Err(self.unsupported(Workload::Keys(crate::KeyWidth::W64))),
        }
    }

    own!();
}

/// `avx512`: the sorting network over 512-bit vectors, 64 words per block; the vectorised
/// key quicksort over 16 `u32` or 8 `u64` lanes. Left out of the registry when
/// [`Options::avx512`](super::Options::avx512) is false (`SORTNET_NO_AVX512=1`).
#[cfg(target_arch = "x86_64")]
pub(crate) struct Avx512 {
    nibbles: nibble::x86_64::avx512::Avx512Token,
    keys: crate::keys::x86_64::avx512::Avx512KeysToken,
}

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// The backend, if this CPU has the AVX-512 subsets it uses.
    pub(crate) fn new() -> Option<Self> {
        let nibbles = nibble::x86_64::avx512::Avx512Token::new()?;
        let keys = crate::keys::x86_64::avx512::Avx512KeysToken::new()?;
        Some(Avx512 { nibbles, keys })
    }
}

#[cfg(target_arch = "x86_64")]
impl SortBackend for Avx512 {
    fn name(&self) -> &'static str {
        "avx512"
    }

    fn status(&self) -> String {
        nibble::x86_64::avx512::Avx512Token::FEATURES.to_string()
    }

    fn supports(&self, workload: Workload) -> bool {
        matches!(workload, Workload::Nibbles | Workload::Keys(_))
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        self.keys.sort32(keys, map);
        Ok(())
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        self.keys.sort64(keys, map);
        Ok(())
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        NibbleKernel::Avx512(self.nibbles).sort(words);
        Ok(())
    }

    fn select_nth32(&self, keys: &mut [u32], n: usize, map: KeyMap) -> Result<()> {
        self.keys.select_nth32(keys, n, map);
        Ok(())
    }

    fn select_nth64(&self, keys: &mut [u64], n: usize, map: KeyMap) -> Result<()> {
        self.keys.select_nth64(keys, n, map);
        Ok(())
    }

    fn partial_sort32(&self, keys: &mut [u32], k: usize, map: KeyMap) -> Result<()> {
        self.keys.partial_sort32(keys, k, map);
        Ok(())
    }

    fn partial_sort64(&self, keys: &mut [u64], k: usize, map: KeyMap) -> Result<()> {
        self.keys.partial_sort64(keys, k, map);
        Ok(())
    }
    own!();
}

/// `radix`: stable LSD radix sort (an MSD pass in front and rayon for large inputs) for every
/// key type and for key/value pairs; runs everywhere. See [`radix`].
pub(crate) struct Radix;

impl SortBackend for Radix {
    fn name(&self) -> &'static str {
        "radix"
    }

    fn status(&self) -> String {
        format!(
            "8-bit LSD; an MSD pass and {} rayon threads once keys and scratch outgrow the {} KiB L2",
            rayon::current_num_threads(),
            crate::keys::cache::l2_bytes() >> 10,
        )
    }

    fn supports(&self, workload: Workload) -> bool {
        matches!(workload, Workload::Keys(_) | Workload::Pairs(_))
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        radix::sort32(keys, map);
        Ok(())
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        radix::sort64(keys, map);
        Ok(())
    }

    fn sort_pairs32(&self, keys: &mut [u32], values: &mut [u32], map: KeyMap) -> Result<()> {
        if keys.len() != values.len() {
            return Err(crate::Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        radix::sort_pairs32(keys, values, map);
        Ok(())
    }

    fn sort_pairs64(&self, keys: &mut [u64], values: &mut [u32], map: KeyMap) -> Result<()> {
        if keys.len() != values.len() {
            return Err(crate::Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        radix::sort_pairs64(keys, values, map);
        Ok(())
    }

    fn sort_keys32_descending(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        radix::sort32_descending(keys, map);
        Ok(())
    }

    fn sort_keys64_descending(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        radix::sort64_descending(keys, map);
        Ok(())
    }

    fn sort_pairs32_values(&self, keys: &mut [u32], values: Values<'_>, map: KeyMap) -> Result<()> {
        if keys.len() != values.len() {
            return Err(crate::Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        each_width!(values.0, v => radix::sort_pairs32_values(keys, v, map));
        Ok(())
    }

    fn sort_pairs64_values(&self, keys: &mut [u64], values: Values<'_>, map: KeyMap) -> Result<()> {
        if keys.len() != values.len() {
            return Err(crate::Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        each_width!(values.0, v => radix::sort_pairs64_values(keys, v, map));
        Ok(())
    }

    cpu_select!();
    own!();
}
