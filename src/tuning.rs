//! Tuning, calibration and introspection: what the `sortnet` tool, the benchmarks and the
//! tests reach for, and a program that sorts does not need.
//!
//! A program sorts through [`backend`](crate::backend) (and [`keys::CpuRadixSorter`],
//! [`file`](mod@crate::file), `gpu` for data on the GPU). This module holds
//! the rest: which backend `auto` picks for a call, the calibration profile and the
//! measurement that writes it, the tuning values the sorters' `with_config` constructors
//! take (`Default` being what ships; every value sorts the same, only the speed differs),
//! and what the GPU sorters decide on a device. These items follow the implementation and
//! may change in any release.
//!
//! [`keys::CpuRadixSorter`]: crate::keys::CpuRadixSorter

use crate::backend::profile::State;
use crate::backend::Registry;
use crate::backend::{SortBackend, Workload};
use crate::keys::key::KeyMap;

pub use crate::backend::registry::{auto_pick, auto_pick_for, options, profile_state};
pub use crate::keys::radix::{DigitWidth, DigitWidths};

/// The calibration profile: which backend measured fastest on this machine, per workload and
/// length, and where it is saved. `auto` follows it as a
/// [`ProfileChoice`](crate::backend::ProfileChoice) says.
pub mod profile {
    pub use crate::backend::profile::{
        cache_file_name, cache_path, location, machine_key, row_index, row_name, rows, Location,
        Profile, Row, State, BUILT_IN, FLOAT_ROWS, WORKLOADS,
    };
}

/// Timing backends against each other on this machine to find `auto`'s crossovers
/// (`sortnet calibrate`, and `auto`'s own short measurement under
/// [`ProfileChoice::MeasureOnce`](crate::backend::ProfileChoice::MeasureOnce)).
pub mod calibration {
    pub use crate::backend::calibration::{
        boundary, crossovers, measure, Cell, Plan, ONE_THREAD_PROBE, ONE_THREAD_PROBE_64,
        THREADS_PROBE, THREADS_PROBE_64, THREADS_TOP,
    };
}

/// The backend `registry`'s `auto` sends a call of `workload` with `len` elements to, for
/// keys that map to unsigned order by `map` ([`auto_pick_for`] for the process-wide
/// registry); `None` when no backend of it does `workload`.
pub fn registry_pick(
    registry: &Registry,
    workload: Workload,
    len: usize,
    map: KeyMap,
) -> Option<&'static dyn SortBackend> {
    registry.auto_pick_for(workload, len, map)
}

/// What happened to the calibration profile `registry`'s `auto` follows (reading or
/// measuring it now if that `auto` has not routed a call yet); [`profile_state`] for the
/// process-wide registry.
pub fn registry_profile_state(registry: &Registry) -> &State {
    registry.profile_state()
}

/// The GPU sorters' tuning and what they decide on a device: tile sizes, which scheme and
/// path a sort takes, per-phase timestamps, the device's limits, and a plain copy kernel as
/// the bandwidth yardstick.
#[cfg(feature = "gpu")]
pub mod gpu {
    use std::sync::Arc;

    use vulkano::command_buffer::{AutoCommandBufferBuilder, PrimaryAutoCommandBuffer};
    use vulkano::query::QueryPool;

    use crate::error::Result;
    use crate::gpu::bitonic::BitonicSorter;
    use crate::gpu::context::GpuContext;
    use crate::gpu::radix::{RadixScratch, RadixSorter, SortJob};
    use crate::gpu::transfer::TransferConfig;
    use crate::keys::key::KeyWidth;

    pub use crate::gpu::bitonic::config::BitonicConfig;
    pub use crate::gpu::copy::record_copy;
    pub use crate::gpu::limits::Limits;
    pub use crate::gpu::radix::config::{PassScheme, RadixConfig, SHORT_MAX};

    /// The device limits `ctx`'s sorters size their work from.
    pub fn limits(ctx: &GpuContext) -> &Limits {
        ctx.limits()
    }

    /// Keys per scatter tile of `sorter`'s sorts of this key width (with or without values)
    /// too small for reduce-then-scan (see [`reduces_then_scans`]), whose tile may differ.
    /// Tests size their inputs around it.
    pub fn tile_keys(sorter: &RadixSorter, width: KeyWidth, pairs: bool) -> Result<u32> {
        sorter.tile_keys(width, pairs)
    }

    /// Whether `sorter`'s whole sort of `n` keys of this width (with or without values) runs
    /// its passes by reduce-then-scan rather than by decoupled look-back.
    pub fn reduces_then_scans(
        sorter: &RadixSorter,
        width: KeyWidth,
        pairs: bool,
        n: u64,
    ) -> Result<bool> {
        sorter.reduces_then_scans(width, pairs, n)
    }

    /// Whether `sorter`'s sort of `n` keys of this width (with or without values) runs in
    /// one workgroup ([`RadixConfig::one_workgroup_max`](RadixConfig#structfield.one_workgroup_max)).
    pub fn runs_in_one_workgroup(
        sorter: &RadixSorter,
        width: KeyWidth,
        pairs: bool,
        n: u64,
    ) -> Result<bool> {
        sorter.runs_in_one_workgroup(width, pairs, n)
    }

    /// Whether `sorter`'s sort of `n` keys of this width (with or without values) takes the
    /// short path ([`RadixConfig::short_max`](RadixConfig#structfield.short_max)): a split into buckets and a workgroup per
    /// bucket.
    pub fn takes_short_path(
        sorter: &RadixSorter,
        width: KeyWidth,
        pairs: bool,
        n: u64,
    ) -> Result<bool> {
        sorter.takes_short_path(width, pairs, n)
    }

    /// [`RadixSorter::record`], writing a GPU timestamp into query `i` of `pool` after the
    /// sort's `i`-th phase (from 1: the caller resets the queries and writes query 0
    /// before); returns the phases' names. For per-phase timings (benches/gpu.rs,
    /// `--phases`); the timestamps order the phases no more than the sort's own barriers do.
    pub fn record_timed(
        sorter: &RadixSorter,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
        pool: &Arc<QueryPool>,
    ) -> Result<Vec<&'static str>> {
        sorter.record_timed(builder, job, scratch, pool)
    }

    /// Whether host slices of `bytes` bytes (not inside a
    /// [`HostBuffer`](crate::gpu::HostBuffer)) take the streamed path on `ctx` under
    /// `config`: at least two pieces, a queue with timestamps (they mark finished pieces) and
    /// host-coherent staging memory (finished pieces are read while the GPU still writes
    /// others).
    pub fn streams(config: &TransferConfig, ctx: &GpuContext, bytes: u64) -> bool {
        config.streams(ctx, bytes)
    }

    /// Elements one workgroup of `sorter` sorts in shared memory (the tile) for keys of
    /// `key_bytes` bytes (4 or 8), with or without values: lengths up to it take one
    /// dispatch.
    pub fn bitonic_tile_len(sorter: &BitonicSorter, key_bytes: u32, pairs: bool) -> u32 {
        sorter.tile_len(key_bytes, pairs)
    }
}
