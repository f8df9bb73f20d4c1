//! Records by key: sort a `Vec` of structs by a float field and by an integer field (stable:
//! equal keys keep their order), take the top three without a full sort, and get the order
//! of a column without moving it (argsort).
//!
//! ```text
//! cargo run --release --example records
//! ```

use sortnet::backend;

#[derive(Debug)]
struct Run {
    runner: String,
    seconds: f64,
    bib: u32,
}

fn main() -> Result<(), sortnet::Error> {
    let mut runs: Vec<Run> = [
        ("Ada", 612.5, 31),
        ("Bo", 598.0, 7),
        ("Cy", 612.5, 12),
        ("Di", 655.25, 3),
        ("Ed", 587.75, 20),
    ]
    .into_iter()
    .map(|(runner, seconds, bib)| Run {
        runner: runner.to_string(),
        seconds,
        bib,
    })
    .collect();
    let b = backend::auto();

    // By a float field: Ada and Cy tie on 612.5 and keep their input order.
    b.sort_by_key(&mut runs, |r| r.seconds)?;
    let by_time: Vec<&str> = runs.iter().map(|r| r.runner.as_str()).collect();
    println!("by time: {by_time:?}");
    assert_eq!(by_time, ["Ed", "Bo", "Ada", "Cy", "Di"]);

    // By an integer field.
    b.sort_by_key(&mut runs, |r| r.bib)?;
    let bibs: Vec<u32> = runs.iter().map(|r| r.bib).collect();
    println!("by bib:  {bibs:?}");
    assert_eq!(bibs, [3, 7, 12, 20, 31]);

    // The order of a column, leaving the column as it is.
    let seconds: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
    let order = b.argsort(&seconds)?;
    println!(
        "fastest: {} ({} s)",
        runs[order[0]].runner, seconds[order[0]]
    );
    assert_eq!(runs[order[0]].runner, "Ed");

    // The three best times, sorted, without sorting the rest; and the slowest first.
    let mut times = seconds.clone();
    b.partial_sort(&mut times, 3)?;
    println!("podium:  {:?}", &times[..3]);
    assert_eq!(times[..3], [587.75, 598.0, 612.5]);
    b.sort_descending(&mut times)?;
    assert_eq!(times[0], 655.25);
    Ok(())
}
