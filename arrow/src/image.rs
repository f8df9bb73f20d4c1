//! Order-preserving unsigned images of Arrow's native values: the one place where signed
//! integers, floats, intervals and decimals become unsigned integers that compare in the
//! order arrow-ord compares the values (`ArrowNativeTypeOp::compare`: integer order, IEEE-754
//! total order for floats, so -NaN < -inf < -0.0 < +0.0 < +inf < +NaN).

use arrow_buffer::{IntervalDayTime, IntervalMonthDayNano};
use half::f16;

/// An unsigned image wide enough for a native type: `u64` for values of up to 64 bits,
/// `u128` for 128-bit decimals and month-day-nano intervals.
pub(crate) trait Image: Copy + Ord + Send + Sync {
    /// The smallest image.
    const ZERO: Self;
    /// The largest image.
    const MAX: Self;
    /// `high - low` where that fits 64 bits (`high >= low`).
    fn span(high: Self, low: Self) -> Option<u64>;
    /// The low 64 bits of `self - low`, exact where [`span`](Self::span) of the column's
    /// images fits; wrapping otherwise (for rows whose result is overwritten).
    fn offset(self, low: Self) -> u64;
    /// `self - low` in 128 bits, wrapping (for rows whose result is overwritten).
    fn wide_offset(self, low: Self) -> u128;
}

impl Image for u64 {
    const ZERO: Self = 0;
    const MAX: Self = u64::MAX;
    #[inline(always)]
    fn span(high: Self, low: Self) -> Option<u64> {
        Some(high - low)
    }
    #[inline(always)]
    fn offset(self, low: Self) -> u64 {
        self.wrapping_sub(low)
    }
    #[inline(always)]
    fn wide_offset(self, low: Self) -> u128 {
        u128::from(self.wrapping_sub(low))
    }
}

impl Image for u128 {
    const ZERO: Self = 0;
    const MAX: Self = u128::MAX;
    #[inline(always)]
    fn span(high: Self, low: Self) -> Option<u64> {
        u64::try_from(high - low).ok()
    }
    #[inline(always)]
    fn offset(self, low: Self) -> u64 {
        self.wrapping_sub(low) as u64
    }
    #[inline(always)]
    fn wide_offset(self, low: Self) -> u128 {
        self.wrapping_sub(low)
    }
}

/// A native value with an order-preserving unsigned image.
pub(crate) trait Ordered: Copy + Send + Sync {
    /// The image's type.
    type Image: Image;
    /// The image: `a < b` in arrow-ord's order exactly when `a.image() < b.image()`, and
    /// equal values (equal bits, for floats) have equal images.
    fn image(self) -> Self::Image;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Ordered for $t {
            type Image = u64;
            #[inline(always)]
            fn image(self) -> u64 {
                u64::from(self)
            }
        }
    )*};
}
unsigned!(u8, u16, u32, u64);

macro_rules! signed {
    ($($t:ty => $u:ty),*) => {$(
        impl Ordered for $t {
            type Image = u64;
            #[inline(always)]
            fn image(self) -> u64 {
                // Flipping the sign bit maps two's complement order onto unsigned order.
                u64::from((self as $u) ^ (1 << (<$u>::BITS - 1)))
            }
        }
    )*};
}
signed!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

macro_rules! float {
    ($($t:ty => $u:ty, $i:ty),*) => {$(
        impl Ordered for $t {
            type Image = u64;
            #[inline(always)]
            fn image(self) -> u64 {
                // Total order: flip every bit of a negative number (arithmetic shift smears
                // the sign bit), only the sign bit of a positive one.
                let x = self.to_bits();
                let sign: $u = 1 << (<$u>::BITS - 1);
                u64::from(x ^ ((((x as $i) >> (<$u>::BITS - 1)) as $u) | sign))
            }
        }
    )*};
}
float!(f16 => u16, i16, f32 => u32, i32, f64 => u64, i64);

impl Ordered for i128 {
    type Image = u128;
    #[inline(always)]
    fn image(self) -> u128 {
        (self as u128) ^ (1 << 127)
    }
}

impl Ordered for IntervalDayTime {
    type Image = u64;
    /// Days, then milliseconds (the derived `Ord` arrow-ord compares with).
    #[inline(always)]
    fn image(self) -> u64 {
        (self.days.image() << 32) | self.milliseconds.image()
    }
}

impl Ordered for IntervalMonthDayNano {
    type Image = u128;
    /// Months, then days, then nanoseconds (the derived `Ord` arrow-ord compares with).
    #[inline(always)]
    fn image(self) -> u128 {
        (u128::from(self.months.image()) << 96)
            | (u128::from(self.days.image()) << 64)
            | u128::from(self.nanoseconds.image())
    }
}
