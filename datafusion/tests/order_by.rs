//! `ORDER BY` through `SortnetRule` against the same query on a session without it, on
//! random tables with nulls and every key type sortnet serves: one and several keys, ASC and
//! DESC, NULLS FIRST and LAST, LIMIT, one and several partitions, and a memory pool small
//! enough that the sorts spill. Then what falls back, what EXPLAIN shows, that spill files
//! are gone afterwards and that a dropped stream stops the operator.
//!
//! Results are compared exactly: the sequence of sort keys (unique for a given table and
//! ORDER BY), and the rows as a multiset (rows with equal keys may come in another order).
//! Under a LIMIT, the rows tied with the last key may be any of them, so the multiset
//! comparison covers the rows before that key.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sortnet_datafusion::datafusion;
use sortnet_datafusion::{SortnetExec, SortnetRule};

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Decimal256Array, Float32Array,
    Float64Array, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray, StringViewArray,
    TimestampMicrosecondArray, UInt64Array,
};
use datafusion::arrow::compute::{
    concat_batches, filter_record_batch, sort_to_indices, take_record_batch,
};
use datafusion::arrow::datatypes::{i256, DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::common::Result;
use datafusion::datasource::MemTable;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::{SendableRecordBatchStream, SessionStateBuilder, TaskContext};
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use datafusion::physical_plan::expressions::col;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::{collect, displayable, ExecutionPlan};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::StreamExt;

/// SplitMix64: a small, reproducible generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `Some(f())` but one time in `null_one_in`, `None`.
    fn maybe<T>(&mut self, null_one_in: u64, f: impl FnOnce(&mut Self) -> T) -> Option<T> {
        (self.below(null_one_in) != 0).then(|| f(self))
    }
}

/// A table with a column of each key type, nulls in every nullable column, few distinct
/// values in some (many equal keys) and many in others.
fn random_table(rows: usize, seed: u64) -> (SchemaRef, Vec<RecordBatch>) {
    let mut rng = Rng(seed);
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("i8", DataType::Int8, true),
        Field::new("i32", DataType::Int32, true),
        Field::new("i64", DataType::Int64, true),
        Field::new("u64", DataType::UInt64, true),
        Field::new("f32", DataType::Float32, true),
        Field::new("f64", DataType::Float64, true),
        Field::new("dec", DataType::Decimal128(20, 3), true),
        Field::new("s", DataType::Utf8, true),
        Field::new("sv", DataType::Utf8View, true),
        Field::new("d", DataType::Date32, true),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new("b", DataType::Boolean, true),
        Field::new("wide", DataType::Decimal256(40, 2), true),
    ]));
    let specials = [
        f64::NAN,
        -0.0,
        0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.5,
        -1.5,
        f64::MIN_POSITIVE,
    ];
    let words = [
        "",
        "a",
        "ab",
        "abc",
        "b",
        "ba",
        "zz",
        "a longer string past twelve",
    ];
    let mut batches = Vec::new();
    let mut id = 0i64;
    for start in (0..rows).step_by(1000) {
        let n = 1000.min(rows - start);
        let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(id..id + n as i64));
        id += n as i64;
        let i8s: ArrayRef = {
            let r = &mut rng;
            Arc::new(Int8Array::from_iter(
                (0..n).map(|_| r.maybe(8, |r| r.next() as i8)),
            ))
        };
        let i32s: ArrayRef = {
            let r = &mut rng;
            Arc::new(Int32Array::from_iter(
                (0..n).map(|_| r.maybe(10, |r| r.below(50) as i32 - 25)),
            ))
        };
        let i64s: ArrayRef = {
            let r = &mut rng;
            Arc::new(Int64Array::from_iter(
                (0..n).map(|_| r.maybe(10, |r| r.next() as i64)),
            ))
        };
        let u64s: ArrayRef = {
            let r = &mut rng;
            Arc::new(UInt64Array::from_iter(
                (0..n).map(|_| r.maybe(10, |r| r.below(1000) << 40)),
            ))
        };
        let f32s: ArrayRef = {
            let r = &mut rng;
            Arc::new(Float32Array::from_iter((0..n).map(|_| {
                r.maybe(10, |r| match r.below(3) {
                    0 => specials[r.below(8) as usize] as f32,
                    _ => (r.below(200) as f32 - 100.0) / 8.0,
                })
            })))
        };
        let f64s: ArrayRef = {
            let r = &mut rng;
            Arc::new(Float64Array::from_iter((0..n).map(|_| {
                r.maybe(10, |r| match r.below(4) {
                    0 => specials[r.below(8) as usize],
                    _ => f64::from_bits(r.next() >> 2) - 1e300,
                })
            })))
        };
        let decs: ArrayRef = {
            let r = &mut rng;
            Arc::new(
                Decimal128Array::from_iter((0..n).map(|_| {
                    r.maybe(10, |r| {
                        (r.next() as i128 >> 60) * if r.below(2) == 0 { 1 } else { -1 }
                    })
                }))
                .with_precision_and_scale(20, 3)
                .unwrap(),
            )
        };
        let strings: Vec<Option<String>> = (0..n)
            .map(|_| {
                rng.maybe(10, |r| {
                    let mut s = words[r.below(8) as usize].to_string();
                    if r.below(2) == 0 {
                        s.push_str(&r.below(100).to_string());
                    }
                    s
                })
            })
            .collect();
        let s: ArrayRef = Arc::new(StringArray::from(strings.clone()));
        let sv: ArrayRef = Arc::new(StringViewArray::from_iter(strings.into_iter().rev()));
        let dates: ArrayRef = {
            let r = &mut rng;
            Arc::new(Date32Array::from_iter(
                (0..n).map(|_| r.maybe(10, |r| 18_000 + r.below(400) as i32)),
            ))
        };
        let ts: ArrayRef = {
            let r = &mut rng;
            Arc::new(
                TimestampMicrosecondArray::from_iter(
                    (0..n).map(|_| r.maybe(10, |r| (r.next() >> 12) as i64 - (1 << 50))),
                )
                .with_timezone("UTC"),
            )
        };
        let bools: ArrayRef = {
            let r = &mut rng;
            Arc::new(BooleanArray::from_iter(
                (0..n).map(|_| r.maybe(5, |r| r.below(2) == 0)),
            ))
        };
        let wide: ArrayRef = {
            let r = &mut rng;
            Arc::new(
                Decimal256Array::from_iter(
                    (0..n).map(|_| r.maybe(10, |r| i256::from_i128(r.below(100) as i128))),
                )
                .with_precision_and_scale(40, 2)
                .unwrap(),
            )
        };
        batches.push(
            RecordBatch::try_new(
                Arc::clone(&schema),
                vec![
                    ids, i8s, i32s, i64s, u64s, f32s, f64s, decs, s, sv, dates, ts, bools, wide,
                ],
            )
            .unwrap(),
        );
    }
    (schema, batches)
}

/// How a session is set up.
#[derive(Clone, Copy, Debug)]
struct Setup {
    partitions: usize,
    /// A memory pool of this many bytes, or none.
    memory: Option<usize>,
}

fn runtime(setup: Setup, spill_dir: Option<&Path>) -> Arc<RuntimeEnv> {
    let mut builder = RuntimeEnvBuilder::new();
    if let Some(bytes) = setup.memory {
        builder = builder.with_memory_pool(Arc::new(FairSpillPool::new(bytes)));
    }
    if let Some(dir) = spill_dir {
        builder = builder.with_disk_manager_builder(
            DiskManagerBuilder::default()
                .with_mode(DiskManagerMode::Directories(vec![dir.to_path_buf()])),
        );
    }
    builder.build_arc().unwrap()
}

fn session(setup: Setup, sortnet: bool, runtime: Arc<RuntimeEnv>) -> SessionContext {
    let mut config = SessionConfig::new()
        .with_target_partitions(setup.partitions)
        .with_batch_size(700);
    // Room for the merges of a small pool: the spilled runs' and SortPreservingMergeExec's.
    config.options_mut().execution.sort_spill_reservation_bytes = 512 * 1024;
    let mut builder = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .with_runtime_env(runtime);
    if sortnet {
        builder = builder.with_physical_optimizer_rule(Arc::new(SortnetRule::default()));
    }
    SessionContext::new_with_state(builder.build())
}

/// Registers the table as `t`, split into `setup.partitions` partitions.
fn register(ctx: &SessionContext, schema: &SchemaRef, batches: &[RecordBatch], parts: usize) {
    let mut partitions = vec![Vec::new(); parts];
    for (i, batch) in batches.iter().enumerate() {
        partitions[i % parts].push(batch.clone());
    }
    let table = MemTable::try_new(Arc::clone(schema), partitions).unwrap();
    ctx.register_table("t", Arc::new(table)).unwrap();
}

/// The query's physical plan and its results.
async fn run(
    ctx: &SessionContext,
    sql: &str,
) -> Result<(Arc<dyn ExecutionPlan>, Vec<RecordBatch>)> {
    let df = ctx.sql(sql).await?;
    let task = Arc::new(df.task_ctx());
    let plan = df.create_physical_plan().await?;
    if std::env::var_os("SHOW_PLANS").is_some() {
        eprintln!("{}", plan_text(&plan));
    }
    let batches = collect(Arc::clone(&plan), task).await?;
    Ok((plan, batches))
}

fn plan_text(plan: &Arc<dyn ExecutionPlan>) -> String {
    displayable(plan.as_ref()).indent(true).to_string()
}

/// Asserts that `got` equals `want` for a query whose sort keys are the columns `keys`, with
/// `limited` if it had a LIMIT: the key columns equal row by row, and the rows (less those
/// tied with the last key, under a LIMIT) equal once both are put in `id` order.
fn assert_same(
    context: &str,
    want: &[RecordBatch],
    got: &[RecordBatch],
    keys: &[usize],
    limited: bool,
) {
    let schema = want.first().or(got.first()).map(|b| b.schema());
    let Some(schema) = schema else { return };
    let want = concat_batches(&schema, want).unwrap();
    let got = concat_batches(&schema, got).unwrap();
    assert_eq!(
        got.num_rows(),
        want.num_rows(),
        "{context}: row counts differ"
    );
    for &k in keys {
        let (w, g) = (want.column(k), got.column(k));
        if w.as_ref() != g.as_ref() {
            let first = (0..w.len()).find(|&i| {
                array_value_to_string(w, i).unwrap() != array_value_to_string(g, i).unwrap()
            });
            let around = |a: &ArrayRef| {
                let i = first.unwrap_or(0);
                (i.saturating_sub(2)..(i + 3).min(a.len()))
                    .map(|j| array_value_to_string(a, j).unwrap())
                    .collect::<Vec<_>>()
            };
            panic!(
                "{context}: key column {k} differs from row {first:?}: want {:?}, got {:?}",
                around(w),
                around(g)
            );
        }
    }
    let (want, got) = if limited && want.num_rows() > 0 {
        (before_last_key(&want, keys), before_last_key(&got, keys))
    } else {
        (want, got)
    };
    let (want, got) = (by_id(&want), by_id(&got));
    for (c, field) in schema.fields().iter().enumerate() {
        assert!(
            want.column(c).as_ref() == got.column(c).as_ref(),
            "{context}: column {} differs between the rows",
            field.name()
        );
    }
}

/// The rows of `batch` whose keys differ from the last row's.
fn before_last_key(batch: &RecordBatch, keys: &[usize]) -> RecordBatch {
    let columns: Vec<ArrayRef> = keys.iter().map(|&k| Arc::clone(batch.column(k))).collect();
    let fields = columns
        .iter()
        .map(|c| SortField::new(c.data_type().clone()))
        .collect();
    let rows = RowConverter::new(fields)
        .unwrap()
        .convert_columns(&columns)
        .unwrap();
    let last = rows.row(rows.num_rows() - 1);
    let keep = BooleanArray::from_iter((0..rows.num_rows()).map(|i| Some(rows.row(i) != last)));
    filter_record_batch(batch, &keep).unwrap()
}

/// `batch` in the order of its `id` column (unique).
fn by_id(batch: &RecordBatch) -> RecordBatch {
    let id = batch.schema().index_of("id").unwrap();
    let order = sort_to_indices(batch.column(id), None, None).unwrap();
    take_record_batch(batch, &order).unwrap()
}

/// ORDER BY clauses over the key columns (each with the columns it names, in order).
const ORDERS: &[(&str, &[&str])] = &[
    ("i32", &["i32"]),
    ("i8 DESC", &["i8"]),
    ("i64 NULLS FIRST", &["i64"]),
    ("u64 DESC NULLS LAST", &["u64"]),
    ("f32", &["f32"]),
    ("f64 DESC NULLS FIRST", &["f64"]),
    ("dec DESC", &["dec"]),
    ("s", &["s"]),
    ("sv DESC NULLS LAST", &["sv"]),
    ("d, ts DESC", &["d", "ts"]),
    ("b, i32 DESC, s NULLS FIRST", &["b", "i32", "s"]),
    (
        "i32 DESC NULLS LAST, f32 NULLS FIRST, dec",
        &["i32", "f32", "dec"],
    ),
    ("sv, i8, b DESC", &["sv", "i8", "b"]),
    (
        "u64, d DESC NULLS LAST, f64, s DESC",
        &["u64", "d", "f64", "s"],
    ),
];

/// What `SELECT * FROM t ORDER BY {order} LIMIT {limit}` returns on `ctx`: the first
/// `limit` rows of the full sort. Not DataFusion's own top-k: in DataFusion 55.2, `ORDER BY
/// f32 LIMIT 5000` over a column with -0.0 and 0.0 keeps fewer -0.0 rows than the first 5000
/// of its own `ORDER BY f32` (with or without dynamic filter pushdown), while both order
/// -0.0 before 0.0.
async fn reference(
    ctx: &SessionContext,
    order: &str,
    limit: Option<usize>,
) -> Result<Vec<RecordBatch>> {
    let (_, mut batches) = run(ctx, &format!("SELECT * FROM t ORDER BY {order}")).await?;
    if let Some(mut left) = limit {
        for batch in &mut batches {
            *batch = batch.slice(0, left.min(batch.num_rows()));
            left -= batch.num_rows();
        }
    }
    Ok(batches)
}

/// Every ORDER BY, with and without a LIMIT, on one partition, on three, and on three under a
/// memory pool small enough to spill: the same results as DataFusion's own sort, and every
/// sort done by `SortnetExec`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_results_as_sort_exec() -> Result<()> {
    let (schema, batches) = random_table(12_000, 7);
    let setups = [
        Setup {
            partitions: 1,
            memory: None,
        },
        Setup {
            partitions: 3,
            memory: None,
        },
        // One partition: no SortPreservingMergeExec above to compete for the pool.
        Setup {
            partitions: 1,
            memory: Some(3 << 19),
        },
    ];
    for setup in setups {
        let env = runtime(setup, None);
        // DataFusion's own sort is the reference, with all the memory it wants.
        let unlimited = Setup {
            memory: None,
            ..setup
        };
        let theirs = session(unlimited, false, runtime(unlimited, None));
        let ours = session(setup, true, Arc::clone(&env));
        register(&theirs, &schema, &batches, setup.partitions);
        register(&ours, &schema, &batches, setup.partitions);
        let mut spilled = 0;
        for (order, keys) in ORDERS {
            for limit in [None, Some(1), Some(37), Some(5_000)] {
                let sql = format!(
                    "SELECT * FROM t ORDER BY {order}{}",
                    limit.map(|l| format!(" LIMIT {l}")).unwrap_or_default()
                );
                let keys: Vec<usize> = keys.iter().map(|k| schema.index_of(k).unwrap()).collect();
                let context = format!("{sql} ({setup:?})");
                let want = reference(&theirs, order, limit).await?;
                let (plan, got) = run(&ours, &sql)
                    .await
                    .map_err(|e| e.context(context.clone()))?;
                let text = plan_text(&plan);
                assert!(
                    text.contains("SortnetExec"),
                    "{context}: no SortnetExec in\n{text}"
                );
                assert!(
                    !text.contains("SortExec:"),
                    "{context}: a SortExec stayed in\n{text}"
                );
                assert_same(&context, &want, &got, &keys, limit.is_some());
                spilled += spill_count(&plan);
            }
        }
        if setup.memory.is_some() {
            assert!(spilled > 0, "{setup:?}: nothing spilled");
        }
        assert_eq!(
            env.memory_pool.reserved(),
            0,
            "{setup:?}: memory still reserved"
        );
    }
    Ok(())
}

/// A LIMIT over more rows than a top-k holds before it cuts back to the best rows: the
/// cuts keep the same rows as DataFusion's TopK.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn top_k_over_many_rows() -> Result<()> {
    let n = 200_000u64;
    let mut rng = Rng(11);
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::UInt64, true),
        Field::new("id", DataType::UInt64, false),
    ]));
    let batches: Vec<RecordBatch> = (0..n)
        .step_by(4096)
        .map(|start| {
            let len = 4096.min(n - start);
            let k = UInt64Array::from_iter((0..len).map(|_| rng.maybe(20, |r| r.below(5_000))));
            let v = UInt64Array::from_iter_values(start..start + len);
            RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(k), Arc::new(v)]).unwrap()
        })
        .collect();
    let setup = Setup {
        partitions: 2,
        memory: None,
    };
    let env = runtime(setup, None);
    let theirs = session(setup, false, Arc::clone(&env));
    let ours = session(setup, true, env);
    register(&theirs, &schema, &batches, 2);
    register(&ours, &schema, &batches, 2);
    for sql in [
        "SELECT k, id FROM t ORDER BY k LIMIT 10",
        "SELECT k, id FROM t ORDER BY k DESC NULLS FIRST LIMIT 3000",
        "SELECT k, id FROM t ORDER BY k, id DESC LIMIT 20000",
    ] {
        let (_, want) = run(&theirs, sql).await?;
        let (plan, got) = run(&ours, sql).await?;
        assert!(plan_text(&plan).contains("SortnetExec: TopK"), "{sql}");
        let keys: &[usize] = if sql.contains("id DESC") {
            &[0, 1]
        } else {
            &[0]
        };
        assert_same(sql, &want, &got, keys, true);
    }
    Ok(())
}

/// Sort expressions that are not columns, and key types sortnet does not sort, stay
/// `SortExec`; EXPLAIN shows `SortnetExec` for the others.
#[tokio::test]
async fn explain_shows_what_falls_back() -> Result<()> {
    let (schema, batches) = random_table(100, 3);
    let setup = Setup {
        partitions: 1,
        memory: None,
    };
    let ctx = session(setup, true, runtime(setup, None));
    register(&ctx, &schema, &batches, 1);
    let served = explain(&ctx, "SELECT i32, s FROM t ORDER BY i32 DESC, s").await?;
    assert!(served.contains("SortnetExec: expr=[i32@0 DESC"), "{served}");
    let limited = explain(&ctx, "SELECT i32 FROM t ORDER BY i32 LIMIT 5").await?;
    assert!(limited.contains("SortnetExec: TopK(fetch=5)"), "{limited}");
    for sql in [
        "SELECT i32 FROM t ORDER BY i32 + 1",
        "SELECT s FROM t ORDER BY lower(s)",
        "SELECT wide FROM t ORDER BY wide",
        "SELECT i32, wide FROM t ORDER BY i32, wide",
    ] {
        let plan = explain(&ctx, sql).await?;
        assert!(plan.contains("SortExec: expr="), "{sql}:\n{plan}");
        assert!(!plan.contains("SortnetExec"), "{sql}:\n{plan}");
    }
    // The fallback sorts as DataFusion does, in the same plan as ours.
    let mixed = explain(
        &ctx,
        "SELECT i32 FROM (SELECT i32 FROM t ORDER BY i32 + 1 LIMIT 50) ORDER BY i32 DESC",
    )
    .await?;
    assert!(
        mixed.contains("SortnetExec") && mixed.contains("SortExec"),
        "{mixed}"
    );
    Ok(())
}

/// The plan EXPLAIN shows for `sql`, as text.
async fn explain(ctx: &SessionContext, sql: &str) -> Result<String> {
    let batches = ctx.sql(&format!("EXPLAIN {sql}")).await?.collect().await?;
    let mut text = String::new();
    for batch in &batches {
        for r in 0..batch.num_rows() {
            for c in batch.columns() {
                text.push_str(&array_value_to_string(c, r)?);
                text.push('\n');
            }
        }
    }
    Ok(text)
}

/// Spilled runs are merged into the same rows as DataFusion's, the spill count shows it,
/// and afterwards no spill file is left in the spill directory nor counted by the disk
/// manager.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spills_and_leaves_no_files() -> Result<()> {
    let dir = scratch_dir("spill");
    let (schema, batches) = random_table(20_000, 5);
    let setup = Setup {
        partitions: 2,
        memory: Some(8 << 20),
    };
    let env = runtime(setup, Some(&dir));
    // DataFusion's own sort, the reference, runs under the same limit (at half of it, 4 MiB,
    // neither its merge nor the one above the partitions finds memory).
    let their_dir = scratch_dir("spill-reference");
    let theirs = session(setup, false, runtime(setup, Some(&their_dir)));
    let ours = session(setup, true, Arc::clone(&env));
    register(&theirs, &schema, &batches, 2);
    register(&ours, &schema, &batches, 2);
    let sql = "SELECT * FROM t ORDER BY s DESC, f64";
    let keys = [
        schema.index_of("s").unwrap(),
        schema.index_of("f64").unwrap(),
    ];
    let (_, want) = run(&theirs, sql).await?;
    let (plan, got) = run(&ours, sql).await?;
    assert!(spill_count(&plan) >= 2, "{}", plan_text(&plan));
    assert_same(sql, &want, &got, &keys, false);
    drop((plan, got));
    assert_eq!(env.disk_manager.spilling_progress().active_files_count, 0);
    assert_eq!(files_under(&dir), Vec::<PathBuf>::new());
    assert_eq!(env.memory_pool.reserved(), 0);
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&their_dir).ok();
    Ok(())
}

/// A pool too small to hold a single batch is an error, not a wrong result.
#[tokio::test]
async fn too_little_memory_is_an_error() -> Result<()> {
    let (schema, batches) = random_table(3_000, 9);
    let setup = Setup {
        partitions: 1,
        memory: Some(70 * 1024),
    };
    let ctx = session(setup, true, runtime(setup, None));
    register(&ctx, &schema, &batches, 1);
    let err = run(&ctx, "SELECT * FROM t ORDER BY s").await.unwrap_err();
    assert!(err.to_string().contains("Resources exhausted"), "{err}");
    Ok(())
}

/// A dropped output stream stops the operator: the input is no longer read, and the
/// memory it held is returned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_stops_reading() -> Result<()> {
    let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
    let pulled = Arc::new(AtomicUsize::new(0));
    let source = Endless {
        schema: Arc::clone(&schema),
        pulled: Arc::clone(&pulled),
    };
    let input = Arc::new(StreamingTableExec::try_new(
        Arc::clone(&schema),
        vec![Arc::new(source)],
        None,
        Vec::<LexOrdering>::new(),
        false,
        None,
    )?);
    let ordering =
        LexOrdering::new(vec![PhysicalSortExpr::new_default(col("k", &schema)?)]).expect("one key");
    let sort = SortExec::new(ordering, input);
    let exec = SortnetExec::try_new(&sort)?.expect("an Int64 column is served");
    let ctx = Arc::new(TaskContext::default());
    let pool = Arc::clone(&ctx.runtime_env().memory_pool);
    let mut stream = exec.execute(0, ctx)?;
    // The endless input never ends, so no batch comes out; the sort gathers meanwhile.
    let first = tokio::time::timeout(Duration::from_millis(300), stream.next()).await;
    assert!(first.is_err(), "an endless input produced output");
    assert!(pulled.load(Ordering::SeqCst) > 0);
    assert!(pool.reserved() > 0);
    drop(stream);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let after_drop = pulled.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        pulled.load(Ordering::SeqCst),
        after_drop,
        "input read after the drop"
    );
    assert_eq!(pool.reserved(), 0, "memory still held after the drop");
    Ok(())
}

/// An input that yields batches of 1,024 rows forever, counting them.
#[derive(Debug)]
struct Endless {
    schema: SchemaRef,
    pulled: Arc<AtomicUsize>,
}

impl PartitionStream for Endless {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let schema = Arc::clone(&self.schema);
        let pulled = Arc::clone(&self.pulled);
        let batches = futures::stream::unfold(0i64, move |i| {
            let schema = Arc::clone(&schema);
            let pulled = Arc::clone(&pulled);
            async move {
                // Yield to the runtime between batches, as a real source waiting on I/O does.
                tokio::task::yield_now().await;
                pulled.fetch_add(1, Ordering::SeqCst);
                let keys =
                    Int64Array::from_iter_values((0..1024).map(|j| (i * 7919 + j) % 100_003));
                let batch = RecordBatch::try_new(schema, vec![Arc::new(keys)]);
                Some((batch.map_err(Into::into), i + 1))
            }
        });
        Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            batches,
        ))
    }
}

/// The spill files the plan's `SortnetExec`s wrote.
fn spill_count(plan: &Arc<dyn ExecutionPlan>) -> usize {
    let own = match plan.downcast_ref::<SortnetExec>() {
        Some(exec) => exec.metrics().and_then(|m| m.spill_count()).unwrap_or(0),
        None => 0,
    };
    own + plan.children().into_iter().map(spill_count).sum::<usize>()
}

/// A fresh directory for this test process.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sortnet-df-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every file (not directory) under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}
