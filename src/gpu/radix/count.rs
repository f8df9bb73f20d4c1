//! The element count of a recorded sort ([`Count`]), and the dispatch that loads a count the
//! GPU holds into the sort's state, where every pass reads it.

use std::sync::Arc;

use vulkano::buffer::Subbuffer;
use vulkano::command_buffer::{AutoCommandBufferBuilder, PrimaryAutoCommandBuffer};
use vulkano::descriptor_set::WriteDescriptorSet;
use vulkano::pipeline::ComputePipeline;

use super::record::{cached, view_id, RadixScratch, RadixSorter};
use super::{stamp, Stamps};
use crate::error::{Error, Result};
use crate::gpu::context::gpu_err;

/// The element count of a recorded sort.
#[derive(Debug, Clone)]
pub enum Count {
    /// Known when recording.
    Known(u32),
    /// Read by the GPU from this buffer when the sort runs (clamped to the buffers'
    /// capacity), e.g. written by an earlier compute pass of the caller's. The buffer needs
    /// `STORAGE_BUFFER` usage only (the sort reads it through a storage binding), and its
    /// offset must be a multiple of the device's `minStorageBufferOffsetAlignment` (at
    /// most 256 bytes; the start of a buffer always is).
    Buffer(Subbuffer<u32>),
}

/// `radix_count_load.comp`: one invocation copies the caller's count into the state.
const LOAD_SPIRV: &[u8] = include_bytes!("../../../shaders/spv/radix_count_load.spv");

impl RadixSorter {
    /// Records the load of a count the GPU holds ([`Count::Buffer`]) into the state's count
    /// word (and stamps "count"); a count the host knows needs no command. Returns whether it
    /// recorded one. `capacity` is the most keys the sort takes.
    pub(super) fn load_count(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        count: &Count,
        scratch: &RadixScratch,
        capacity: u64,
        stamps: &mut Stamps,
    ) -> Result<bool> {
        let Count::Buffer(buf) = count else {
            return Ok(false);
        };
        let align = self
            .ctx
            .device()
            .physical_device()
            .properties()
            .min_storage_buffer_offset_alignment
            .as_devicesize();
        if buf.offset() % align != 0 {
            return Err(Error::Gpu(format!(
                "the count buffer starts at byte {} of its buffer; the sort reads it through a \
                 storage binding, whose offset must be a multiple of {align} on this device \
                 (minStorageBufferOffsetAlignment)",
                buf.offset()
            )));
        }
        let pipeline = self.count_pipeline()?;
        let key = (
            Arc::as_ptr(&pipeline) as usize,
            view_id(buf),
            view_id(&scratch.state),
        );
        let set = cached(&scratch.count_set, key, || {
            self.descriptor_set(
                &pipeline,
                vec![
                    WriteDescriptorSet::buffer(0, buf.clone()),
                    WriteDescriptorSet::buffer(4, scratch.state.clone()),
                ],
            )
        })?;
        let capacity = u32::try_from(capacity).unwrap_or(u32::MAX);
        Self::bind(builder, &pipeline, set, [0, 0, 0, 0, capacity])?;
        // SAFETY: one invocation reads the one word bound at binding 0 and writes the state's
        // count word (the state holds at least `plan::state::STATUS` words).
        unsafe { builder.dispatch([1, 1, 1]) }.map_err(gpu_err("loading the key count"))?;
        stamp(builder, stamps, "count")?;
        Ok(true)
    }

    /// The count-load pipeline, built on the first [`Count::Buffer`] sort.
    fn count_pipeline(&self) -> Result<Arc<ComputePipeline>> {
        let mut slot = self
            .count_pipeline
            .lock()
            .map_err(|_| Error::Gpu("radix count pipeline lock poisoned".into()))?;
        if let Some(pipeline) = slot.as_ref() {
            return Ok(pipeline.clone());
        }
        let pipeline = self.ctx.compute_pipeline(LOAD_SPIRV, &[])?;
        *slot = Some(pipeline.clone());
        Ok(pipeline)
    }
}
