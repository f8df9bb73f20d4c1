//! sortnet-arrow against arrow-ord on random arrays with nulls, NaN, -0.0, extremes and
//! duplicates, for every served type (and a few that fall back), every option and limits.
//!
//! Our order is stable, so it is unique: it must equal, index for index, std's stable sort
//! of the row indices by arrow-ord's own comparator (`make_comparator`,
//! `LexicographicalComparator`). arrow-ord's `sort_to_indices` is unstable, so against it
//! each position must hold an equal key.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BooleanArray, DictionaryArray, PrimitiveArray,
    StringArray, UInt32Array,
};
use arrow_buffer::{IntervalDayTime, IntervalMonthDayNano};
use arrow_ord::ord::make_comparator;
use arrow_ord::sort::LexicographicalComparator;
use half::f16;
use sortnet_arrow::{SortColumn, SortOptions};

mod rng;
use rng::Rng;

/// Draws on top of the bits.
trait Draws {
    fn below(&mut self, n: u64) -> u64;
    fn chance(&mut self, percent: u64) -> bool;
}

impl Draws for Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// How a column's values are drawn.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Any bits.
    Any,
    /// Few distinct values (many ties).
    Few,
    /// Mostly the type's extremes and special values.
    Edges,
}

const SHAPES: [Shape; 3] = [Shape::Any, Shape::Few, Shape::Edges];

/// A random value of a native type, from 64 random bits and the shape.
trait Draw: Copy {
    fn draw(rng: &mut Rng, shape: Shape) -> Self;
}

macro_rules! draw_int {
    ($($t:ty),*) => {$(
        impl Draw for $t {
            fn draw(rng: &mut Rng, shape: Shape) -> Self {
                match shape {
                    Shape::Any => rng.next() as $t,
                    Shape::Few => (rng.below(5) as $t).wrapping_sub(2 as $t),
                    Shape::Edges => [<$t>::MIN, <$t>::MAX, 0 as $t, 1 as $t, <$t>::MIN.wrapping_add(1 as $t)]
                        [rng.below(5) as usize],
                }
            }
        }
    )*};
}
draw_int!(i8, i16, i32, i64, u8, u16, u32, u64, i128);

macro_rules! draw_float {
    ($($t:ty => $bits:ty),*) => {$(
        impl Draw for $t {
            fn draw(rng: &mut Rng, shape: Shape) -> Self {
                match shape {
                    Shape::Any => <$t>::from_bits(rng.next() as $bits),
                    Shape::Few => [-1.5, 0.0, 2.0][rng.below(3) as usize],
                    Shape::Edges => {
                        let nan = <$t>::NAN;
                        [
                            nan,
                            -nan,
                            <$t>::from_bits(nan.to_bits() | 1),
                            0.0,
                            -0.0,
                            <$t>::INFINITY,
                            <$t>::NEG_INFINITY,
                            <$t>::MIN_POSITIVE,
                        ][rng.below(8) as usize]
                    }
                }
            }
        }
    )*};
}
draw_float!(f32 => u32, f64 => u64);

impl Draw for f16 {
    fn draw(rng: &mut Rng, shape: Shape) -> Self {
        match shape {
            Shape::Any => f16::from_bits(rng.next() as u16),
            _ => f16::from_f32(f32::draw(rng, shape)),
        }
    }
}

impl Draw for IntervalDayTime {
    fn draw(rng: &mut Rng, shape: Shape) -> Self {
        IntervalDayTime::new(i32::draw(rng, shape), i32::draw(rng, shape))
    }
}

impl Draw for IntervalMonthDayNano {
    fn draw(rng: &mut Rng, shape: Shape) -> Self {
        IntervalMonthDayNano::new(
            i32::draw(rng, Shape::Few),
            i32::draw(rng, Shape::Few),
            i64::draw(rng, shape),
        )
    }
}

/// A random primitive array: `nulls` percent nulls (their slots hold random values too).
fn primitive<T>(rng: &mut Rng, len: usize, shape: Shape, nulls: u64) -> PrimitiveArray<T>
where
    T: ArrowPrimitiveType,
    T::Native: Draw,
{
    let values: Vec<T::Native> = (0..len).map(|_| T::Native::draw(rng, shape)).collect();
    let valid: Vec<bool> = (0..len).map(|_| !rng.chance(nulls)).collect();
    PrimitiveArray::<T>::new(values.into(), Some(valid.into()))
}

/// The option combinations arrow-ord takes, and `None` (its default).
fn every_option() -> Vec<Option<SortOptions>> {
    let mut all = vec![None];
    for descending in [false, true] {
        for nulls_first in [false, true] {
            all.push(Some(SortOptions {
                descending,
                nulls_first,
            }));
        }
    }
    all
}

/// Limits around the interesting points of a length (below the top-k cut, at and past it).
fn limits(len: usize) -> Vec<Option<usize>> {
    let mut all = vec![
        None,
        Some(0),
        Some(1),
        Some(3),
        Some(len / 20),
        Some(len / 2),
    ];
    all.extend([Some(len), Some(len + 5)]);
    all
}

/// Checks the sorts of `columns` with each of `limits` against arrow-ord; `what` names
/// the case.
fn check(columns: &[SortColumn], limits: &[Option<usize>], what: &str) {
    let len = columns[0].values.len();
    let cmp = LexicographicalComparator::try_new(columns).unwrap();
    let mut stable: Vec<usize> = (0..len).collect();
    stable.sort_by(|&a, &b| cmp.compare(a, b));
    for &limit in limits {
        let what = format!("{what} limit {limit:?}");
        let ours: UInt32Array = if columns.len() == 1 {
            let c = &columns[0];
            sortnet_arrow::sort_to_indices(c.values.as_ref(), c.options, limit)
        } else {
            sortnet_arrow::lexsort_to_indices(columns, limit)
        }
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let theirs = arrow_ord::sort::lexsort_to_indices(columns, limit).unwrap();
        assert_eq!(ours.null_count(), 0, "{what}");
        assert_eq!(ours.len(), theirs.len(), "{what}: lengths");
        for (p, (&a, &b)) in ours.values().iter().zip(theirs.values()).enumerate() {
            assert_eq!(
                cmp.compare(a as usize, b as usize),
                Ordering::Equal,
                "{what}: position {p} holds row {a}, arrow-ord's row {b}"
            );
        }
        let ours: Vec<usize> = ours.values().iter().map(|&i| i as usize).collect();
        let expected = &stable[..limit.unwrap_or(len).min(len)];
        assert_eq!(ours, expected, "{what}: not the stable order");
    }
}

/// Every option and limit for one array, through `sort_to_indices` and `sort`.
fn check_array(array: ArrayRef, what: &str) {
    for options in every_option() {
        let columns = [SortColumn {
            values: array.clone(),
            options,
        }];
        check(
            &columns,
            &limits(array.len()),
            &format!("{what} {options:?}"),
        );
        let ours = sortnet_arrow::sort(array.as_ref(), options).unwrap();
        let theirs = arrow_ord::sort::sort(array.as_ref(), options).unwrap();
        assert_eq!(ours.len(), theirs.len());
        assert_eq!(ours.data_type(), theirs.data_type());
        let cmp =
            make_comparator(ours.as_ref(), theirs.as_ref(), options.unwrap_or_default()).unwrap();
        for p in 0..ours.len() {
            assert_eq!(
                cmp(p, p),
                Ordering::Equal,
                "sort {what} {options:?}: position {p}"
            );
        }
    }
}

const LENGTHS: [usize; 6] = [0, 1, 2, 7, 100, 1000];

/// Every length, shape and null share for one primitive type.
fn check_type<T>(rng: &mut Rng, data_type: Option<arrow_schema::DataType>)
where
    T: ArrowPrimitiveType,
    T::Native: Draw,
{
    for len in LENGTHS {
        for shape in SHAPES {
            for nulls in [0, 20, 100] {
                let mut array = primitive::<T>(rng, len, shape, nulls);
                if let Some(t) = &data_type {
                    array = array.with_data_type(t.clone());
                }
                let what = format!("{} len {len} {shape:?} nulls {nulls}%", array.data_type());
                check_array(Arc::new(array), &what);
            }
        }
    }
}

#[test]
fn integers() {
    let mut rng = Rng(1);
    check_type::<Int8Type>(&mut rng, None);
    check_type::<Int16Type>(&mut rng, None);
    check_type::<Int32Type>(&mut rng, None);
    check_type::<Int64Type>(&mut rng, None);
    check_type::<UInt8Type>(&mut rng, None);
    check_type::<UInt16Type>(&mut rng, None);
    check_type::<UInt32Type>(&mut rng, None);
    check_type::<UInt64Type>(&mut rng, None);
}

#[test]
fn floats() {
    let mut rng = Rng(2);
    check_type::<Float16Type>(&mut rng, None);
    check_type::<Float32Type>(&mut rng, None);
    check_type::<Float64Type>(&mut rng, None);
}

#[test]
fn temporal() {
    use arrow_schema::{DataType, TimeUnit};
    let mut rng = Rng(3);
    check_type::<Date32Type>(&mut rng, None);
    check_type::<Date64Type>(&mut rng, None);
    check_type::<Time32SecondType>(&mut rng, None);
    check_type::<Time64NanosecondType>(&mut rng, None);
    let utc = DataType::Timestamp(TimeUnit::Millisecond, Some("+00:00".into()));
    check_type::<TimestampMillisecondType>(&mut rng, Some(utc));
    check_type::<TimestampNanosecondType>(&mut rng, None);
    check_type::<DurationMicrosecondType>(&mut rng, None);
    check_type::<IntervalYearMonthType>(&mut rng, None);
    check_type::<IntervalDayTimeType>(&mut rng, None);
    check_type::<IntervalMonthDayNanoType>(&mut rng, None);
}

#[test]
fn decimals() {
    use arrow_schema::DataType;
    let mut rng = Rng(4);
    check_type::<Decimal32Type>(&mut rng, Some(DataType::Decimal32(9, 2)));
    check_type::<Decimal64Type>(&mut rng, Some(DataType::Decimal64(18, 2)));
    // Values of any 128 bits (falls back past a 64-bit span) and of precision 18.
    check_type::<Decimal128Type>(&mut rng, Some(DataType::Decimal128(38, 0)));
    for len in [100, 1000] {
        let narrow = PrimitiveArray::<Decimal128Type>::from_iter(
            (0..len).map(|_| (!rng.chance(10)).then(|| i128::from(rng.next() as i64) / 7)),
        )
        .with_precision_and_scale(18, 3)
        .unwrap();
        check_array(Arc::new(narrow), "Decimal128(18, 3)");
    }
}

#[test]
fn booleans() {
    let mut rng = Rng(5);
    for len in LENGTHS {
        for nulls in [0, 30] {
            let array: BooleanArray = (0..len)
                .map(|_| (!rng.chance(nulls)).then(|| rng.chance(50)))
                .collect();
            check_array(
                Arc::new(array),
                &format!("Boolean len {len} nulls {nulls}%"),
            );
        }
    }
}

/// A dictionary of `len` rows over a few strings (one of them null), some keys null.
fn string_dictionary(rng: &mut Rng, len: usize) -> DictionaryArray<Int32Type> {
    let values = StringArray::from(vec![
        Some("pear"),
        None,
        Some("apple"),
        Some("fig"),
        Some("apple"),
    ]);
    let keys: PrimitiveArray<Int32Type> = (0..len)
        .map(|_| (!rng.chance(15)).then(|| rng.below(5) as i32))
        .collect();
    DictionaryArray::new(keys, Arc::new(values))
}

#[test]
fn dictionaries() {
    let mut rng = Rng(6);
    for len in LENGTHS {
        check_array(
            Arc::new(string_dictionary(&mut rng, len)),
            "Dictionary(Int32, Utf8)",
        );
        let values = primitive::<Float64Type>(&mut rng, 6, Shape::Edges, 20);
        let keys: PrimitiveArray<UInt8Type> = (0..len)
            .map(|_| (!rng.chance(10)).then(|| rng.below(6) as u8))
            .collect();
        let dict = DictionaryArray::new(keys, Arc::new(values));
        check_array(Arc::new(dict), "Dictionary(UInt8, Float64)");
    }
}

/// A random byte string: few distinct values, shared prefixes, empty strings and bytes
/// past ASCII.
fn draw_bytes(rng: &mut Rng, shape: Shape) -> Vec<u8> {
    match shape {
        Shape::Any => (0..rng.below(40)).map(|_| rng.next() as u8).collect(),
        Shape::Few => format!("{:x}", rng.below(12)).into_bytes(),
        Shape::Edges => {
            let mut s = b"common/prefix/".repeat(rng.below(3) as usize);
            s.extend((0..rng.below(4)).map(|_| [0u8, 0xff, b'a'][rng.below(3) as usize]));
            s
        }
    }
}

#[test]
fn byte_strings() {
    use arrow_array::{
        BinaryArray, BinaryViewArray, FixedSizeBinaryArray, LargeBinaryArray, LargeStringArray,
        StringViewArray,
    };
    let mut rng = Rng(7);
    for len in LENGTHS {
        for shape in SHAPES {
            for nulls in [0, 20] {
                let rows: Vec<Option<Vec<u8>>> = (0..len)
                    .map(|_| (!rng.chance(nulls)).then(|| draw_bytes(&mut rng, shape)))
                    .collect();
                let text: Vec<Option<String>> = rows
                    .iter()
                    .map(|r| r.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()))
                    .collect();
                let bytes = || rows.iter().map(|r| r.as_deref());
                let fixed: Vec<Option<[u8; 3]>> = rows
                    .iter()
                    .map(|r| {
                        r.as_ref()
                            .map(|b| [0, 1, 2].map(|i| b.get(i).copied().unwrap_or(0)))
                    })
                    .collect();
                let what = format!("len {len} {shape:?} nulls {nulls}%");
                let arrays: Vec<ArrayRef> = vec![
                    Arc::new(StringArray::from(text.clone())),
                    Arc::new(LargeStringArray::from(text.clone())),
                    Arc::new(StringViewArray::from(text.clone())),
                    Arc::new(bytes().collect::<BinaryArray>()),
                    Arc::new(bytes().collect::<LargeBinaryArray>()),
                    Arc::new(bytes().collect::<BinaryViewArray>()),
                    Arc::new(
                        FixedSizeBinaryArray::try_from_sparse_iter_with_size(fixed.into_iter(), 3)
                            .unwrap(),
                    ),
                ];
                for array in arrays {
                    let what = format!("{} {what}", array.data_type());
                    check_array(array, &what);
                }
            }
        }
    }
}

#[test]
fn fallbacks() {
    // Decimal256 is left to arrow-ord, with its order made stable.
    use arrow_buffer::i256;
    let mut rng = Rng(10);
    for len in [0, 5, 300] {
        let array: PrimitiveArray<Decimal256Type> = (0..len)
            .map(|_| (!rng.chance(10)).then(|| i256::from_i128(rng.below(20) as i128 - 10)))
            .collect();
        check_array(Arc::new(array), "Decimal256 (arrow-ord)");
    }
}

/// A random column of the kind `k`, for the multi-column sorts.
fn column(rng: &mut Rng, k: usize, len: usize) -> ArrayRef {
    let shape = SHAPES[rng.below(3) as usize];
    let nulls = [0, 10, 50][rng.below(3) as usize];
    match k {
        0 => Arc::new(primitive::<Int32Type>(rng, len, shape, nulls)),
        1 => Arc::new(primitive::<Float64Type>(rng, len, shape, nulls)),
        2 => Arc::new(primitive::<UInt64Type>(rng, len, shape, nulls)),
        3 => Arc::new(primitive::<Int8Type>(rng, len, shape, nulls)),
        4 => Arc::new(
            (0..len)
                .map(|_| (!rng.chance(nulls)).then(|| rng.chance(50)))
                .collect::<BooleanArray>(),
        ),
        5 => Arc::new(string_dictionary(rng, len)),
        6 => Arc::new(primitive::<Decimal128Type>(rng, len, shape, nulls)),
        7 => Arc::new(
            (0..len)
                .map(|_| (!rng.chance(nulls)).then(|| rng.below(4) as i128))
                .map(|v| v.map(arrow_buffer::i256::from_i128))
                .collect::<PrimitiveArray<Decimal256Type>>(),
        ),
        _ => Arc::new(
            (0..len)
                .map(|_| (!rng.chance(nulls)).then(|| format!("{}", rng.below(5) * 7)))
                .collect::<StringArray>(),
        ),
    }
}

#[test]
fn several_columns() {
    let mut rng = Rng(8);
    let options = every_option();
    for case in 0..300 {
        let len = [1, 2, 50, 700][case % 4];
        let width = 2 + case % 3;
        let columns: Vec<SortColumn> = (0..width)
            .map(|_| {
                let kind = rng.below(9) as usize;
                SortColumn {
                    values: column(&mut rng, kind, len),
                    options: options[rng.below(5) as usize],
                }
            })
            .collect();
        let kinds: Vec<String> = columns
            .iter()
            .map(|c| format!("{} {:?}", c.values.data_type(), c.options))
            .collect();
        let limits = [None, Some(1), Some(len / 10), Some(len)];
        check(&columns, &limits, &format!("{kinds:?} len {len}"));
    }
}

#[test]
fn long_columns() {
    // Past the lengths where sortnet switches to its radix and top-k paths.
    let mut rng = Rng(9);
    let len = 70_000;
    let f = primitive::<Float32Type>(&mut rng, len, Shape::Any, 5);
    let i = primitive::<Int64Type>(&mut rng, len, Shape::Few, 0);
    for options in every_option() {
        for values in [Arc::new(f.clone()) as ArrayRef, Arc::new(i.clone())] {
            let columns = [SortColumn { values, options }];
            check(
                &columns,
                &[None, Some(10), Some(len / 3)],
                &format!("long {options:?}"),
            );
        }
    }
}

#[test]
fn errors_match_arrow_ord() {
    let a: ArrayRef = Arc::new(PrimitiveArray::<Int32Type>::from(vec![1, 2]));
    let b: ArrayRef = Arc::new(PrimitiveArray::<Int32Type>::from(vec![1]));
    let columns = [
        SortColumn {
            values: a,
            options: None,
        },
        SortColumn {
            values: b,
            options: None,
        },
    ];
    assert!(sortnet_arrow::lexsort_to_indices(&columns, None).is_err());
    assert!(sortnet_arrow::lexsort_to_indices(&[], None).is_err());
}
