//! The front desk: the [`SortBackend`] trait every implementation provides, and the registry
//! that hands them out ([`available`], [`by_name`], [`auto`]).
//!
//! Backends implement the unsigned cores (`sort_keys32`, `sort_keys64`, `sort_pairs32`,
//! `sort_pairs64`, `sort_nibbles`); the generic [`sort`](trait.SortBackend.html#method.sort)
//! and [`sort_pairs`](trait.SortBackend.html#method.sort_pairs) on `dyn SortBackend` map each
//! key type onto them through [`KeyMap`](crate::KeyMap).
//!
//! A process-wide registry, built once from the environment ([`Options::from_env`], the one
//! place the library reads environment variables), serves [`available`], [`by_name`] and
//! [`auto`]. A [`Registry`] built from other [`Options`]
//! (without AVX-512, without the GPU, with a given calibration profile) lives beside it, so
//! tests and benchmarks compare configurations in one process.
//!
//! Inside, the modules import downwards only: `sort_backend` (the trait) and `thresholds`
//! and `profile` (data) know no backend; `calibration` times the backends it is handed; `cpu` wires the CPU kernels to the trait; `auto`
//! picks among backends it is handed; `options` is what a registry is built from (typed, or
//! read from the environment); `registry` builds the lists and the `auto` over them.

mod auto;
pub(crate) mod calibration;
mod cpu;
mod options;
pub(crate) mod profile;
pub(crate) mod registry;
mod sort_backend;
pub(crate) mod thresholds;

pub use options::Options;
pub use profile::ProfileChoice;
pub(crate) use registry::auto_pick_for;
pub use registry::{auto, available, by_name, configure, Registry};
pub use sort_backend::{Device, SortBackend, Values, Workload};
