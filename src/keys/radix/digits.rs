//! Keys as digits: [`RadixKey`] (an unsigned key read `W` bits at a time), [`Codec`] (a
//! [`KeyMap`] lifted to the type level) and [`Buf`] (key and value arrays as raw pointers).

use crate::keys::key::KeyMap;

/// Bits per digit of the MSD route (its MSD pass and its buckets' LSD passes), and of plain
/// LSD sorts below [`WIDE_DIGITS_MIN_LEN32`] / [`WIDE_DIGITS_MIN_LEN64`]: 256 buckets, whose
/// histograms, write positions and write-combining lines stay in L1.
pub(super) const NARROW: u32 = 8;
/// Bits per digit of plain LSD sorts from [`WIDE_DIGITS_MIN_LEN32`] /
/// [`WIDE_DIGITS_MIN_LEN64`] keys on: 2048 buckets, 3 passes instead of 4 for 32-bit keys and
/// 6 instead of 8 for 64-bit keys.
pub(super) const WIDE: u32 = 11;

/// An unsigned key as a sequence of `W`-bit digits, least significant first.
pub(crate) trait RadixKey:
    crate::keys::few::CountKey
    + Copy
    + Ord
    + Send
    + Sync
    + 'static
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Shr<u32, Output = Self>
{
    /// Bits in the key.
    const BITS: u32;
    /// All bits set.
    const ONES: Self;
    /// No bit set.
    const ZERO: Self;
    /// The `W` bits of the key from bit `shift` up.
    fn field<const W: u32>(self, shift: u32) -> usize;
    /// Digit `i` (0 = least significant) of the key, digits being `W` bits wide.
    #[inline(always)]
    fn digit<const W: u32>(self, i: usize) -> usize {
        self.field::<W>(W * i as u32)
    }
}

/// Digits of `W` bits in a key of type `K` (the last one may be narrower).
pub(super) const fn digits<K: RadixKey, const W: u32>() -> usize {
    K::BITS.div_ceil(W) as usize
}

impl RadixKey for u32 {
    const BITS: u32 = u32::BITS;
    const ONES: Self = u32::MAX;
    const ZERO: Self = 0;
    #[inline(always)]
    fn field<const W: u32>(self, shift: u32) -> usize {
        ((self >> shift) & ((1 << W) - 1)) as usize
    }
}

impl RadixKey for u64 {
    const BITS: u32 = u64::BITS;
    const ONES: Self = u64::MAX;
    const ZERO: Self = 0;
    #[inline(always)]
    fn field<const W: u32>(self, shift: u32) -> usize {
        ((self >> shift) & ((1 << W) - 1)) as usize
    }
}

/// A [`KeyMap`] lifted to the type level, so that the inner loops are compiled once per map
/// and hold no branch on it.
pub(super) trait Codec<K>: Send + Sync {
    fn encode(k: K) -> K;
    fn decode(k: K) -> K;
}

pub(super) struct Unsigned;
pub(super) struct Signed;
pub(super) struct Float;

macro_rules! codec {
    ($ty:ident, $variant:ident) => {
        impl Codec<u32> for $ty {
            #[inline(always)]
            fn encode(k: u32) -> u32 {
                KeyMap::$variant.encode32(k)
            }
            #[inline(always)]
            fn decode(k: u32) -> u32 {
                KeyMap::$variant.decode32(k)
            }
        }
        impl Codec<u64> for $ty {
            #[inline(always)]
            fn encode(k: u64) -> u64 {
                KeyMap::$variant.encode64(k)
            }
            #[inline(always)]
            fn decode(k: u64) -> u64 {
                KeyMap::$variant.decode64(k)
            }
        }
    };
}
codec!(Unsigned, Unsigned);
codec!(Signed, Signed);
codec!(Float, Float);

/// Bytes one element occupies in the sort's arrays: its key and its value. The cache
/// decisions (MSD route, skewed buckets, buffer sizes, streaming) weigh whole elements, so
/// that pairs and records get the working sets that keys alone get.
pub(super) const fn elem_bytes<K, V>() -> usize {
    std::mem::size_of::<K>() + std::mem::size_of::<V>()
}

/// Key and value arrays seen through raw pointers, so that disjoint ranges can be handed to
/// rayon threads and so that the scratch buffer can be used before it is initialised.
pub(super) struct Buf<K, V> {
    pub(super) k: *mut K,
    pub(super) v: *mut V,
}

impl<K, V> Clone for Buf<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, V> Copy for Buf<K, V> {}

// SAFETY: a `Buf` is only a pair of addresses; every function that dereferences it is
// `unsafe` and its callers guarantee that threads touch disjoint ranges (each chunk or bucket
// is owned by exactly one task), which is what moving `&mut [K]` to a thread guarantees too.
unsafe impl<K: Send, V: Send> Send for Buf<K, V> {}
// SAFETY: as above; shared references to a `Buf` only read the two addresses.
unsafe impl<K: Send, V: Send> Sync for Buf<K, V> {}

impl<K, V> Buf<K, V> {
    /// The buffer starting `i` elements later.
    ///
    /// # Safety
    /// `i` must stay within (or one past) the allocation of both arrays.
    #[inline(always)]
    pub(super) unsafe fn add(self, i: usize) -> Self {
        // SAFETY: the caller keeps `i` inside the allocations.
        unsafe {
            Buf {
                k: self.k.add(i),
                v: self.v.add(i),
            }
        }
    }
}
