//! `SortnetExec`, the operator that stands in for a `SortExec`.

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, Result, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{LexOrdering, PhysicalExpr};
use datafusion::physical_plan::execution_plan::CardinalityEffect;
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    apply_expression_roots, ChildStats, ChildrenPropertiesMode, DisplayAs, DisplayFormatType,
    ExecutionPlan, ExecutionPlanProperties, InputDistributionRequirements, PlanProperties,
    ReplaceChildrenOptions, StatisticsArgs,
};
use futures::{StreamExt, TryStreamExt};

use crate::run::Key;
use crate::serves::{self, Unsupported};
use crate::sorter::{SortSpec, Sorter, SorterMetrics};

/// Sorts like the [`SortExec`] it replaces (same expressions, `fetch` and partitioning,
/// same output properties), with sortnet: each partition's input is gathered under the
/// session's memory pool and sorted as one run; when the pool cannot hold more, the run so
/// far is sorted and spilled through the session's disk manager, and the runs are merged at
/// the end. A `fetch` keeps only the best rows as the input arrives.
///
/// [`SortnetRule`](crate::SortnetRule) puts it in plans; [`SortnetExec::try_new`] builds one
/// by hand.
#[derive(Debug, Clone)]
pub struct SortnetExec {
    /// The operator this one stands for: its expressions, fetch, partitioning and plan
    /// properties are this one's.
    sort: SortExec,
    keys: Arc<[Key]>,
    metrics: ExecutionPlanMetricsSet,
}

impl SortnetExec {
    /// The operator for `sort`, or why `sort` should stay DataFusion's own: a sort
    /// expression that is not a column, a key type sortnet does not sort, or a sort that
    /// `SortExec` does without sorting (an input already in order, a top-k over a sorted
    /// prefix).
    pub fn try_new(sort: &SortExec) -> Result<std::result::Result<Self, Unsupported>> {
        Ok(serves::keys(sort)?.map(|keys| Self {
            sort: sort.clone(),
            keys: keys.into(),
            metrics: ExecutionPlanMetricsSet::new(),
        }))
    }

    /// The `SortExec` this operator stands for.
    pub fn sort_exec(&self) -> &SortExec {
        &self.sort
    }

    /// The sort expressions.
    pub fn expr(&self) -> &LexOrdering {
        self.sort.expr()
    }

    /// The input.
    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        self.sort.input()
    }

    /// Whether each input partition is sorted on its own (`true`) or the single input
    /// partition into one (`false`).
    pub fn preserve_partitioning(&self) -> bool {
        self.sort.preserve_partitioning()
    }

    /// A new operator for `sort` with this one's keys, or `sort` itself if it is no longer
    /// served (its input changed).
    fn rewrap(&self, sort: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(new) = sort.downcast_ref::<SortExec>() else {
            return internal_err!("SortExec rebuilt as {}", sort.name());
        };
        Ok(match Self::try_new(new)? {
            Ok(exec) => Arc::new(exec),
            Err(_) => sort,
        })
    }
}

impl DisplayAs for SortnetExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let expr = self.sort.expr();
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, "SortnetExec: ")?;
                if let Some(fetch) = self.sort.fetch() {
                    write!(f, "TopK(fetch={fetch}), ")?;
                }
                write!(
                    f,
                    "expr=[{expr}], preserve_partitioning=[{}]",
                    self.sort.preserve_partitioning()
                )
            }
            DisplayFormatType::TreeRender => {
                writeln!(f, "{expr}")?;
                match self.sort.fetch() {
                    Some(fetch) => writeln!(f, "limit={fetch}"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl ExecutionPlan for SortnetExec {
    fn name(&self) -> &'static str {
        "SortnetExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.sort.properties()
    }

    fn input_distribution_requirements(&self) -> InputDistributionRequirements {
        self.sort.input_distribution_requirements()
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        self.sort.benefits_from_input_partitioning()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![self.sort.input()]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        apply_expression_roots(self.sort.expr().iter().map(|e| &e.expr), f)
    }

    fn replace_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
        options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let sort = Arc::new(self.sort.clone()).replace_children(children, options)?;
        self.rewrap(sort)
    }

    #[allow(deprecated)]
    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.replace_children(
            children,
            ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute),
        )
    }

    fn reset_state(self: Arc<Self>) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(Self {
            metrics: ExecutionPlanMetricsSet::new(),
            ..self.as_ref().clone()
        }))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.sort.input();
        if input
            .equivalence_properties()
            .ordering_satisfy(self.sort.expr().clone())?
        {
            // Nothing to sort (the input's order changed since planning): SortExec passes
            // the input on, cut to the fetch.
            return self.sort.execute(partition, context);
        }
        let mut input = input.execute(partition, Arc::clone(&context))?;
        let spec = SortSpec {
            schema: self.schema(),
            keys: Arc::clone(&self.keys),
            ordering: self.sort.expr().clone(),
            fetch: self.sort.fetch(),
        };
        let metrics = SorterMetrics::new(&self.metrics, partition);
        let mut sorter = Sorter::new(spec, partition, &context, metrics);
        let sorted = futures::stream::once(async move {
            while let Some(batch) = input.next().await {
                sorter.insert(batch?).await?;
            }
            drop(input);
            sorter.finish().await
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema(),
            sorted,
        )))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn child_stats_requests(&self, partition: Option<usize>) -> Vec<ChildStats> {
        self.sort.child_stats_requests(partition)
    }

    fn statistics_from_inputs(
        &self,
        input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        self.sort.statistics_from_inputs(input_stats, args)
    }

    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn ExecutionPlan>> {
        let sort = Arc::new(self.sort.with_fetch(limit));
        self.rewrap(sort).ok()
    }

    fn fetch(&self) -> Option<usize> {
        self.sort.fetch()
    }

    fn cardinality_effect(&self) -> CardinalityEffect {
        self.sort.cardinality_effect()
    }
}
