//! DataFusion's `sort_tpch` queries (Q1-Q11, each an ORDER BY over TPC-H `lineitem`) with
//! DataFusion's own `SortExec` and with `SortnetRule`, in the same run on the same in-memory
//! table, generated in process by `tpchgen-arrow`.
//!
//! ```sh
//! cargo bench -p sortnet-datafusion --bench sort_tpch -- [--sf 1] [--query N]
//!     [--iterations 3] [--partitions N] [--limit N]
//! ```
//!
//! Each query runs once untimed on both sessions to check that the results are identical
//! (row count, an order-sensitive checksum of the sort keys, an order-insensitive checksum of
//! whole rows; not compared under a LIMIT, which may keep any of the rows tied with the last
//! key), then `--iterations` times on each, alternating; the best time of each is
//! printed with their ratio (DataFusion's time over sortnet's: above 1, sortnet is faster).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sortnet_datafusion::datafusion;
use sortnet_datafusion::SortnetRule;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::Result;
use datafusion::datasource::MemTable;
use datafusion::execution::SessionStateBuilder;
use datafusion::physical_plan::{displayable, execute_stream};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::StreamExt;
use tpchgen::generators::LineItemGenerator;
use tpchgen_arrow::LineItemArrow;

/// The queries of DataFusion's `benchmarks/src/sort_tpch.rs`, with the number of leading
/// output columns that are the sort keys.
const QUERIES: [(&str, usize); 11] = [
    // Q1: one key, INTEGER, 7 distinct values; one payload column.
    (
        "SELECT l_linenumber, l_partkey FROM lineitem ORDER BY l_linenumber",
        1,
    ),
    // Q2: one key, BIGINT, 1.5M distinct values (SF1); one payload column.
    (
        "SELECT l_orderkey, l_partkey FROM lineitem ORDER BY l_orderkey",
        1,
    ),
    // Q3: one key, VARCHAR, 4.5M distinct values; one payload column.
    (
        "SELECT l_comment, l_partkey FROM lineitem ORDER BY l_comment",
        1,
    ),
    // Q4: two keys (BIGINT, INTEGER); one payload column.
    (
        "SELECT l_orderkey, l_linenumber, l_partkey FROM lineitem \
         ORDER BY l_orderkey, l_linenumber",
        2,
    ),
    // Q5: three keys (INTEGER, BIGINT, BIGINT); no payload.
    (
        "SELECT l_linenumber, l_suppkey, l_orderkey FROM lineitem \
         ORDER BY l_linenumber, l_suppkey, l_orderkey",
        3,
    ),
    // Q6: the keys of Q5; one payload column.
    (
        "SELECT l_linenumber, l_suppkey, l_orderkey, l_partkey FROM lineitem \
         ORDER BY l_linenumber, l_suppkey, l_orderkey",
        3,
    ),
    // Q7: the keys of Q5; the twelve other columns but the comment.
    (
        "SELECT l_linenumber, l_suppkey, l_orderkey, l_partkey, l_quantity, l_extendedprice, \
         l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, \
         l_receiptdate, l_shipinstruct, l_shipmode FROM lineitem \
         ORDER BY l_linenumber, l_suppkey, l_orderkey",
        3,
    ),
    // Q8: four keys (BIGINT, BIGINT, INTEGER, VARCHAR); no payload.
    (
        "SELECT l_orderkey, l_suppkey, l_linenumber, l_comment FROM lineitem \
         ORDER BY l_orderkey, l_suppkey, l_linenumber, l_comment",
        4,
    ),
    // Q9: the keys of Q8; one payload column.
    (
        "SELECT l_orderkey, l_suppkey, l_linenumber, l_comment, l_partkey FROM lineitem \
         ORDER BY l_orderkey, l_suppkey, l_linenumber, l_comment",
        4,
    ),
    // Q10: the keys of Q8; the twelve other columns.
    (
        "SELECT l_orderkey, l_suppkey, l_linenumber, l_comment, l_partkey, l_quantity, \
         l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, \
         l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode FROM lineitem \
         ORDER BY l_orderkey, l_suppkey, l_linenumber, l_comment",
        4,
    ),
    // Q11: one key, VARCHAR, 7 distinct values; two payload columns.
    (
        "SELECT l_shipmode, l_comment, l_partkey FROM lineitem ORDER BY l_shipmode",
        1,
    ),
];

struct Args {
    sf: f64,
    query: Option<usize>,
    iterations: usize,
    partitions: usize,
    limit: Option<usize>,
}

fn args() -> Args {
    let mut args = Args {
        sf: 1.0,
        query: None,
        iterations: 3,
        partitions: std::thread::available_parallelism().map_or(1, |n| n.get()),
        limit: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--sf" => args.sf = value().parse().expect("--sf: a number"),
            "--query" => args.query = Some(value().parse().expect("--query: 1 to 11")),
            "--iterations" => args.iterations = value().parse().expect("--iterations: a count"),
            "--partitions" => args.partitions = value().parse().expect("--partitions: a count"),
            "--limit" => args.limit = Some(value().parse().expect("--limit: a count")),
            // cargo bench passes --bench; nothing else is ours.
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    args
}

/// `lineitem` at scale factor `sf`, generated in `parts` pieces on as many threads, one
/// table partition each.
fn lineitem(sf: f64, parts: usize) -> Vec<Vec<RecordBatch>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..=parts)
            .map(|part| {
                s.spawn(move || {
                    let generator = LineItemGenerator::new(sf, part as i32, parts as i32);
                    LineItemArrow::new(generator)
                        .with_batch_size(8192)
                        .collect::<Result<Vec<RecordBatch>, _>>()
                        .expect("lineitem batches")
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn session(partitions: usize, sortnet: bool) -> SessionContext {
    let config = SessionConfig::new().with_target_partitions(partitions);
    let mut builder = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config);
    if sortnet {
        builder = builder.with_physical_optimizer_rule(Arc::new(SortnetRule::default()));
    }
    SessionContext::new_with_state(builder.build())
}

/// What a query returned: its rows, a checksum of its key columns in order and a checksum
/// of its rows in any order.
#[derive(Debug, PartialEq, Eq)]
struct Check {
    rows: usize,
    keys: u64,
    rows_any_order: u64,
}

/// Runs `sql`, consuming its output; with `keys`, computes the [`Check`] of it (untimed
/// runs only), else only counts the rows.
async fn run(ctx: &SessionContext, sql: &str, keys: Option<usize>) -> Result<(Duration, Check)> {
    let start = Instant::now();
    let df = ctx.sql(sql).await?;
    let task = Arc::new(df.task_ctx());
    let plan = df.create_physical_plan().await?;
    let mut stream = execute_stream(plan, task)?;
    let mut check = Check {
        rows: 0,
        keys: 0,
        rows_any_order: 0,
    };
    let mut converters: Option<(RowConverter, RowConverter)> = None;
    while let Some(batch) = stream.next().await {
        let batch = batch?;
        check.rows += batch.num_rows();
        let Some(keys) = keys else { continue };
        let (key_rows, all_rows) = converters.get_or_insert_with(|| {
            let fields = |n: usize| {
                batch.columns()[..n]
                    .iter()
                    .map(|c| SortField::new(c.data_type().clone()))
                    .collect()
            };
            (
                RowConverter::new(fields(keys)).unwrap(),
                RowConverter::new(fields(batch.num_columns())).unwrap(),
            )
        });
        let k = key_rows.convert_columns(&batch.columns()[..keys])?;
        for row in k.iter() {
            let mut h = DefaultHasher::new();
            row.as_ref().hash(&mut h);
            check.keys = check
                .keys
                .wrapping_mul(0x100_0000_01b3)
                .wrapping_add(h.finish());
        }
        let all = all_rows.convert_columns(batch.columns())?;
        for row in all.iter() {
            let mut h = DefaultHasher::new();
            row.as_ref().hash(&mut h);
            check.rows_any_order = check.rows_any_order.wrapping_add(h.finish());
        }
    }
    Ok((start.elapsed(), check))
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = args();
    let start = Instant::now();
    let parts = lineitem(args.sf, args.partitions);
    let rows: usize = parts.iter().flatten().map(|b| b.num_rows()).sum();
    println!(
        "lineitem SF{}: {rows} rows in {} partitions, generated in {:.1} s",
        args.sf,
        args.partitions,
        start.elapsed().as_secs_f64()
    );
    let schema = parts[0][0].schema();
    let table = Arc::new(MemTable::try_new(schema, parts)?);
    let theirs = session(args.partitions, false);
    let ours = session(args.partitions, true);
    theirs.register_table("lineitem", Arc::clone(&table) as _)?;
    ours.register_table("lineitem", table)?;

    println!(
        "best of {} runs each; ratio = DataFusion's time / sortnet's\n",
        args.iterations
    );
    println!("query      rows   DataFusion ms   sortnet ms   ratio   results");
    let (mut total_theirs, mut total_ours) = (Duration::ZERO, Duration::ZERO);
    let mut all_same = true;
    for (q, (sql, keys)) in QUERIES.iter().enumerate() {
        let q = q + 1;
        if args.query.is_some_and(|want| want != q) {
            continue;
        }
        let sql = match args.limit {
            Some(limit) => format!("{sql} LIMIT {limit}"),
            None => sql.to_string(),
        };
        let plan = ours.sql(&sql).await?.create_physical_plan().await?;
        let text = displayable(plan.as_ref()).indent(true).to_string();
        if !text.contains("SortnetExec") {
            println!("Q{q}: no SortnetExec in the plan:\n{text}");
        }
        let (_, want) = run(&theirs, &sql, Some(*keys)).await?;
        let (_, got) = run(&ours, &sql, Some(*keys)).await?;
        // Under a LIMIT the rows tied with the last key may be any of them.
        let same = want.rows == got.rows
            && want.keys == got.keys
            && (args.limit.is_some() || want.rows_any_order == got.rows_any_order);
        all_same &= same;
        let (mut best_theirs, mut best_ours) = (Duration::MAX, Duration::MAX);
        for _ in 0..args.iterations {
            best_theirs = best_theirs.min(run(&theirs, &sql, None).await?.0);
            best_ours = best_ours.min(run(&ours, &sql, None).await?.0);
        }
        total_theirs += best_theirs;
        total_ours += best_ours;
        println!(
            "Q{q:<3} {:>10} {:>15.1} {:>12.1} {:>7.2}   {}",
            want.rows,
            best_theirs.as_secs_f64() * 1e3,
            best_ours.as_secs_f64() * 1e3,
            best_theirs.as_secs_f64() / best_ours.as_secs_f64(),
            if same {
                "identical".to_string()
            } else {
                format!("DIFFER: {want:?} vs {got:?}")
            }
        );
    }
    println!(
        "total {:>20.1} {:>12.1} {:>7.2}",
        total_theirs.as_secs_f64() * 1e3,
        total_ours.as_secs_f64() * 1e3,
        total_theirs.as_secs_f64() / total_ours.as_secs_f64()
    );
    if !all_same {
        eprintln!("results differ");
        std::process::exit(1);
    }
    Ok(())
}
