//! The radix sorter's compute pipelines, one set per variant (key width, values or not),
//! built on first use from the committed SPIR-V with the tile shapes and the
//! [`RadixConfig`]'s choices as specialization constants.

use std::sync::Arc;

use vulkano::device::physical::SubgroupFeatures;
use vulkano::pipeline::ComputePipeline;
use vulkano::shader::ShaderStages;

use super::config::RadixConfig;
use super::plan::{self, DeviceLimits, Scheme, TileShape, Variant};
use crate::error::{Error, Result};
use crate::gpu::context::GpuContext;

/// SPIR-V of one variant's pipelines.
struct Spirv {
    histogram: &'static [u8],
    scatter: &'static [u8],
    copy: &'static [u8],
    upsweep: &'static [u8],
}

fn spirv(variant: Variant) -> Spirv {
    macro_rules! spv {
        ($name:literal) => {
            include_bytes!(concat!("../../../shaders/spv/", $name, ".spv")).as_slice()
        };
    }
    let (histogram, upsweep) = if variant.wide {
        (spv!("radix_histogram_k64"), spv!("radix_upsweep_k64"))
    } else {
        (spv!("radix_histogram_k32"), spv!("radix_upsweep_k32"))
    };
    let (scatter, copy) = match variant.suffix() {
        "k32" => (spv!("radix_scatter_k32"), spv!("radix_copy_k32")),
        "k64" => (spv!("radix_scatter_k64"), spv!("radix_copy_k64")),
        "p32" => (spv!("radix_scatter_p32"), spv!("radix_copy_p32")),
        _ => (spv!("radix_scatter_p64"), spv!("radix_copy_p64")),
    };
    Spirv {
        histogram,
        scatter,
        copy,
        upsweep,
    }
}

/// The radix scan shader is the same for every variant.
const SCAN_SPIRV: &[u8] = include_bytes!("../../../shaders/spv/radix_scan.spv");

/// The clear of the state's header is the same for every variant.
const CLEAR_SPIRV: &[u8] = include_bytes!("../../../shaders/spv/radix_clear.spv");

/// Invocations of the one-workgroup sort (fewer where the device allows fewer).
const ONE_WORKGROUP_INVOCATIONS: u32 = 1024;

/// Keys per invocation of the short path's split (its workgroup as large as fits, up to
/// 512): small tiles, so that a sort of 2^16 keys has 64 of them to spread over the GPU.
const SPLIT_KEYS_PER_INVOCATION: u32 = 2;
/// Invocations of a short-path bucket's workgroup (at most `RADIX`: `radix_small.comp`).
const BUCKET_INVOCATIONS: u32 = 256;
/// The most keys a bucket sorts in shared memory (8 bytes a key): 2048, so that three
/// workgroups share the 48 KiB an H200 gives them, four times the bucket of random keys at
/// [`SHORT_MAX`](super::config::SHORT_MAX).
const BUCKET_KEYS: u32 = 2048;
/// The fewest: `radix_small.comp` keeps a few words of its own past 256 keys.
const BUCKET_MIN_KEYS: u32 = 512;
/// The short path's most keys on a software driver, whatever the configuration: a bucket
/// too large for shared memory is sorted by one workgroup whose invocations each loop about
/// three times per key of the bucket, and llvmpipe (lavapipe) silently ends a loop after
/// 65535 iterations of an invocation (see `plan::SOFTWARE_SPIN_LIMIT`).
const SOFTWARE_SHORT_MAX: u32 = 1 << 14;

/// The pipelines of one variant, built on first use.
pub(super) struct Pipelines {
    /// The look-back scatter's tile.
    pub(super) shape: TileShape,
    /// Clears the state's header and sets a count the host knows (a dispatch took less
    /// than transfer commands: BENCHMARKS.md, "GPU radix tiles").
    pub(super) clear: Arc<ComputePipeline>,
    /// The histogram whose last workgroup plans the passes (`radix_plan.glsl`).
    pub(super) histogram: Arc<ComputePipeline>,
    /// The scatter with the look-back.
    pub(super) scatter: Arc<ComputePipeline>,
    pub(super) copy: Arc<ComputePipeline>,
    /// Keys each histogram invocation counts (look-back sorts).
    pub(super) histogram_keys_per_invocation: u32,
    /// Present when whole sorts of enough keys run their passes by reduce-then-scan.
    pub(super) reduce: Option<ReduceThenScan>,
    /// Present when small look-back sorts take a tile of their own.
    pub(super) small: Option<SmallSorts>,
    /// Present when sorts of at most `max` keys run in one workgroup.
    pub(super) one: Option<OneWorkgroup>,
    /// Present when sorts of at most `max` keys (more than `one` takes) take the short path.
    pub(super) short: Option<ShortPath>,
}

/// The short path ([`RadixConfig::short_max`]): a split of tiles into 256 buckets (by the
/// top digit or by splitters sampled from the keys: `radix_scatter.comp` with `SPLIT`), then
/// a workgroup per bucket (`radix_small.comp` with `BUCKETS`).
pub(super) struct ShortPath {
    pub(super) max: u64,
    /// The split's tile.
    pub(super) shape: TileShape,
    pub(super) split: Arc<ComputePipeline>,
    pub(super) buckets: Arc<ComputePipeline>,
}

impl ShortPath {
    /// State words of a short sort of up to `capacity` keys: the split's status words, then
    /// a bucket's spare room for keys and values (`radix_small.comp`).
    pub(super) fn state_words(&self, capacity: u64) -> u64 {
        u64::from(plan::state::STATUS) + plan::slot_words(self.shape, capacity) + 2 * capacity
    }
}

/// Sorts of at most `max` keys in one workgroup (`radix_small.comp`).
pub(super) struct OneWorkgroup {
    pub(super) max: u64,
    pub(super) pipeline: Arc<ComputePipeline>,
}

/// Look-back sorts of fewer than `below` keys: a smaller tile, so that more workgroups
/// share a small sort ([`RadixConfig::small_below`]).
pub(super) struct SmallSorts {
    pub(super) below: u64,
    pub(super) shape: TileShape,
    pub(super) scatter: Arc<ComputePipeline>,
}

impl Pipelines {
    /// The tile of sorts too small for reduce-then-scan (or of every sort where it always
    /// runs).
    pub(super) fn small_shape(&self) -> TileShape {
        match (&self.reduce, &self.small) {
            (Some(r), _) if r.from == 0 => r.shape,
            (_, Some(s)) => s.shape,
            _ => self.shape,
        }
    }

    /// The tiles of both schemes.
    pub(super) fn shapes(&self) -> impl Iterator<Item = TileShape> + '_ {
        std::iter::once(self.shape).chain(self.reduce.as_ref().map(|r| r.shape))
    }

    /// The most keys a sort takes, by either scheme.
    pub(super) fn max_len(&self, variant: Variant, limits: &DeviceLimits) -> u64 {
        self.shapes()
            .map(|s| plan::max_len(variant, s, limits))
            .min()
            .unwrap_or(0)
    }

    /// Scratch for `capacity` keys, by either scheme (the state words differ with the tile).
    pub(super) fn scratch_sizes(&self, variant: Variant, capacity: u64) -> plan::ScratchSizes {
        let small = self.small.as_ref().filter(|s| capacity < s.below);
        let mut sizes = self
            .shapes()
            .chain(small.map(|s| s.shape))
            .map(|s| plan::scratch_sizes(variant, s, capacity))
            .max_by_key(|sizes| sizes.state_bytes)
            .unwrap_or_else(|| plan::scratch_sizes(variant, self.shape, capacity));
        if let Some(short) = self.short.as_ref().filter(|s| capacity <= s.max) {
            sizes.state_bytes = sizes.state_bytes.max(short.state_words(capacity) * 4);
        }
        sizes
    }
}

/// Passes by reduce-then-scan: count each partition's digits and each tile's offset in its
/// partition, scan the partitions' counts into offsets, scatter each tile without waiting
/// for another (no look-back). For sorts of at least `from` keys.
pub(super) struct ReduceThenScan {
    pub(super) from: u64,
    /// Its own tile (64-bit keys measured faster with a smaller one).
    pub(super) shape: TileShape,
    pub(super) partitions: u32,
    pub(super) upsweep: Arc<ComputePipeline>,
    /// Sorts of fewer keys than this scan the partitions' counts in the scatter's first
    /// workgroups (`in_pass`), the others by a dispatch of their own (`separate`).
    pub(super) in_pass_below: u64,
    pub(super) in_pass: Option<ScanScheme>,
    pub(super) separate: Option<ScanScheme>,
}

/// The pipelines that depend on where reduce-then-scan's scan runs (the `SCAN_IN_PASS`
/// specialization constant of the plan and the scatter).
pub(super) struct ScanScheme {
    /// The histogram that also leaves pass 0's tile offsets, and plans.
    pub(super) histogram: Arc<ComputePipeline>,
    pub(super) scatter: Arc<ComputePipeline>,
    /// The scan's own dispatch (`None`: in the pass).
    pub(super) scan: Option<Arc<ComputePipeline>>,
}

/// The device limits the tile shape is chosen from, or `None` when the device lacks the
/// subgroup operations the shaders use in compute shaders.
pub(super) fn device_limits(ctx: &GpuContext) -> Option<DeviceLimits> {
    let props = ctx.device().physical_device().properties();
    let needed = SubgroupFeatures::BASIC
        | SubgroupFeatures::BALLOT
        | SubgroupFeatures::ARITHMETIC
        | SubgroupFeatures::SHUFFLE;
    if !props.subgroup_supported_operations?.contains(needed)
        || !props
            .subgroup_supported_stages?
            .contains(ShaderStages::COMPUTE)
    {
        return None;
    }
    let size = props.subgroup_size?;
    let l = ctx.limits();
    Some(DeviceLimits {
        min_subgroup: props.min_subgroup_size.unwrap_or(size).min(size),
        max_subgroup: props.max_subgroup_size.unwrap_or(size).max(size),
        shared_bytes: l.max_shared_memory,
        max_invocations: l.max_workgroup_invocations.min(l.max_workgroup_size_x),
        max_groups_x: l.max_workgroup_count[0],
        max_storage_range: l.max_buffer_bytes(None),
    })
}

/// Builds the pipelines of `variant` on `ctx` with the tuning of `config`; `masked`: for sorts
/// by fewer bits than the key has (the shaders' `MASKED` constant).
pub(super) fn build(
    ctx: &GpuContext,
    limits: &DeviceLimits,
    config: &RadixConfig,
    variant: Variant,
    masked: bool,
) -> Result<Pipelines> {
    // Every radix pipeline gets MASKED (constant 30; shaders without it ignore it).
    let compute_pipeline = |code: &[u8], constants: &[(u32, u32)]| {
        let mut all = constants.to_vec();
        all.push((30, u32::from(masked)));
        ctx.compute_pipeline(code, &all)
    };
    let choose = |scheme| {
        plan::choose_shape(
            variant,
            scheme,
            limits,
            config.keys_per_invocation,
            config.workgroup,
        )
    };
    let shape = choose(Scheme::LookBack).ok_or_else(|| {
        Error::Gpu(format!(
            "no radix tile fits this device's {} bytes of shared memory",
            limits.shared_bytes
        ))
    })?;
    let reduce_shape = choose(Scheme::ReduceThenScan).unwrap_or(shape);
    let code = spirv(variant);
    let stream_wg = plan::STREAM_WORKGROUP.min(limits.max_invocations);
    let partitions = config.partitions();
    let in_pass_below = plan::scan_in_pass_below(variant, config.scan_in_pass);
    let spin_limit = config.spin_limit(if ctx.is_software() {
        plan::SOFTWARE_SPIN_LIMIT
    } else {
        plan::SPIN_LIMIT
    });
    let scatter_constants = |shape: TileShape, reduce: u32, scan_in_pass: u32| {
        vec![
            (0, shape.workgroup),
            (1, shape.keys_per_invocation),
            (2, shape.max_subgroups),
            (3, spin_limit),
            (4, config.ballot_words(limits.max_subgroup)),
            (10, config.lookahead()),
            (18, config.lookback_lanes()),
            (21, reduce),
            (23, scan_in_pass),
            (24, partitions),
            (
                22,
                u32::from(reduce == 1 && plan::half_keys(variant, Scheme::ReduceThenScan)),
            ),
        ]
    };
    let small_shape = match config.small_below(variant) {
        0 => None,
        below => {
            let (wg, kpi) = super::config::SMALL_TILE;
            plan::choose_shape(variant, Scheme::LookBack, limits, Some(kpi), Some(wg))
                .filter(|small| small.tile_keys() < shape.tile_keys())
                .map(|small| (below, small))
        }
    };
    // A software driver's loop limit cuts long look-back walks short (see
    // `plan::SOFTWARE_LOOKBACK_TILES`): there larger sorts take reduce-then-scan whatever
    // the scheme.
    let reduce_from = match config.reduce_then_scan_from(variant) {
        from if ctx.is_software() => {
            let tile = small_shape.map_or(shape, |(_, s)| s).tile_keys();
            let most = plan::SOFTWARE_LOOKBACK_TILES * u64::from(tile);
            Some(from.map_or(most, |f| f.min(most)))
        }
        from => from,
    };
    let hist_batch = config.histogram_batch(variant, false);
    let reduce_batch = config.histogram_batch(variant, true);
    // Also the histogram's (the plan's) subgroups: the same workgroup size.
    let scan_subgroups = (stream_wg / limits.min_subgroup.max(1)).max(1);
    let scan_scheme = |in_pass: bool| -> Result<ScanScheme> {
        let flag = u32::from(in_pass);
        Ok(ScanScheme {
            histogram: compute_pipeline(
                code.histogram,
                &[
                    (0, stream_wg),
                    (1, reduce_batch),
                    (2, 1),
                    (3, partitions),
                    (4, scan_subgroups),
                    (5, flag),
                ],
            )?,
            scatter: compute_pipeline(code.scatter, &scatter_constants(reduce_shape, 1, flag))?,
            scan: (!in_pass)
                .then(|| {
                    compute_pipeline(
                        SCAN_SPIRV,
                        &[(0, stream_wg), (1, scan_subgroups), (2, partitions)],
                    )
                })
                .transpose()?,
        })
    };
    let short_max = match config.short_max(ctx.is_software()) {
        max if ctx.is_software() => max.min(SOFTWARE_SHORT_MAX),
        max => max,
    };
    let short = match (variant.wide, short_max) {
        (false, max) if max >= 2 => short_path(
            limits,
            variant,
            u64::from(max),
            |shape, bucket_keys| {
                let mut constants = scatter_constants(shape, 0, 0);
                constants.extend([(25, 1), (26, bucket_keys)]);
                compute_pipeline(code.scatter, &constants)
            },
            |constants| compute_pipeline(small_spirv(variant), constants),
        )?,
        _ => None,
    };
    Ok(Pipelines {
        short,
        shape,
        clear: compute_pipeline(CLEAR_SPIRV, &[(0, stream_wg)])?,
        histogram: compute_pipeline(
            code.histogram,
            &[(0, stream_wg), (1, hist_batch), (4, scan_subgroups)],
        )?,
        scatter: compute_pipeline(code.scatter, &scatter_constants(shape, 0, 0))?,
        copy: compute_pipeline(code.copy, &[(0, stream_wg)])?,
        histogram_keys_per_invocation: config.histogram_keys_per_invocation(),
        one: match (variant.wide, config.one_workgroup_max(ctx.is_software())) {
            (false, max) if max >= 2 => {
                // 8 bytes of shared memory a key; a power of two.
                let fit = (limits.shared_bytes / 8).min(max);
                let size = 1u32 << fit.max(2).ilog2();
                let code = small_spirv(variant);
                let wg = ONE_WORKGROUP_INVOCATIONS
                    .min(limits.max_invocations)
                    .min(size);
                Some(OneWorkgroup {
                    max: u64::from(size),
                    pipeline: compute_pipeline(code, &[(0, wg), (1, size)])?,
                })
            }
            _ => None,
        },
        small: match small_shape {
            None => None,
            Some((below, small)) => Some(SmallSorts {
                below,
                shape: small,
                scatter: compute_pipeline(code.scatter, &scatter_constants(small, 0, 0))?,
            }),
        },
        reduce: match reduce_from {
            Some(from) => Some(ReduceThenScan {
                from,
                shape: reduce_shape,
                partitions,
                upsweep: compute_pipeline(code.upsweep, &[(0, stream_wg), (1, reduce_batch)])?,
                in_pass_below,
                in_pass: (in_pass_below > 0).then(|| scan_scheme(true)).transpose()?,
                separate: (in_pass_below < u64::MAX)
                    .then(|| scan_scheme(false))
                    .transpose()?,
            }),
            None => None,
        },
    })
}

/// SPIR-V of `radix_small.comp` (the one-workgroup sort and the short path's buckets).
fn small_spirv(variant: Variant) -> &'static [u8] {
    if variant.pairs {
        include_bytes!("../../../shaders/spv/radix_small_p32.spv").as_slice()
    } else {
        include_bytes!("../../../shaders/spv/radix_small_k32.spv").as_slice()
    }
}

/// The short path of 32-bit sorts of up to `max` keys, where the device's limits leave room
/// for it: the split's tile (`split` builds its pipeline for buckets of a given most keys)
/// and the buckets' workgroups, whose shared memory holds [`BUCKET_KEYS`] keys or as many as
/// fit, and whose invocations take at most four tiles each (which caps `max`); `buckets`
/// builds their pipeline from its specialization constants. `max` is also capped where the
/// 256 buckets would average more than a quarter of a bucket's keys: the split's sample
/// keeps the largest bucket within the workgroup's shared memory with room for its error.
fn short_path(
    limits: &DeviceLimits,
    variant: Variant,
    max: u64,
    split: impl Fn(TileShape, u32) -> Result<Arc<ComputePipeline>>,
    buckets: impl Fn(&[(u32, u32)]) -> Result<Arc<ComputePipeline>>,
) -> Result<Option<ShortPath>> {
    // The split's status word holds a digit's first index and count in 16 bits each.
    let Some(shape) = plan::choose_shape(
        variant,
        Scheme::LookBack,
        limits,
        Some(SPLIT_KEYS_PER_INVOCATION),
        None,
    )
    .filter(|s| s.tile_keys() < 1 << 16) else {
        return Ok(None);
    };
    let wg = BUCKET_INVOCATIONS.min(limits.max_invocations);
    let tiles = shape.tiles(max).min(u64::from(4 * wg)) as u32;
    let extra = tiles + 1;
    let fit = (limits.shared_bytes / 8)
        .saturating_sub(extra)
        .min(BUCKET_KEYS);
    if fit < BUCKET_MIN_KEYS.max(wg) {
        return Ok(None);
    }
    let size = 1u32 << fit.ilog2();
    Ok(Some(ShortPath {
        max: max
            .min(u64::from(tiles) * u64::from(shape.tile_keys()))
            .min(u64::from(plan::RADIX) * u64::from(size / 4)),
        shape,
        split: split(shape, size)?,
        buckets: buckets(&[(0, wg), (1, size), (2, 1), (3, extra)])?,
    }))
}
