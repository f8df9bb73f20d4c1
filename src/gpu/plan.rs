//! Pure dispatch math for the GPU kernels, unit-tested without a GPU.

/// A dispatch grid for `groups` workgroups within the device's `maxComputeWorkGroupCount`
/// (x and y): one row while it fits, else rows of `x` groups; the shaders compute their flat
/// group index as `y * x + x_id` and drop groups at or past `groups`.
pub fn grid(groups: u32, max_count: [u32; 2]) -> [u32; 3] {
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
