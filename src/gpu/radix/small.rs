//! The sorts that skip the passes' chain: in one workgroup (`radix_small.comp`), and the
//! short path (a split of tiles into 256 buckets, by the top digit or by splitters sampled
//! from the keys, `radix_scatter.comp` with `SPLIT`, then a workgroup per bucket,
//! `radix_small.comp` with `BUCKETS`), recorded by
//! [`RadixSorter::record`](super::RadixSorter::record).

use std::sync::Arc;

use vulkano::command_buffer::{AutoCommandBufferBuilder, PrimaryAutoCommandBuffer};

use super::pipelines::{OneWorkgroup, ShortPath};
use super::plan;
use super::record::{cached, scatter_writes, view_id, Count, RadixScratch, RadixSorter, SortJob};
use super::{stamp, Stamps};
use crate::error::Result;
use crate::gpu::context::gpu_err;

impl RadixSorter {
    /// Records a sort of at most `one.max` keys in one workgroup: one dispatch (after a
    /// copy of the count where the GPU holds it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_one_workgroup(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
        one: &OneWorkgroup,
        map_code: u32,
        capacity: u64,
        stamps: &mut Stamps,
    ) -> Result<()> {
        let keys = job.keys.clone().slice(0..capacity.max(1));
        let values = job
            .values
            .as_ref()
            .map(|v| v.clone().slice(0..capacity.max(1)));
        let key = (
            Arc::as_ptr(&one.pipeline) as usize,
            view_id(&keys),
            values.as_ref().map(view_id),
        );
        let set = cached(&scratch.one_set, key, || {
            // Bindings 1 and 3 serve the short path's buckets (radix_small.comp): bound to
            // the scratch, unused.
            let writes = scatter_writes(
                &keys,
                &scratch.keys,
                &values,
                &scratch.values,
                &scratch.state,
            );
            self.descriptor_set(&one.pipeline, writes)
        })?;
        let count = match &job.count {
            Count::Known(n) => *n,
            Count::Buffer(_) => u32::MAX,
        };
        self.load_count(builder, &job.count, scratch, capacity, stamps)?;
        Self::bind(
            builder,
            &one.pipeline,
            set,
            [count, map_code, 0, 0, capacity as u32],
        )?;
        // SAFETY: one workgroup reads and writes keys and values below min(count, capacity,
        // SIZE) in buffers of capacity elements, and reads the state's count word.
        unsafe { builder.dispatch([1, 1, 1]) }
            .map_err(gpu_err("dispatching the one-workgroup radix sort"))?;
        Ok(())
    }

    /// Records the short path for at most `short.max` keys: the split, then the buckets
    /// (after a copy of the count where the GPU holds it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_short(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
        short: &ShortPath,
        map_code: u32,
        capacity: u64,
        stamps: &mut Stamps,
    ) -> Result<()> {
        let cap = capacity.max(1);
        let a_keys = job.keys.clone().slice(0..cap);
        let b_keys = scratch.keys.clone().slice(0..cap);
        let a_values = job.values.as_ref().map(|v| v.clone().slice(0..cap));
        let b_values = scratch.values.as_ref().map(|v| v.clone().slice(0..cap));
        let state = scratch.state.clone().slice(0..short.state_words(capacity));
        let key = (
            Arc::as_ptr(&short.split) as usize,
            view_id(&a_keys),
            a_values.as_ref().map(view_id),
        );
        let [split_set, buckets_set] = cached(&scratch.short_sets, key, || {
            // Bindings 0 and 2 are read, 1 and 3 written: A -> B for the split, B -> A for
            // the buckets.
            Ok([
                self.descriptor_set(
                    &short.split,
                    scatter_writes(&a_keys, &b_keys, &a_values, &b_values, &state),
                )?,
                self.descriptor_set(
                    &short.buckets,
                    scatter_writes(&b_keys, &a_keys, &b_values, &a_values, &state),
                )?,
            ])
        })?;
        // As the passes take them (radix_common.glsl): a count the host knows in the push
        // constants, else copied into the state.
        let (map_word, bound, keys_hint) = match &job.count {
            Count::Known(n) => (map_code | 1 << 16, *n, u64::from(*n)),
            Count::Buffer(_) => (map_code, capacity as u32, capacity),
        };
        self.load_count(builder, &job.count, scratch, capacity, stamps)?;
        let slot_words = plan::slot_words(short.shape, capacity) as u32;
        let push = [0, map_word, slot_words, short.shape.tile_keys(), bound];
        Self::bind(builder, &short.split, split_set, push)?;
        let tiles = short.shape.tiles(keys_hint).max(1) as u32;
        // SAFETY: each workgroup is a tile of keys below min(count, capacity) (those past the
        // count return at once); it reads and writes keys and values of its own tile in
        // buffers of capacity elements, and writes the 256 status words of its tile, which the
        // state holds (ShortPath::state_words).
        unsafe { builder.dispatch([tiles, 1, 1]) }
            .map_err(gpu_err("dispatching the radix split"))?;
        stamp(builder, stamps, "split")?;
        Self::bind(builder, &short.buckets, buckets_set, push)?;
        // SAFETY: workgroup d reads the status words of digit d of the tiles below
        // ceil(count / tile) (at most 4 per invocation: ShortPath's cap) and the keys and values
        // of their runs, writes the bucket's keys and values into its own range of the
        // caller's buffers (the bucket offsets partition the count) and, for a bucket larger
        // than its shared memory, twice the count's words past the status words, which the
        // state holds (ShortPath::state_words).
        unsafe { builder.dispatch([plan::RADIX, 1, 1]) }
            .map_err(gpu_err("dispatching the radix buckets"))?;
        stamp(builder, stamps, "buckets")
    }
}
