//! One sort column as unsigned codes: each row's code compares as the row compares under
//! the column's [`SortOptions`] (descending, nulls first or last), so that a stable
//! ascending sort of the codes is the column's stable sort.
//!
//! Codes are offsets from the column's smallest image (the largest one, descending), so a
//! column whose values span a narrow range takes few bits: dates, small integers,
//! dictionary ranks and booleans pack several columns into one 64-bit key, or one column
//! into a 32-bit key (see [`crate::engine`]). Nulls take a code of their own below or above
//! the values, which costs one more value in the range; a column whose values span all 64
//! bits and has nulls keeps them apart instead ([`Code::nulls`]). 128-bit values spanning
//! more than 64 bits keep 128-bit codes, and byte strings (strings, binary) are sorted as
//! they are; both keep their nulls apart.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrowPrimitiveType, DictionaryArray, GenericByteArray, PrimitiveArray};
use arrow_buffer::{ArrowNativeType, NullBuffer};
use arrow_schema::{ArrowError, DataType, IntervalUnit, SortOptions, TimeUnit};

use crate::image::{Image, Ordered};

/// A column's keys, one per row; a null row's key is only meaningful where
/// [`Code::nulls`] is `None`.
pub(crate) enum Keys<'a> {
    /// Codes of [`Code::bits`] bits.
    W64(Vec<u64>),
    /// Codes of 128 bits (nulls apart).
    W128(Vec<u128>),
    /// Each row's bytes, compared as byte strings, with whether the order is descending
    /// (nulls apart).
    Bytes(Vec<&'a [u8]>, bool),
}

/// A column's keys, one per row.
pub(crate) struct Code<'a> {
    /// The keys.
    pub(crate) keys: Keys<'a>,
    /// How many low bits [`Keys::W64`] codes use (0 when every code is 0).
    pub(crate) bits: u32,
    /// The logical nulls, kept apart (not coded) for a column whose values span all 64
    /// bits or more and for byte strings, with whether they go first.
    pub(crate) nulls: Option<(NullBuffer, bool)>,
}

/// The codes of `array` under `options`, or `None` for a type this crate leaves to arrow-ord
/// (listed in the crate docs).
pub(crate) fn of(array: &dyn Array, options: SortOptions) -> Result<Option<Code<'_>>, ArrowError> {
    macro_rules! primitive {
        ($t:ty) => {
            Ok(encode_primitive(array.as_primitive::<$t>(), options))
        };
    }
    use DataType::*;
    match array.data_type() {
        Int8 => primitive!(Int8Type),
        Int16 => primitive!(Int16Type),
        Int32 => primitive!(Int32Type),
        Int64 => primitive!(Int64Type),
        UInt8 => primitive!(UInt8Type),
        UInt16 => primitive!(UInt16Type),
        UInt32 => primitive!(UInt32Type),
        UInt64 => primitive!(UInt64Type),
        Float16 => primitive!(Float16Type),
        Float32 => primitive!(Float32Type),
        Float64 => primitive!(Float64Type),
        Date32 => primitive!(Date32Type),
        Date64 => primitive!(Date64Type),
        Time32(TimeUnit::Second) => primitive!(Time32SecondType),
        Time32(TimeUnit::Millisecond) => primitive!(Time32MillisecondType),
        Time64(TimeUnit::Microsecond) => primitive!(Time64MicrosecondType),
        Time64(TimeUnit::Nanosecond) => primitive!(Time64NanosecondType),
        Timestamp(TimeUnit::Second, _) => primitive!(TimestampSecondType),
        Timestamp(TimeUnit::Millisecond, _) => primitive!(TimestampMillisecondType),
        Timestamp(TimeUnit::Microsecond, _) => primitive!(TimestampMicrosecondType),
        Timestamp(TimeUnit::Nanosecond, _) => primitive!(TimestampNanosecondType),
        Duration(TimeUnit::Second) => primitive!(DurationSecondType),
        Duration(TimeUnit::Millisecond) => primitive!(DurationMillisecondType),
        Duration(TimeUnit::Microsecond) => primitive!(DurationMicrosecondType),
        Duration(TimeUnit::Nanosecond) => primitive!(DurationNanosecondType),
        Interval(IntervalUnit::YearMonth) => primitive!(IntervalYearMonthType),
        Interval(IntervalUnit::DayTime) => primitive!(IntervalDayTimeType),
        Interval(IntervalUnit::MonthDayNano) => primitive!(IntervalMonthDayNanoType),
        Decimal32(_, _) => primitive!(Decimal32Type),
        Decimal64(_, _) => primitive!(Decimal64Type),
        Decimal128(_, _) => primitive!(Decimal128Type),
        Utf8 => Ok(Some(bytes(
            array,
            options,
            byte_rows(array.as_string::<i32>()),
        ))),
        LargeUtf8 => Ok(Some(bytes(
            array,
            options,
            byte_rows(array.as_string::<i64>()),
        ))),
        Binary => Ok(Some(bytes(
            array,
            options,
            byte_rows(array.as_binary::<i32>()),
        ))),
        LargeBinary => Ok(Some(bytes(
            array,
            options,
            byte_rows(array.as_binary::<i64>()),
        ))),
        Utf8View => {
            let a = array.as_string_view();
            let rows = (0..a.len()).map(|i| a.value(i).as_bytes());
            Ok(Some(bytes(array, options, rows)))
        }
        BinaryView => {
            let a = array.as_binary_view();
            Ok(Some(bytes(
                array,
                options,
                (0..a.len()).map(|i| a.value(i)),
            )))
        }
        FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            Ok(Some(bytes(
                array,
                options,
                (0..a.len()).map(|i| a.value(i)),
            )))
        }
        Boolean => {
            let array = array.as_boolean();
            let bits: Vec<u8> = array.values().iter().map(u8::from).collect();
            Ok(encode(&bits, array.nulls(), options))
        }
        Dictionary(key, _) => match key.as_ref() {
            Int8 => dictionary(array.as_dictionary::<Int8Type>(), options),
            Int16 => dictionary(array.as_dictionary::<Int16Type>(), options),
            Int32 => dictionary(array.as_dictionary::<Int32Type>(), options),
            Int64 => dictionary(array.as_dictionary::<Int64Type>(), options),
            UInt8 => dictionary(array.as_dictionary::<UInt8Type>(), options),
            UInt16 => dictionary(array.as_dictionary::<UInt16Type>(), options),
            UInt32 => dictionary(array.as_dictionary::<UInt32Type>(), options),
            UInt64 => dictionary(array.as_dictionary::<UInt64Type>(), options),
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// Each row's bytes in a string or binary array with offsets.
fn byte_rows<T: ByteArrayType>(array: &GenericByteArray<T>) -> impl Iterator<Item = &[u8]> {
    let data = array.value_data();
    array
        .value_offsets()
        .windows(2)
        .map(move |w| &data[w[0].as_usize()..w[1].as_usize()])
}

/// A byte-string column: each row's bytes (a null row's slot, whatever it holds).
fn bytes<'a>(
    array: &dyn Array,
    options: SortOptions,
    rows: impl Iterator<Item = &'a [u8]>,
) -> Code<'a> {
    Code {
        keys: Keys::Bytes(rows.collect(), options.descending),
        bits: 0,
        nulls: array
            .logical_nulls()
            .filter(|n| n.null_count() > 0)
            .map(|n| (n, options.nulls_first)),
    }
}

fn encode_primitive<T>(array: &PrimitiveArray<T>, options: SortOptions) -> Option<Code<'static>>
where
    T: ArrowPrimitiveType,
    T::Native: Ordered,
{
    encode(array.values(), array.nulls(), options)
}

/// A dictionary column by the rank of each row's value among the dictionary's values
/// (arrow-ord's own `rank`, so equal values share a rank, over the dictionary's values
/// only); the rows themselves are sorted here. A row whose key is null or points at a null
/// value is null (the logical nulls, as arrow-ord's comparators see them). `None` where
/// `rank` does not take the values' type.
fn dictionary<K: ArrowDictionaryKeyType>(
    array: &DictionaryArray<K>,
    options: SortOptions,
) -> Result<Option<Code<'static>>, ArrowError> {
    let ascending = SortOptions {
        descending: false,
        nulls_first: true,
    };
    let Ok(rank) = arrow_ord::rank::rank(array.values().as_ref(), Some(ascending)) else {
        return Ok(None);
    };
    // A null key's slot may hold any value, even one past the dictionary: it reads rank 0,
    // and its code is replaced by the null code.
    let ranks: Vec<u32> = array
        .keys()
        .values()
        .iter()
        .map(|k| rank.get(k.as_usize()).copied().unwrap_or(0))
        .collect();
    Ok(encode(&ranks, array.logical_nulls().as_ref(), options))
}

/// The codes of `values` with the validity `nulls`.
fn encode<T: Ordered>(
    values: &[T],
    nulls: Option<&NullBuffer>,
    options: SortOptions,
) -> Option<Code<'static>> {
    let nulls = nulls.filter(|n| n.null_count() > 0);
    let (low, high) = match nulls {
        None => min_max(values.iter().map(|v| v.image())),
        Some(n) => min_max(n.valid_indices().map(|i| values[i].image())),
    };
    let Some((low, high)) = low.zip(high) else {
        // Every row is null: all rows are equal.
        return Some(Code {
            keys: Keys::W64(vec![0; values.len()]),
            bits: 0,
            nulls: None,
        });
    };
    let Some(span) = <T::Image as Image>::span(high, low) else {
        return Some(wide(values, low, high, nulls, options));
    };
    let descending = options.descending;
    let code = |v: &T| {
        let offset = v.image().offset(low);
        if descending {
            span.wrapping_sub(offset)
        } else {
            offset
        }
    };
    let Some(nulls) = nulls else {
        return Some(Code {
            keys: Keys::W64(values.iter().map(code).collect()),
            bits: bits_for(span),
            nulls: None,
        });
    };
    if span == u64::MAX {
        // No code is left for the nulls: they are kept apart.
        return Some(Code {
            keys: Keys::W64(values.iter().map(code).collect()),
            bits: 64,
            nulls: Some((nulls.clone(), options.nulls_first)),
        });
    }
    // Nulls first: code 0 and the values from 1; nulls last: the code after the values.
    let (shift, null_code) = if options.nulls_first {
        (1, 0)
    } else {
        (0, span + 1)
    };
    // Null rows' codes wrap (their slots hold any value) until they are replaced below.
    let mut codes: Vec<u64> = values.iter().map(|v| code(v).wrapping_add(shift)).collect();
    for i in (!nulls.inner()).set_indices() {
        codes[i] = null_code;
    }
    Some(Code {
        keys: Keys::W64(codes),
        bits: bits_for(span + 1),
        nulls: None,
    })
}

/// 128-bit codes for values spanning more than 64 bits, from the smallest image `low` (the
/// largest, `high`, descending); nulls apart.
fn wide<T: Ordered>(
    values: &[T],
    low: T::Image,
    high: T::Image,
    nulls: Option<&NullBuffer>,
    options: SortOptions,
) -> Code<'static> {
    let codes = values
        .iter()
        .map(|v| {
            let x = v.image();
            if options.descending {
                high.wide_offset(x)
            } else {
                x.wide_offset(low)
            }
        })
        .collect();
    Code {
        keys: Keys::W128(codes),
        bits: 128,
        nulls: nulls.map(|n| (n.clone(), options.nulls_first)),
    }
}

/// The smallest and largest image, in one pass.
fn min_max<I: Image>(images: impl Iterator<Item = I>) -> (Option<I>, Option<I>) {
    let (low, high, any) = images.fold((I::MAX, I::ZERO, false), |(lo, hi, _), x| {
        (lo.min(x), hi.max(x), true)
    });
    if any {
        (Some(low), Some(high))
    } else {
        (None, None)
    }
}

/// Bits needed to hold every code up to `top`.
fn bits_for(top: u64) -> u32 {
    u64::BITS - top.leading_zeros()
}
