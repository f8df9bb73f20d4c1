//! `sortnet_arrow::sort_to_indices` and `lexsort_to_indices` against arrow-ord's, in the same
//! criterion group (ids `<contestant>/<n>`, contestants `sortnet` and `arrow-ord`), at
//! n = 2^12, 2^16 and 2^20 rows; 2^24 too when an argument names it (criterion's filter,
//! so it also picks those runs). One thread, as the acceptance figures are taken:
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo bench -p sortnet-arrow --bench sort
//! RAYON_NUM_THREADS=1 cargo bench -p sortnet-arrow --bench sort -- '/16777216'
//! ```
//!
//! Groups: `arrow-u32`, `arrow-i64`, `arrow-f64`, `arrow-decimal128` (precision 18, the
//! common case) with random values and no nulls; `arrow-utf8` (TPC-H-like names,
//! `customer#` and 12 digits); `arrow-i64-nulls` (10% nulls, descending,
//! nulls first); `arrow-two-columns` (a `u32` of 1,000 values, then a random `i64`
//! descending) and `arrow-three-columns` (an `Int32` of 16 values, a `Date32` over 30 years,
//! a random `f64`).

use std::sync::Arc;
use std::time::Duration;

use arrow_array::types::{Decimal128Type, Float64Type, Int64Type, UInt32Type};
use arrow_array::{ArrayRef, Date32Array, Int32Array, PrimitiveArray, StringArray};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sortnet_arrow::{SortColumn, SortOptions};

#[path = "../tests/rng/mod.rs"]
mod rng;
use rng::Rng;

/// The row counts: 2^12, 2^16, 2^20, and 2^24 where an argument names it.
fn sizes() -> Vec<usize> {
    let mut sizes = vec![1 << 12, 1 << 16, 1 << 20];
    if std::env::args().any(|a| a.contains(&(1usize << 24).to_string())) {
        sizes.push(1 << 24);
    }
    sizes
}

/// One group: both contestants on the same columns at every size.
fn group(c: &mut Criterion, name: &str, make: impl Fn(usize, &mut Rng) -> Vec<SortColumn>) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    for n in sizes() {
        let columns = make(n, &mut Rng(0x9e37_79b9_7f4a_7c15));
        g.throughput(Throughput::Elements(n as u64));
        if columns.len() == 1 {
            let (array, options) = (columns[0].values.as_ref(), columns[0].options);
            g.bench_function(BenchmarkId::new("sortnet", n), |b| {
                b.iter(|| sortnet_arrow::sort_to_indices(array, options, None).unwrap())
            });
            g.bench_function(BenchmarkId::new("arrow-ord", n), |b| {
                b.iter(|| arrow_ord::sort::sort_to_indices(array, options, None).unwrap())
            });
        } else {
            g.bench_function(BenchmarkId::new("sortnet", n), |b| {
                b.iter(|| sortnet_arrow::lexsort_to_indices(&columns, None).unwrap())
            });
            g.bench_function(BenchmarkId::new("arrow-ord", n), |b| {
                b.iter(|| arrow_ord::sort::lexsort_to_indices(&columns, None).unwrap())
            });
        }
    }
    g.finish();
}

fn column(values: ArrayRef, options: Option<SortOptions>) -> SortColumn {
    SortColumn { values, options }
}

fn benches(c: &mut Criterion) {
    group(c, "arrow-u32", |n, r| {
        let a = PrimitiveArray::<UInt32Type>::from_iter_values((0..n).map(|_| r.next() as u32));
        vec![column(Arc::new(a), None)]
    });
    group(c, "arrow-i64", |n, r| {
        let a = PrimitiveArray::<Int64Type>::from_iter_values((0..n).map(|_| r.next() as i64));
        vec![column(Arc::new(a), None)]
    });
    group(c, "arrow-f64", |n, r| {
        let a = PrimitiveArray::<Float64Type>::from_iter_values(
            (0..n).map(|_| (r.next() as i64) as f64 / 1e6),
        );
        vec![column(Arc::new(a), None)]
    });
    group(c, "arrow-decimal128", |n, r| {
        let a = PrimitiveArray::<Decimal128Type>::from_iter_values(
            (0..n).map(|_| i128::from(r.next() as i64 % 1_000_000_000_000_000_000)),
        )
        .with_precision_and_scale(18, 2)
        .unwrap();
        vec![column(Arc::new(a), None)]
    });
    group(c, "arrow-utf8", |n, r| {
        let a: StringArray = (0..n)
            .map(|_| Some(format!("customer#{:012}", r.next() % 100_000_000)))
            .collect();
        vec![column(Arc::new(a), None)]
    });
    group(c, "arrow-i64-nulls", |n, r| {
        let a = PrimitiveArray::<Int64Type>::from_iter((0..n).map(|_| {
            let x = r.next();
            (x % 10 != 0).then_some(x as i64)
        }));
        let options = SortOptions {
            descending: true,
            nulls_first: true,
        };
        vec![column(Arc::new(a), Some(options))]
    });
    group(c, "arrow-two-columns", |n, r| {
        let a = PrimitiveArray::<UInt32Type>::from_iter_values(
            (0..n).map(|_| (r.next() % 1000) as u32),
        );
        let b = PrimitiveArray::<Int64Type>::from_iter_values((0..n).map(|_| r.next() as i64));
        let descending = SortOptions {
            descending: true,
            nulls_first: false,
        };
        vec![
            column(Arc::new(a), None),
            column(Arc::new(b), Some(descending)),
        ]
    });
    group(c, "arrow-three-columns", |n, r| {
        let a = Int32Array::from_iter_values((0..n).map(|_| (r.next() % 16) as i32));
        let d = Date32Array::from_iter_values((0..n).map(|_| 8000 + (r.next() % 11_000) as i32));
        let f = PrimitiveArray::<Float64Type>::from_iter_values(
            (0..n).map(|_| (r.next() % 1_000_000) as f64 / 100.0),
        );
        vec![
            column(Arc::new(a), None),
            column(Arc::new(d), None),
            column(Arc::new(f), None),
        ]
    });
}

criterion_group!(sort, benches);
criterion_main!(sort);
