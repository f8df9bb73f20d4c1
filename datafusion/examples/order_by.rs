//! `ORDER BY` through sortnet: a session with `SortnetRule`, a query over an in-memory table,
//! and the plan that shows `SortnetExec` where DataFusion's `SortExec` was.

use std::sync::Arc;

use sortnet_datafusion::datafusion;
use sortnet_datafusion::SortnetRule;

use datafusion::arrow::array::{Float64Array, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::datasource::MemTable;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::SessionContext;

#[tokio::main]
async fn main() -> Result<()> {
    // The one line: DataFusion's defaults, then the rule.
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_physical_optimizer_rule(Arc::new(SortnetRule::default()))
        .build();
    let ctx = SessionContext::new_with_state(state);

    let schema = Arc::new(Schema::new(vec![
        Field::new("store", DataType::Utf8, false),
        Field::new("day", DataType::Int64, false),
        Field::new("sales", DataType::Float64, true),
    ]));
    let rows = 100_000i64;
    let batch = RecordBatch::try_new(
        Arc::clone(&schema),
        vec![
            Arc::new(StringArray::from_iter_values(
                (0..rows).map(|i| format!("store-{:02}", i * 37 % 50)),
            )),
            Arc::new(Int64Array::from_iter_values((0..rows).map(|i| i * 7 % 365))),
            Arc::new(Float64Array::from_iter((0..rows).map(|i| {
                (i % 11 != 0).then(|| (i * 7919 % 10_007) as f64 / 10.0)
            }))),
        ],
    )?;
    ctx.register_table(
        "sales",
        Arc::new(MemTable::try_new(schema, vec![vec![batch]])?),
    )?;

    let sql =
        "SELECT store, day, sales FROM sales ORDER BY sales DESC NULLS LAST, store, day LIMIT 5";
    let plan = ctx.sql(&format!("EXPLAIN {sql}")).await?.collect().await?;
    println!("{}", pretty_format_batches(&plan)?);
    let top = ctx.sql(sql).await?.collect().await?;
    println!("{}", pretty_format_batches(&top)?);

    // An expression sortnet does not take stays DataFusion's SortExec.
    let fallback = ctx
        .sql("EXPLAIN SELECT day FROM sales ORDER BY day % 7, day LIMIT 3")
        .await?
        .collect()
        .await?;
    println!("{}", pretty_format_batches(&fallback)?);
    Ok(())
}
