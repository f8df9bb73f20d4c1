//! `vulkan-radix`: LSD radix sort with 8-bit digits on a Vulkan device: one upfront
//! histogram of every digit, then one pass per digit whose offsets across tiles come either
//! from decoupled look-back (Onesweep) or from reduce-then-scan.
//!
//! Per sort, all recorded into one command buffer ([`RadixSorter::record`]), with no clear
//! first (the histogram's accumulators are zero between sorts: the scratch starts so and
//! every sort leaves them so) and a count the host knows in the push constants:
//!
//! 1. where the count is in a GPU buffer of the caller's, a copy of it into the state;
//! 2. `radix_histogram`: counts the digits of every pass below the end bit at once (by
//!    reduce-then-scan only pass 0's, each upsweep counting its own), and ORs the keys and
//!    their complements. Its last workgroup to finish (an atomic ticket) plans
//!    (`radix_plan.glsl`): which passes run (a pass whose digit is the same for every key is
//!    skipped, unless that would leave an odd number) and, for the look-back, bucket
//!    offsets. The decision is made on the GPU, so no read-back stalls the queue and the
//!    count may come from a GPU buffer. The passes that run become steps, alternately A->B
//!    and B->A; the plan tells each step its digit. By look-back each step is a direct
//!    dispatch of a workgroup per tile (of the capacity where the GPU holds the count: tiles
//!    past it leave at once), and a step the plan leaves out finds no digit and leaves (an
//!    indirect dispatch cost 2.3-2.8 us more a pass on an H200); by reduce-then-scan the
//!    plan sizes each step's dispatches (indirect);
//! 3. per step, by one of two schemes (the first step applies the key map on read, the
//!    last undoes it on write):
//!    - decoupled look-back: `radix_scatter` ranks a tile, finds the keys of earlier tiles
//!      with the same digits by look-back, and scatters;
//!    - reduce-then-scan (large sorts of every variant but 64-bit pairs, where it measured
//!      faster; with tiles of its own, sized to the shared memory that lets several
//!      workgroups share a multiprocessor, 64-bit keys passing through it one 32-bit half at
//!      a time): `radix_upsweep` counts each tile's digits within its partition (for pass 0
//!      the histogram did), a scan turns the partitions' counts into offsets (with the
//!      bucket offsets), and `radix_scatter` ranks and scatters each tile without waiting
//!      for any other tile. The scan runs in the scatter's first workgroups for keys alone
//!      below 2^26 keys (its tiles wait for their offsets, with a bounded spin and a
//!      fallback that sums the counts itself), as `radix_scan` before the scatter above that
//!      and for pairs;
//! 4. `radix_copy`: brings the result back to the caller's buffer when an odd number of
//!    passes ran (recorded only for sorts by an odd number of digits: `key_bits` 24, say);
//! 5. by reduce-then-scan, `radix_clear` zeroes the accumulators its scans read to the end.
//!
//! Small sorts: on GPUs (not on software drivers, where it was slower), at most 1024 32-bit
//! keys (alone or with values) run in one workgroup, one dispatch (`radix_small.comp`: a
//! stable bitonic network over (key, index) in shared memory); up to 2^16 take the short
//! path, two dispatches (`small`: tiles split into 256 buckets, by the top digit where a
//! sample of the keys finds it spread, else by splitters from the sorted sample, then a
//! workgroup per bucket sorting it in shared memory); look-back sorts of 32-bit keys
//! in buffers of fewer than 2^16 take a smaller tile; both are [`RadixConfig`](crate::tuning::gpu::RadixConfig) values. A
//! [`SortJob::key_bits`] below the key width sorts by the low bits only: the passes above
//! them are neither recorded nor run.
//!
//! The look-back spins a bounded number of times and then recounts the missing tile from
//! the keys (Vulkan promises no forward progress between workgroups); see
//! `shaders/radix_scatter.comp`. Reduce-then-scan has no tile wait for another. The
//! sort is stable, so pairs keep equal keys' values in input order.
//!
//! Files: `config` ([`RadixConfig`](crate::tuning::gpu::RadixConfig), the tuning as a value), `plan` (dispatch math, tested
//! without a GPU), `pipelines` (built per variant), `record` ([`RadixSorter`], recording a
//! [`SortJob`]), `small` (the one-workgroup sort and the short path), `host` (host
//! slices). Data already on the GPU: [`RadixSorter::record`] records the sort into the
//! caller's command buffer for caller-owned buffers, with scratch from
//! [`RadixSorter::new_scratch`] (its size from [`RadixSorter::scratch_bytes`]); keep the
//! scratch and reuse it for every sort of at most its capacity.

pub(crate) mod config;
mod count;
mod host;
mod pipelines;
pub(crate) mod plan;
mod record;
mod small;

use std::sync::Arc;

use vulkano::command_buffer::{AutoCommandBufferBuilder, PrimaryAutoCommandBuffer};
use vulkano::query::QueryPool;
use vulkano::sync::PipelineStage;

pub use record::{Count, RadixScratch, RadixSorter, SortJob};

use super::nibble;
use crate::backend::{Device, SortBackend, Workload};
use crate::error::Result;
use crate::gpu::context::gpu_err;
#[allow(unused_imports)] // for the docs
use crate::gpu::transfer::TransferConfig;
use crate::keys::key::{KeyMap, KeyWidth};

const NAME: &str = "vulkan-radix";

/// Per-phase timestamps of [`RadixSorter::record_timed`]: the pool, the phases so far.
pub(super) type Stamps<'a> = Option<(&'a Arc<QueryPool>, Vec<&'static str>)>;

/// Writes the timestamp after phase `name`, where timestamps are asked for.
pub(super) fn stamp(
    builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    stamps: &mut Stamps,
    name: &'static str,
) -> Result<()> {
    let Some((pool, names)) = stamps else {
        return Ok(());
    };
    names.push(name);
    // SAFETY: record_timed's caller owns the pool's queries for this command buffer and reset
    // them before; vulkano checks that the query exists and is a timestamp query.
    unsafe {
        builder.write_timestamp(
            (*pool).clone(),
            names.len() as u32,
            PipelineStage::AllCommands,
        )
    }
    .map_err(gpu_err("writing a timestamp"))?;
    Ok(())
}

impl RadixSorter {
    /// [`record`](Self::record), writing a GPU timestamp into query `i` of `pool` after the
    /// sort's `i`-th phase (from 1: the caller resets the queries and writes query 0 before);
    /// returns the phases' names (see [`crate::tuning::gpu::record_timed`]).
    pub(crate) fn record_timed(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
        pool: &Arc<QueryPool>,
    ) -> Result<Vec<&'static str>> {
        let mut stamps = Some((pool, Vec::new()));
        self.record_phases(builder, job, scratch, &mut stamps)?;
        Ok(stamps.map(|(_, names)| names).unwrap_or_default())
    }
}

/// Views 64-bit keys as 32-bit words (low word first on little-endian hosts, as the
/// shaders read them).
fn words_of(keys: &mut [u64]) -> &mut [u32] {
    // SAFETY: u64 has no padding and every bit pattern is a valid pair of u32; u32's
    // alignment (4) divides u64's (8); the length doubles to cover the same bytes, and the
    // borrow of `keys` is held for the lifetime of the view.
    unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<u32>(), keys.len() * 2) }
}

/// The `vulkan-radix` backend: host slices through a [`RadixSorter`]. The registry's
/// instance has the shipped tuning; [`VulkanRadix::new`] makes one of any sorter, e.g. one
/// whose [`TransferConfig::keep_bytes`] gives a large sort's buffers back after each call.
pub struct VulkanRadix {
    sorter: RadixSorter,
}

impl std::fmt::Debug for VulkanRadix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VulkanRadix")
            .field("sorter", &self.sorter)
            .finish()
    }
}

impl VulkanRadix {
    /// The backend of `sorter`; `None` on a big-endian host (64-bit keys are uploaded as
    /// word pairs, low word first).
    pub fn new(sorter: RadixSorter) -> Option<Self> {
        cfg!(target_endian = "little").then_some(VulkanRadix { sorter })
    }

    /// The sorter behind the backend.
    pub fn sorter(&self) -> &RadixSorter {
        &self.sorter
    }
}

impl SortBackend for VulkanRadix {
    fn name(&self) -> &'static str {
        NAME
    }

    fn device(&self) -> Device {
        Device::Gpu {
            software: self.sorter.ctx.is_software(),
        }
    }

    fn status(&self) -> String {
        self.sorter.ctx.status()
    }

    fn supports(&self, workload: Workload) -> bool {
        match workload {
            Workload::Nibbles => nibble::supported(&self.sorter.ctx),
            Workload::Keys(_) | Workload::Pairs(_) => true,
        }
    }

    /// Nibble sorts are independent 16-element sorts, no radix work: the GPU nibble kernel.
    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        nibble::sort_host(&self.sorter.host, words)
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        self.sorter.sort_host(keys, None, KeyWidth::W32, map)
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        self.sorter
            .sort_host(words_of(keys), None, KeyWidth::W64, map)
    }

    fn sort_pairs32(&self, keys: &mut [u32], values: &mut [u32], map: KeyMap) -> Result<()> {
        self.sorter
            .sort_host(keys, Some(values), KeyWidth::W32, map)
    }

    fn sort_pairs64(&self, keys: &mut [u64], values: &mut [u32], map: KeyMap) -> Result<()> {
        self.sorter
            .sort_host(words_of(keys), Some(values), KeyWidth::W64, map)
    }
}
