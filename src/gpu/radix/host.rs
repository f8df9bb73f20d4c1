//! Host slices through the radix sort (the `SortBackend` path): up, sorted and down in one
//! command buffer, or, from two stream pieces on, streamed piece by piece with the host's
//! copies on all cores; slices inside a [`HostBuffer`](crate::gpu::HostBuffer) are copied by
//! the GPU directly, with no staging.

use vulkano::command_buffer::{AutoCommandBufferBuilder, CopyBufferInfo, PrimaryAutoCommandBuffer};

use super::plan;
use super::record::{Count, RadixScratch, RadixSorter, SortJob};
use crate::error::Result;
use crate::gpu::context::gpu_err;
use crate::gpu::host_buffer::{self, HostSide};
use crate::gpu::pool::Memory;
use crate::keys::key::{KeyMap, KeyWidth};

impl RadixSorter {
    /// Sorts host slices: upload, sort, download (streamed in pieces for large slices of
    /// keys alone). On `Err` the slices hold their original contents (for a slice inside a
    /// host buffer, see [`HostBuffer`](crate::gpu::HostBuffer) on a failing last copy).
    pub(super) fn sort_host(
        &self,
        keys: &mut [u32],
        values: Option<&mut [u32]>,
        width: KeyWidth,
        map: KeyMap,
    ) -> Result<()> {
        let variant = Self::variant(width, values.is_some());
        let kw = u64::from(variant.key_words());
        let n = keys.len() as u64 / kw;
        if n <= 1 {
            return Ok(());
        }
        let p = self.pipelines(variant)?;
        self.check_len(&p, variant, n)?;
        let ctx = &self.ctx;
        let host = &self.host;
        // Keys inside a host buffer are copied by the GPU directly: no staging, so no
        // streaming either.
        let pinned = host_buffer::is_in_host_buffer(keys);
        let sizes = p.scratch_sizes(variant, n);
        let a_keys = host.buffer(Memory::Device, n * kw * 4)?;
        let a_values = values
            .as_ref()
            .map(|_| host.buffer(Memory::Device, n * 4))
            .transpose()?;
        let b_keys = host.buffer(Memory::Device, sizes.keys_bytes)?;
        let b_values = values
            .as_ref()
            .map(|_| host.buffer(Memory::Device, sizes.values_bytes))
            .transpose()?;
        let state = host.buffer(Memory::Device, sizes.state_bytes)?;
        let scratch = RadixScratch {
            variant,
            capacity: n,
            keys: b_keys.slice(n * kw),
            values: b_values.as_ref().map(|b| b.slice(n)),
            state: state.slice(sizes.state_bytes / 4),
            indirect: self.indirect_buffer()?,
            sets: Default::default(),
            one_set: Default::default(),
            short_sets: Default::default(),
            count_set: Default::default(),
        };
        let job = SortJob {
            keys: a_keys.slice(n * kw),
            values: a_values.as_ref().map(|b| b.slice(n)),
            width,
            map,
            count: Count::Known(n as u32),
            key_bits: None,
        };
        if !pinned && values.is_none() && host.streams(n * kw * 4) {
            // Host copies overlap the PCIe copies, piece by piece (keys only; the whole sort
            // runs between upload and download).
            return host.round_trip_streamed(keys, &job.keys, |builder| {
                self.record_fresh(builder, &job, &scratch)
            });
        }
        // The host side of the copies: the caller's host buffers, or staging copies.
        let host_keys = HostSide::of(host, keys)?;
        let host_values = values
            .as_deref()
            .map(|v| HostSide::of(host, v))
            .transpose()?;
        let mut upload = ctx.command_builder()?;
        upload
            .copy_buffer(CopyBufferInfo::buffers(
                host_keys.view.clone(),
                job.keys.clone(),
            ))
            .map_err(gpu_err("uploading keys"))?;
        if let (Some(s), Some(d)) = (&host_values, &job.values) {
            upload
                .copy_buffer(CopyBufferInfo::buffers(s.view.clone(), d.clone()))
                .map_err(gpu_err("uploading values"))?;
        }
        // The sort is recorded while the keys travel (2^24 u32 keys from a host buffer on
        // the H200: 3.35-3.44 ms against 3.51-3.76 recording first; BENCHMARKS.md, "GPU
        // host path").
        ctx.submit_while_recording(upload, || {
            let mut builder = ctx.command_builder()?;
            self.record_fresh(&mut builder, &job, &scratch)?;
            builder
                .copy_buffer(CopyBufferInfo::buffers(
                    job.keys.clone(),
                    host_keys.view.clone(),
                ))
                .map_err(gpu_err("downloading keys"))?;
            if let (Some(s), Some(d)) = (&host_values, &job.values) {
                builder
                    .copy_buffer(CopyBufferInfo::buffers(d.clone(), s.view.clone()))
                    .map_err(gpu_err("downloading values"))?;
            }
            Ok(builder)
        })?;
        host_keys.finish(keys)?;
        if let (Some(h), Some(v)) = (host_values, values) {
            h.finish(v)?;
        }
        Ok(())
    }

    /// [`record`](Self::record) with scratch whose state holds anything (the host path's
    /// pooled buffers): zeroes the state's header first, as `new_scratch` does once.
    pub(super) fn record_fresh(
        &self,
        builder: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        job: &SortJob,
        scratch: &RadixScratch,
    ) -> Result<()> {
        builder
            .fill_buffer(
                scratch
                    .state
                    .clone()
                    .slice(0..u64::from(plan::state::STATUS)),
                0,
            )
            .map_err(gpu_err("clearing radix state"))?;
        self.record(builder, job, scratch)
    }
}
