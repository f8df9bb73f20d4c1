//! # sortnet-datafusion
//!
//! DataFusion's `ORDER BY` on [sortnet](https://docs.rs/sortnet): [`SortnetRule`], a
//! physical optimizer rule added in one line, replaces each `SortExec` it can serve by
//! [`SortnetExec`], which gathers each partition's input under the session's memory pool
//! and sorts it as one run with [sortnet-arrow](https://docs.rs/sortnet-arrow) (not 8,192-row
//! batches merged afterwards), spills sorted runs through the session's disk manager when
//! the pool is full and merges them, and keeps only the best rows for a `LIMIT`.
//!
//! ```
//! use std::sync::Arc;
//! use sortnet_datafusion::datafusion::execution::SessionStateBuilder;
//! use sortnet_datafusion::datafusion::prelude::SessionContext;
//! use sortnet_datafusion::SortnetRule;
//!
//! let state = SessionStateBuilder::new()
//!     .with_default_features()
//!     .with_physical_optimizer_rule(Arc::new(SortnetRule::default()))
//!     .build();
//! let ctx = SessionContext::new_with_state(state);
//! # drop(ctx);
//! ```
//!
//! `EXPLAIN` shows `SortnetExec: expr=[...]` where sortnet sorts and `SortExec` where
//! DataFusion still does (see [`SortnetRule`] for what falls back and why).
//!
//! ## Semantics
//!
//! The rows and their order are those of `SortExec` (IEEE total order for floats, nulls
//! first or last as asked), up to the order of rows with equal keys, which `SortExec` leaves
//! open: here they keep their input order within a partition's run, and runs that were
//! spilled are merged with ties going to the earlier run.
//!
//! ## Cancellation
//!
//! Dropping the output stream stops the operator: the input is no longer read and no further
//! run is sorted or written. Sorts run on the blocking thread pool so they do not stall the
//! async workers; a sort already running finishes its run first.

mod exec;
mod rule;
mod run;
mod serves;
mod sorter;

pub use exec::SortnetExec;
pub use rule::SortnetRule;
pub use serves::Unsupported;

/// The DataFusion crate this one is built with, so that callers match versions.
pub use datafusion;
