//! Pure dispatch math for the GPU kernels, unit-tested without a GPU.

/// A dispatch grid for `groups` workgroups within the device's `maxComputeWorkGroupCount`
/// (x and y): one row while it fits, else rows of `x` groups; the shaders compute their flat
/// group index as `y * x + x_id` and drop groups at or past `groups`.
pub(crate) fn grid(groups: u32, max_count: [u32; 2]) -> [u32; 3] {
    let groups = groups.max(1);
    let max_x = max_count[0].max(1);
    if groups <= max_x {
        return [groups, 1, 1];
    }
    // Rows of a power-of-two width keep the flat index math cheap and the waste below one row.
    let x = 1u32 << (31 - max_x.leading_zeros());
    [x, groups.div_ceil(x), 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_fits_the_device_and_covers_every_group() {
        assert_eq!(grid(0, [65535, 65535]), [1, 1, 1]);
        assert_eq!(grid(1000, [65535, 65535]), [1000, 1, 1]);
        let g = grid(1 << 20, [65535, 65535]);
        assert!(g[0] <= 65535 && g[1] <= 65535);
        assert!(g[0] as u64 * g[1] as u64 >= 1 << 20);
        assert!((g[0] as u64 * g[1] as u64) < (1 << 20) + g[0] as u64);
    }
}

/// One dispatch of the bitonic sort (the write-up's four kernels; the global ones fused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BitonicStep {
    /// `local_bms`: sort every tile in shared memory with merges of height 2..=`h`.
    LocalSort {
        /// Largest merge height (the tile, or less when the whole input is smaller).
        h: u32,
    },
    /// `big_flip` / `big_disperse`, fused: the steps of one merge on bits `top` down to
    /// `top - levels + 1`, in registers, `2^levels` keys per thread. With `flip` the top step
    /// is the merge's flip (the merge's height is `2^(top + 1)`).
    Global {
        /// The highest bit of the fused steps.
        top: u32,
        /// How many steps are fused (1..=the fusion limit).
        levels: u32,
        /// Whether the top step is the flip.
        flip: bool,
    },
    /// `local_disperse`: the disperse cascade of heights tile..=2 in shared memory.
    LocalMerge,
}

/// The bitonic sort of `len` elements (virtually padded with maximal keys to the next power
/// of two) with tiles of `tile` elements (a power of two, at least 2) and at most `fuse`
/// global steps per dispatch.
///
/// A local sort of every tile, then for each merge height `h` from `2 * tile` up to the
/// padded length: the global steps on bits `log2(h) - 1` down to `log2(tile)`, chunked
/// `fuse` at a time from the top (the first chunk holds the flip), then one local merge.
pub(crate) fn bitonic_schedule(len: u64, tile: u32, fuse: u32) -> Vec<BitonicStep> {
    assert!(tile.is_power_of_two() && tile >= 2 && fuse >= 1);
    let mut steps = Vec::new();
    if len < 2 {
        return steps;
    }
    let padded = len.next_power_of_two();
    steps.push(BitonicStep::LocalSort {
        h: padded.min(tile as u64) as u32,
    });
    let tile_bits = tile.trailing_zeros();
    let top_bits = padded.trailing_zeros();
    for merge_bits in tile_bits + 1..=top_bits {
        // Global bits: merge_bits - 1 down to tile_bits.
        let mut top = merge_bits - 1;
        let mut remaining = merge_bits - tile_bits;
        let mut flip = true;
        while remaining > 0 {
            let levels = remaining.min(fuse);
            steps.push(BitonicStep::Global { top, levels, flip });
            flip = false;
            remaining -= levels;
            top = top.wrapping_sub(levels);
        }
        steps.push(BitonicStep::LocalMerge);
    }
    steps
}

/// Workgroups of a bitonic step: one per tile that holds real elements for the local
/// kernels; `padded / 2^levels / workgroup` (at least one) for a global step.
pub(crate) fn bitonic_groups(step: BitonicStep, len: u64, tile: u32, workgroup: u32) -> u32 {
    match step {
        BitonicStep::LocalSort { .. } | BitonicStep::LocalMerge => len.div_ceil(tile as u64) as u32,
        BitonicStep::Global { levels, .. } => {
            let threads = len.next_power_of_two() >> levels;
            threads.div_ceil(workgroup as u64).max(1) as u32
        }
    }
}

/// The tile size (elements in shared memory per workgroup) for keys of `element_bytes`
/// bytes (values included): the largest power of two that fits `shared_bytes` and holds
/// at most `max_per_thread` elements per thread of a `workgroup`-thread group, and at least
/// two per thread.
pub(crate) fn bitonic_tile(
    shared_bytes: u32,
    element_bytes: u32,
    workgroup: u32,
    max_per_thread: u32,
) -> u32 {
    let fit = shared_bytes / element_bytes;
    let mut tile = 1u32 << (31 - fit.max(1).leading_zeros());
    tile = tile.min(workgroup * max_per_thread);
    tile.max(2 * workgroup)
}

/// Runs `schedule` on the CPU exactly as the shaders index it (flip and disperse pairs,
/// virtual maximal keys past the end): the model the GPU kernels are checked against.
#[cfg(test)]
fn simulate_bitonic(data: &mut [u32], tile: u32, fuse: u32) {
    let n = data.len() as u64;
    let padded = n.next_power_of_two() as usize;
    let mut v: Vec<u64> = data.iter().map(|&k| k as u64).collect();
    v.resize(padded.max(1), u64::MAX);
    let cmpxchg = |v: &mut Vec<u64>, a: usize, b: usize| {
        if v[b] < v[a] {
            v.swap(a, b);
        }
    };
    let flip = |v: &mut Vec<u64>, h: usize, lo: usize, hi: usize| {
        for q in (lo..hi).step_by(h) {
            for t in 0..h / 2 {
                cmpxchg(v, q + t, q + h - 1 - t);
            }
        }
    };
    let disperse = |v: &mut Vec<u64>, h: usize, lo: usize, hi: usize| {
        for q in (lo..hi).step_by(h) {
            for t in 0..h / 2 {
                cmpxchg(v, q + t, q + t + h / 2);
            }
        }
    };
    let tile = tile as usize;
    for step in bitonic_schedule(n, tile as u32, fuse) {
        match step {
            BitonicStep::LocalSort { h } => {
                for base in (0..padded).step_by(tile.min(padded)) {
                    let end = (base + tile).min(padded);
                    let mut hh = 2;
                    while hh <= h as usize {
                        flip(&mut v, hh, base, end);
                        let mut d = hh / 2;
                        while d > 1 {
                            disperse(&mut v, d, base, end);
                            d /= 2;
                        }
                        hh *= 2;
                    }
                }
            }
            BitonicStep::Global {
                top,
                levels,
                flip: f,
            } => {
                // Thread by thread, with bitonic_global.comp's index math.
                let (lo, slots) = ((top + 1 - levels) as usize, 1usize << levels);
                let s = 1usize << lo;
                for g in 0..padded >> levels {
                    let x = g & (s - 1);
                    let q = (g >> lo) << (top + 1);
                    let upper = if f { s - 1 - x } else { x };
                    let idx: Vec<usize> = (0..slots)
                        .map(|c| q + if c < slots / 2 { x } else { upper } + c * s)
                        .collect();
                    let mut r = levels;
                    if f {
                        for c in 0..slots / 2 {
                            cmpxchg(&mut v, idx[c], idx[slots - 1 - c]);
                        }
                        r -= 1;
                    }
                    while r > 0 {
                        let d = 1 << (r - 1);
                        for c in (0..slots).filter(|c| c & d == 0) {
                            cmpxchg(&mut v, idx[c], idx[c | d]);
                        }
                        r -= 1;
                    }
                }
            }
            BitonicStep::LocalMerge => {
                for base in (0..padded).step_by(tile) {
                    let mut d = tile;
                    while d > 1 {
                        disperse(&mut v, d, base, base + tile);
                        d /= 2;
                    }
                }
            }
        }
    }
    for (d, s) in data.iter_mut().zip(&v) {
        *d = *s as u32;
    }
}

#[cfg(test)]
mod bitonic_tests {
    use super::*;

    fn lcg(seed: u64, n: usize) -> Vec<u32> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) as u32
            })
            .collect()
    }

    #[test]
    fn schedule_for_one_tile_is_a_single_local_sort() {
        assert_eq!(bitonic_schedule(0, 16, 2), vec![]);
        assert_eq!(bitonic_schedule(1, 16, 2), vec![]);
        assert_eq!(
            bitonic_schedule(5, 16, 2),
            vec![BitonicStep::LocalSort { h: 8 }]
        );
        assert_eq!(
            bitonic_schedule(16, 16, 2),
            vec![BitonicStep::LocalSort { h: 16 }]
        );
    }

    #[test]
    fn schedule_fuses_global_steps_from_the_top() {
        use BitonicStep::*;
        // 128 elements, tiles of 16: merges 32, 64, 128 with 1, 2, 3 global bits.
        assert_eq!(
            bitonic_schedule(100, 16, 2),
            vec![
                LocalSort { h: 16 },
                Global {
                    top: 4,
                    levels: 1,
                    flip: true
                },
                LocalMerge,
                Global {
                    top: 5,
                    levels: 2,
                    flip: true
                },
                LocalMerge,
                Global {
                    top: 6,
                    levels: 2,
                    flip: true
                },
                Global {
                    top: 4,
                    levels: 1,
                    flip: false
                },
                LocalMerge,
            ]
        );
    }

    #[test]
    fn simulated_schedule_sorts() {
        for (tile, fuse) in [(2, 1), (4, 2), (16, 3), (64, 4)] {
            for n in [
                0usize, 1, 2, 3, 15, 16, 17, 63, 64, 65, 100, 257, 1000, 4096, 5000,
            ] {
                let mut v = lcg(n as u64 + 7, n);
                let mut want = v.clone();
                want.sort_unstable();
                simulate_bitonic(&mut v, tile, fuse);
                assert_eq!(v, want, "n {n} tile {tile} fuse {fuse}");
            }
        }
    }

    #[test]
    fn groups_and_tiles() {
        let s = BitonicStep::Global {
            top: 10,
            levels: 2,
            flip: true,
        };
        assert_eq!(bitonic_groups(s, 3000, 512, 64), 4096 / 4 / 64);
        assert_eq!(bitonic_groups(BitonicStep::LocalMerge, 3000, 512, 64), 6);
        assert_eq!(bitonic_tile(32768, 4, 256, 32), 8192);
        assert_eq!(bitonic_tile(32768, 12, 256, 32), 2048);
        assert_eq!(bitonic_tile(49152, 12, 256, 32), 4096);
        assert_eq!(bitonic_tile(49152, 4, 256, 16), 4096);
    }
}
