//! Order-preserving maps from every key type to unsigned bits: the one place where `i32`,
//! `f32`, `i64` and `f64` become `u32`/`u64`. Backends sort the unsigned bits; the map is
//! passed along so that a backend may fuse it into a pass it makes anyway (radix applies it
//! in its first and last pass, the GPU in its shaders) instead of a separate sweep.

/// How a key's bits map to an unsigned integer with the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyMap {
    /// Unsigned keys: the bits as they are.
    Unsigned,
    /// Two's complement keys: flip the sign bit.
    Signed,
    /// IEEE-754 keys in total order (`total_cmp`): flip every bit of a negative number and
    /// only the sign bit of a positive one, so -NaN < -inf < .. < -0.0 < +0.0 < .. < +NaN.
    Float,
}

impl KeyMap {
    /// The order-preserving unsigned image of a 32-bit key.
    #[inline(always)]
    pub fn encode32(self, x: u32) -> u32 {
        const SIGN: u32 = 1 << 31;
        match self {
            KeyMap::Unsigned => x,
            KeyMap::Signed => x ^ SIGN,
            // Arithmetic shift smears the sign bit: all ones for negatives, zero otherwise.
            KeyMap::Float => x ^ (((x as i32) >> 31) as u32 | SIGN),
        }
    }

    /// Inverse of [`encode32`](Self::encode32).
    #[inline(always)]
    pub fn decode32(self, x: u32) -> u32 {
        const SIGN: u32 = 1 << 31;
        match self {
            KeyMap::Unsigned => x,
            KeyMap::Signed => x ^ SIGN,
            // Encoded positives have the top bit set; encoded negatives have it clear.
            KeyMap::Float => x ^ ((!((x as i32) >> 31)) as u32 | SIGN),
        }
    }

    /// The order-preserving unsigned image of a 64-bit key.
    #[inline(always)]
    pub fn encode64(self, x: u64) -> u64 {
        const SIGN: u64 = 1 << 63;
        match self {
            KeyMap::Unsigned => x,
            KeyMap::Signed => x ^ SIGN,
            KeyMap::Float => x ^ (((x as i64) >> 63) as u64 | SIGN),
        }
    }

    /// Inverse of [`encode64`](Self::encode64).
    #[inline(always)]
    pub fn decode64(self, x: u64) -> u64 {
        const SIGN: u64 = 1 << 63;
        match self {
            KeyMap::Unsigned => x,
            KeyMap::Signed => x ^ SIGN,
            KeyMap::Float => x ^ ((!((x as i64) >> 63)) as u64 | SIGN),
        }
    }

    /// Encodes a slice in place (a no-op for unsigned keys).
    pub fn encode_slice32(self, keys: &mut [u32]) {
        if self != KeyMap::Unsigned {
            keys.iter_mut().for_each(|k| *k = self.encode32(*k));
        }
    }

    /// Decodes a slice in place (a no-op for unsigned keys).
    pub fn decode_slice32(self, keys: &mut [u32]) {
        if self != KeyMap::Unsigned {
            keys.iter_mut().for_each(|k| *k = self.decode32(*k));
        }
    }

    /// Encodes a slice in place (a no-op for unsigned keys).
    pub fn encode_slice64(self, keys: &mut [u64]) {
        if self != KeyMap::Unsigned {
            keys.iter_mut().for_each(|k| *k = self.encode64(*k));
        }
    }

    /// Decodes a slice in place (a no-op for unsigned keys).
    pub fn decode_slice64(self, keys: &mut [u64]) {
        if self != KeyMap::Unsigned {
            keys.iter_mut().for_each(|k| *k = self.decode64(*k));
        }
    }

    /// The order-preserving unsigned image of a 128-bit key (`u128`, `i128`).
    #[inline(always)]
    pub fn encode128(self, x: u128) -> u128 {
        const SIGN: u128 = 1 << 127;
        match self {
            KeyMap::Unsigned => x,
            KeyMap::Signed => x ^ SIGN,
            KeyMap::Float => x ^ (((x as i128) >> 127) as u128 | SIGN),
        }
    }

    /// Inverse of [`encode128`](Self::encode128).
    #[inline(always)]
    pub fn decode128(self, x: u128) -> u128 {
        const SIGN: u128 = 1 << 127;
        match self {
            KeyMap::Unsigned => x,
            KeyMap::Signed => x ^ SIGN,
            KeyMap::Float => x ^ ((!((x as i128) >> 127)) as u128 | SIGN),
        }
    }
}

/// Width of a key's unsigned image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyWidth {
    /// `u32`, `i32`, `f32`; also `u8`, `i8`, `u16`, `i16`, which backends without a small-key
    /// path sort widened to 32 bits, and `usize`, `isize` on 32-bit targets.
    W32,
    /// `u64`, `i64`, `f64`; `usize`, `isize` on 64-bit targets. Also `u128` and `i128`,
    /// which no backend takes through its width-specific methods: the calls on
    /// `dyn SortBackend` send 16-byte keys to the crate's one CPU engine for them (see
    /// [`SortBackend::supports_key`](crate::SortBackend#method.supports_key)).
    W64,
}

mod sealed {
    /// Every key is plain old data: any bit pattern is a valid key, so slices of keys may be
    /// viewed as their unsigned images (`bytemuck` checks sizes and alignments).
    pub trait Sealed: bytemuck::Pod {}
}

/// A key type the crate sorts: `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `f32`, `u64`, `i64`,
/// `f64`, `usize`, `isize`, `u128`, `i128`.
///
/// Sealed: each key of 4 or 8 bytes is reinterpreted in place as the unsigned integer of its
/// width (same size and alignment) and sorted through that width's core with its
/// [`KeyMap`]; `usize` and `isize` take the core of the target's pointer width. Keys of 1 and
/// 2 bytes take a counting sort on the CPU and are widened to 32 bits for the others. Keys of
/// 16 bytes (Arrow's `Decimal128`, `FixedSizeBinary(16)`) take the CPU's 128-bit radix sort
/// on every backend that sorts keys on the CPU; their `WIDTH` is [`KeyWidth::W64`], the
/// widest a [`Workload`](crate::Workload) names.
pub trait Key: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The key's map to unsigned bits.
    const MAP: KeyMap;
    /// The width of the unsigned image.
    const WIDTH: KeyWidth;
    /// A short name for messages and benches, e.g. `"f32"`.
    const NAME: &'static str;
    /// The order the crate sorts by: `total_cmp` for floats, `Ord` otherwise.
    fn key_cmp(&self, other: &Self) -> std::cmp::Ordering;
}

macro_rules! impl_key {
    ($t:ty, $bits:ty, $map:expr, $width:expr, $cmp:ident) => {
        impl sealed::Sealed for $t {}
        impl Key for $t {
            const MAP: KeyMap = $map;
            const WIDTH: KeyWidth = $width;
            const NAME: &'static str = stringify!($t);
            #[inline]
            fn key_cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.$cmp(other)
            }
        }
        const _: () = assert!(
            std::mem::size_of::<$t>() == std::mem::size_of::<$bits>()
                && std::mem::align_of::<$t>() == std::mem::align_of::<$bits>()
        );
    };
}

impl_key!(u32, u32, KeyMap::Unsigned, KeyWidth::W32, cmp);
impl_key!(i32, u32, KeyMap::Signed, KeyWidth::W32, cmp);
impl_key!(f32, u32, KeyMap::Float, KeyWidth::W32, total_cmp);
impl_key!(u64, u64, KeyMap::Unsigned, KeyWidth::W64, cmp);
impl_key!(i64, u64, KeyMap::Signed, KeyWidth::W64, cmp);
impl_key!(f64, u64, KeyMap::Float, KeyWidth::W64, total_cmp);
impl_key!(u8, u8, KeyMap::Unsigned, KeyWidth::W32, cmp);
impl_key!(i8, u8, KeyMap::Signed, KeyWidth::W32, cmp);
impl_key!(u16, u16, KeyMap::Unsigned, KeyWidth::W32, cmp);
impl_key!(i16, u16, KeyMap::Signed, KeyWidth::W32, cmp);
impl_key!(u128, u128, KeyMap::Unsigned, KeyWidth::W64, cmp);
impl_key!(i128, u128, KeyMap::Signed, KeyWidth::W64, cmp);
#[cfg(target_pointer_width = "64")]
impl_key!(usize, u64, KeyMap::Unsigned, KeyWidth::W64, cmp);
#[cfg(target_pointer_width = "64")]
impl_key!(isize, u64, KeyMap::Signed, KeyWidth::W64, cmp);
#[cfg(target_pointer_width = "32")]
impl_key!(usize, u32, KeyMap::Unsigned, KeyWidth::W32, cmp);
#[cfg(target_pointer_width = "32")]
impl_key!(isize, u32, KeyMap::Signed, KeyWidth::W32, cmp);

/// The order-preserving unsigned image of a 1- or 2-byte key (`K::MAP` applied), widened to
/// 32 bits. Only for those keys (see [`is_small`]).
#[inline(always)]
pub(crate) fn small_image<K: Key>(k: K) -> u32 {
    let (bits, sign) = match std::mem::size_of::<K>() {
        1 => (u32::from(bytemuck::cast::<K, u8>(k)), 1u32 << 7),
        2 => (u32::from(bytemuck::cast::<K, u16>(k)), 1u32 << 15),
        _ => unreachable!("small_image is for 1- and 2-byte keys"),
    };
    match K::MAP {
        KeyMap::Signed => bits ^ sign,
        _ => bits,
    }
}

/// Inverse of [`small_image`].
#[inline(always)]
pub(crate) fn from_small_image<K: Key>(image: u32) -> K {
    match std::mem::size_of::<K>() {
        1 => {
            let b = image as u8 ^ if K::MAP == KeyMap::Signed { 1 << 7 } else { 0 };
            bytemuck::cast::<u8, K>(b)
        }
        2 => {
            let b = image as u16 ^ if K::MAP == KeyMap::Signed { 1 << 15 } else { 0 };
            bytemuck::cast::<u16, K>(b)
        }
        _ => unreachable!("from_small_image is for 1- and 2-byte keys"),
    }
}

/// Whether `K` is a 1- or 2-byte key (counted, or widened to 32 bits).
#[inline(always)]
pub(crate) const fn is_small<K: Key>() -> bool {
    std::mem::size_of::<K>() < 4
}

/// Whether `K` is a 16-byte key (`u128`, `i128`: the CPU's 128-bit sort, `keys128`).
#[inline(always)]
pub(crate) const fn is_wide<K: Key>() -> bool {
    std::mem::size_of::<K>() == 16
}

/// Views a key slice as its 128-bit unsigned image. `None` if `K` is not 16 bytes wide.
pub(crate) fn as_bits128<K: Key>(keys: &mut [K]) -> Option<&mut [u128]> {
    if !is_wide::<K>() {
        return None;
    }
    // SAFETY: the 16-byte keys (u128, i128) have the size and alignment of u128 (checked at
    // compile time in `impl_key!`) and every bit pattern is valid for both types.
    Some(unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<u128>(), keys.len()) })
}

/// The unsigned bits of a 16-byte key (see [`is_wide`]), unmapped.
#[inline(always)]
pub(crate) fn bits128<K: Key>(k: K) -> u128 {
    bytemuck::cast::<K, u128>(k)
}

/// Views a key slice as its 32-bit unsigned image. `None` if `K` is not 32 bits wide.
pub(crate) fn as_bits32<K: Key>(keys: &mut [K]) -> Option<&mut [u32]> {
    if K::WIDTH != KeyWidth::W32 || std::mem::size_of::<K>() != 4 {
        return None;
    }
    // SAFETY: every 4-byte `Key` (u32, i32, f32, 32-bit usize/isize) has the size and alignment of u32 (checked
    // at compile time in `impl_key!`) and every bit pattern is valid for both types, so the
    // slice may be viewed as u32 for the lifetime of the borrow.
    Some(unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<u32>(), keys.len()) })
}

/// Views a key slice as its 64-bit unsigned image. `None` if `K` is not 64 bits wide.
pub(crate) fn as_bits64<K: Key>(keys: &mut [K]) -> Option<&mut [u64]> {
    if K::WIDTH != KeyWidth::W64 || std::mem::size_of::<K>() != 8 {
        return None;
    }
    // SAFETY: every 8-byte `Key` (u64, i64, f64, 64-bit usize/isize) has the size and alignment of u64 (checked
    // at compile time in `impl_key!`) and every bit pattern is valid for both types.
    Some(unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<u64>(), keys.len()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specials32() -> Vec<f32> {
        vec![
            f32::from_bits(0xffc0_0000), // -NaN
            f32::NEG_INFINITY,
            f32::MIN,
            -1.0,
            -f32::MIN_POSITIVE,
            -f32::from_bits(1), // negative subnormal
            -0.0,
            0.0,
            f32::from_bits(1),
            f32::MIN_POSITIVE,
            1.0,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
        ]
    }

    #[test]
    fn float_map_is_total_order_and_invertible() {
        let v = specials32();
        for a in &v {
            let ea = KeyMap::Float.encode32(a.to_bits());
            assert_eq!(KeyMap::Float.decode32(ea), a.to_bits());
            for b in &v {
                let eb = KeyMap::Float.encode32(b.to_bits());
                assert_eq!(ea.cmp(&eb), a.total_cmp(b), "{a} vs {b}");
            }
        }
        for a in &v {
            let a = *a as f64;
            let ea = KeyMap::Float.encode64(a.to_bits());
            assert_eq!(KeyMap::Float.decode64(ea), a.to_bits());
            for b in &v {
                let b = *b as f64;
                let eb = KeyMap::Float.encode64(b.to_bits());
                assert_eq!(ea.cmp(&eb), a.total_cmp(&b), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn signed_map_preserves_order() {
        let v = [i32::MIN, -5, -1, 0, 1, 7, i32::MAX];
        for a in v {
            for b in v {
                let (ea, eb) = (
                    KeyMap::Signed.encode32(a as u32),
                    KeyMap::Signed.encode32(b as u32),
                );
                assert_eq!(ea.cmp(&eb), a.cmp(&b));
                assert_eq!(KeyMap::Signed.decode32(ea), a as u32);
            }
        }
        let w = [i64::MIN, -5, 0, 3, i64::MAX];
        for a in w {
            for b in w {
                let (ea, eb) = (
                    KeyMap::Signed.encode64(a as u64),
                    KeyMap::Signed.encode64(b as u64),
                );
                assert_eq!(ea.cmp(&eb), a.cmp(&b));
                assert_eq!(KeyMap::Signed.decode64(ea), a as u64);
            }
        }
    }
}
