//! `SortnetRule`, the physical optimizer rule that puts `SortnetExec` in plans.

use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::Result;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::ExecutionPlan;

use crate::SortnetExec;

/// Replaces each [`SortExec`] that sortnet can serve by a [`SortnetExec`] with the same
/// expressions, `fetch` and partitioning: one whose sort expressions are all columns of
/// types sortnet sorts itself (integers, floats, decimals up to 128 bits, dates, times,
/// timestamps, durations, intervals, booleans, strings, binary, their views and
/// dictionaries). The others stay `SortExec`, and `EXPLAIN` shows which is which:
///
/// - an expression that is not a column (`ORDER BY a + 1`),
/// - a key of another type (`Decimal256`, lists, structs),
/// - a sort that `SortExec` does without sorting: an input already in order, or a top-k
///   whose input is sorted by a prefix of the keys (it stops reading early).
///
/// The reason for each is logged at debug level (target `sortnet_datafusion`), and
/// [`SortnetExec::try_new`] returns it as an [`Unsupported`](crate::Unsupported).
///
/// Add it after DataFusion's own rules, which place and shape the sorts it replaces
/// ([`SessionStateBuilder::with_physical_optimizer_rule`] appends):
///
/// ```
/// use std::sync::Arc;
/// use sortnet_datafusion::datafusion::execution::SessionStateBuilder;
/// use sortnet_datafusion::datafusion::prelude::SessionContext;
/// use sortnet_datafusion::SortnetRule;
///
/// let state = SessionStateBuilder::new()
///     .with_default_features()
///     .with_physical_optimizer_rule(Arc::new(SortnetRule::default()))
///     .build();
/// let ctx = SessionContext::new_with_state(state);
/// # drop(ctx);
/// ```
///
/// [`SessionStateBuilder::with_physical_optimizer_rule`]:
///     datafusion::execution::SessionStateBuilder::with_physical_optimizer_rule
#[derive(Debug, Default, Clone)]
pub struct SortnetRule {}

impl PhysicalOptimizerRule for SortnetRule {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(sort) = node.downcast_ref::<SortExec>() else {
                return Ok(Transformed::no(node));
            };
            match SortnetExec::try_new(sort)? {
                Ok(exec) => Ok(Transformed::yes(Arc::new(exec) as Arc<dyn ExecutionPlan>)),
                Err(reason) => {
                    log::debug!(
                        target: "sortnet_datafusion",
                        "SortExec [{}] stays: {reason}",
                        sort.expr()
                    );
                    Ok(Transformed::no(node))
                }
            }
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "SortnetRule"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
