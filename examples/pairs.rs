//! Key/value pairs: sort records by a key and carry each record's index (the value) along,
//! then use the indices to reorder anything else.
//!
//! ```text
//! cargo run --release --example pairs
//! ```

use sortnet::backend;
use sortnet::keys::CpuRadixSorter;

fn main() -> Result<(), sortnet::Error> {
    // A small table: city names with their population (the sort key).
    let cities = ["Lyon", "Tokyo", "Quito", "Oslo", "Perth", "Dakar"];
    let mut population: Vec<u64> = vec![
        522_000, 13_960_000, 2_011_000, 709_000, 2_118_000, 1_146_000,
    ];
    // The values are indices into the table: after the sort, values[i] says which city has
    // the i-th smallest population.
    let mut index: Vec<u32> = (0..cities.len() as u32).collect();

    backend::auto().sort_pairs(&mut population, &mut index)?;

    println!("cities by population:");
    for (p, &i) in population.iter().zip(&index) {
        println!("  {:<6} {p:>10}", cities[i as usize]);
    }
    assert_eq!(cities[index[0] as usize], "Lyon");
    assert_eq!(cities[index[5] as usize], "Tokyo");

    // Float keys sort in total order, and the sort is stable: equal keys keep their values
    // in input order.
    let mut scores = vec![0.5f32, -1.25, 0.5, f32::INFINITY, -0.0, 0.0];
    let mut ids: Vec<u32> = vec![10, 11, 12, 13, 14, 15];
    backend::auto().sort_pairs(&mut scores, &mut ids)?;
    println!("\nscores: {scores:?}\nids:    {ids:?}");
    assert_eq!(scores, [-1.25, -0.0, 0.0, 0.5, 0.5, f32::INFINITY]);
    assert_eq!(ids, [11, 14, 15, 10, 12, 13]);

    // A program that sorts large batches again and again can keep the radix sort's scratch
    // memory between calls (a backend call frees it before it returns).
    let mut sorter = CpuRadixSorter::new();
    for batch in 0..3u32 {
        let mut keys: Vec<u32> = (0..1u32 << 20)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ batch)
            .collect();
        let mut rows: Vec<u32> = (0..1u32 << 20).collect();
        sorter.sort_pairs(&mut keys, &mut rows)?;
        assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    }
    println!(
        "
scratch kept between batches: {} MiB",
        sorter.scratch_bytes() >> 20
    );

    // Slices of different lengths are refused and left as they were.
    let mut keys = vec![2u32, 1];
    let mut vals = vec![0u32];
    match backend::auto().sort_pairs(&mut keys, &mut vals) {
        Err(e) => println!("\nrefused: {e}"),
        Ok(()) => unreachable!("a length mismatch is always an error"),
    }
    assert_eq!(keys, [2, 1]);
    Ok(())
}
