//! sortnet-arrow against arrow-ord: `sort_to_indices` or `lexsort_to_indices` on one to three
//! columns built from the input, every type family the crate serves (and one it leaves to
//! arrow-ord), with nulls, options and a limit from the input. The result must be the
//! stable order under arrow-ord's own comparator, index for index, and each position must
//! hold a key equal to arrow-ord's at that position.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::types::{Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int64Type};
use arrow_array::types::{Int16Type, UInt32Type};
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, PrimitiveArray, StringArray, StringViewArray,
};
use arrow_buffer::i256;
use arrow_ord::sort::LexicographicalComparator;
use sortnet_arrow::{SortColumn, SortOptions};

use super::backends;

/// Reads the input front to back; past its end every read is 0.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }
    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.byte())
    }
}

/// One column of `len` rows: a header byte picks the type, the null share and the options;
/// each row reads its validity from a mask byte and its value from the input.
fn column(input: &mut Input, len: usize) -> SortColumn {
    let header = input.byte();
    let nulls = input.byte();
    let options = (header & 0x30 != 0).then_some(SortOptions {
        descending: header & 0x10 != 0,
        nulls_first: header & 0x20 != 0,
    });
    let valid: Vec<bool> = (0..len)
        .map(|i| nulls == 0 || (i as u8) % nulls != 1)
        .collect();
    macro_rules! primitive {
        ($t:ty, $n:literal, $f:expr) => {{
            let values: Vec<_> = (0..len).map(|_| $f(input.bytes::<$n>())).collect();
            Arc::new(PrimitiveArray::<$t>::new(
                values.into(),
                Some(valid.clone().into()),
            )) as ArrayRef
        }};
    }
    let values: ArrayRef = match header % 10 {
        0 => primitive!(Int64Type, 8, i64::from_le_bytes),
        1 => primitive!(UInt32Type, 4, u32::from_le_bytes),
        2 => primitive!(Float64Type, 8, f64::from_le_bytes),
        3 => primitive!(Float32Type, 4, f32::from_le_bytes),
        4 => primitive!(Int16Type, 2, i16::from_le_bytes),
        5 => primitive!(Decimal128Type, 16, i128::from_le_bytes),
        6 => Arc::new(
            (0..len)
                .map(|i| valid[i].then(|| input.byte() & 1 == 1))
                .collect::<BooleanArray>(),
        ),
        7 | 8 => {
            let rows: Vec<Option<String>> = (0..len)
                .map(|i| {
                    let n = input.byte() % 6;
                    let s: String = (0..n)
                        .map(|_| char::from(b'a' + input.byte() % 3))
                        .collect();
                    valid[i].then_some(s)
                })
                .collect();
            if header % 10 == 7 {
                Arc::new(StringArray::from(rows))
            } else {
                Arc::new(StringViewArray::from(rows))
            }
        }
        _ => {
            if header & 0x40 == 0 {
                let values = StringArray::from(vec![Some("b"), None, Some("a"), Some("b")]);
                let keys: PrimitiveArray<Int16Type> = (0..len)
                    .map(|i| valid[i].then(|| i16::from(input.byte() % 4)))
                    .collect();
                Arc::new(DictionaryArray::new(keys, Arc::new(values)))
            } else {
                // Left to arrow-ord, made stable.
                primitive!(Decimal256Type, 1, |b: [u8; 1]| i256::from_i128(i128::from(
                    b[0] % 5
                )))
            }
        }
    };
    SortColumn { values, options }
}

/// The input's first bytes give the row count, the column count and the limit; the columns
/// follow.
pub fn fuzz_arrow(data: &[u8]) {
    backends();
    let mut input = Input(data);
    let len = usize::from(u16::from_le_bytes(input.bytes::<2>()) % 2048);
    let width = 1 + usize::from(input.byte() % 3);
    let limit = match input.byte() {
        0 => None,
        l => Some(usize::from(l) * len / 256),
    };
    let columns: Vec<SortColumn> = (0..width).map(|_| column(&mut input, len)).collect();
    let ours = if width == 1 {
        let c = &columns[0];
        sortnet_arrow::sort_to_indices(c.values.as_ref(), c.options, limit)
    } else {
        sortnet_arrow::lexsort_to_indices(&columns, limit)
    }
    .expect("every generated column sorts");
    let theirs = arrow_ord::sort::lexsort_to_indices(&columns, limit).expect("arrow-ord sorts");
    let cmp = LexicographicalComparator::try_new(&columns).expect("comparable columns");
    assert_eq!(ours.len(), theirs.len());
    for (&a, &b) in ours.values().iter().zip(theirs.values()) {
        assert_eq!(
            cmp.compare(a as usize, b as usize),
            Ordering::Equal,
            "rows {a} and {b}"
        );
    }
    let mut stable: Vec<u32> = (0..len as u32).collect();
    stable.sort_by(|&a, &b| cmp.compare(a as usize, b as usize));
    stable.truncate(ours.len());
    assert_eq!(ours.values().as_ref(), &stable[..], "not the stable order");
}
