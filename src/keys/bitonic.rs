//! The base case of the vectorised key sort: Batcher's bitonic sorter (Knuth, TAOCP vol. 3,
//! 5.3.4) over up to 16 vectors held in registers, in its "flip/disperse" form, where every
//! comparator puts the minimum at the lower index.
//!
//! Every stage is a separate function whose sizes (`H`, the merge width, and `J`, the
//! comparator distance) are const generics, so that after inlining each comparator's lane
//! permutation and blend mask are constants (one immediate shuffle or a constant-index
//! permute) and the vectors stay in registers. Written with runtime loops over `h` and `j`,
//! LLVM kept the network rolled: the vectors lived on the stack and the permutations were
//! table loads (2.3 ns per key for a 256-key AVX-512 block on the AMD EPYC build machine).

use super::network::KeyVector;

/// One bitonic comparator stage inside every vector: lanes `l` and `l ^ m` compared, the
/// minimum to the lane where `bit` is clear.
#[inline(always)]
unsafe fn in_vector<V: KeyVector>(v: V, m: usize, bit: usize) -> V {
    // SAFETY: the caller guarantees the CPU supports V's instructions.
    unsafe {
        let p = v.xor_permute(m);
        V::blend_bit(v.min(p), v.max(p), bit)
    }
}

/// The flip stage of merge width `H`: in groups of `H` keys, key `i` against `H - 1 - i`.
#[inline(always)]
unsafe fn flip<V: KeyVector, const N: usize, const H: usize>(v: &mut [V; N]) {
    let lanes = V::LANES;
    if H <= lanes {
        for x in v.iter_mut() {
            // SAFETY: caller's guarantee.
            *x = unsafe { in_vector(*x, H - 1, H / 2) };
        }
        return;
    }
    let group = H / lanes;
    let mut g = 0;
    while g < N {
        for a in 0..group / 2 {
            let b = g + group - 1 - a;
            // SAFETY: caller's guarantee.
            unsafe {
                let rb = v[b].xor_permute(lanes - 1);
                let (lo, hi) = (v[g + a].min(rb), v[g + a].max(rb));
                v[g + a] = lo;
                v[b] = hi.xor_permute(lanes - 1);
            }
        }
        g += group;
    }
}

/// The disperse stage of distance `J`: key `i` against key `i + J` where `i & J == 0`.
#[inline(always)]
unsafe fn disperse<V: KeyVector, const N: usize, const J: usize>(v: &mut [V; N]) {
    let lanes = V::LANES;
    if J >= lanes {
        let stride = J / lanes;
        for a in 0..N {
            if a & stride == 0 {
                let b = a + stride;
                // SAFETY: caller's guarantee.
                unsafe {
                    let (lo, hi) = (v[a].min(v[b]), v[a].max(v[b]));
                    v[a] = lo;
                    v[b] = hi;
                }
            }
        }
    } else {
        for x in v.iter_mut() {
            // SAFETY: caller's guarantee.
            *x = unsafe { in_vector(*x, J, J) };
        }
    }
}

/// One merge level of width `H` (a no-op where `H` exceeds the block): the flip, then the
/// disperse stages `H / 4, H / 8, ..., 1`.
#[inline(always)]
unsafe fn level<V: KeyVector, const N: usize, const H: usize>(v: &mut [V; N]) {
    if H > N * V::LANES {
        return;
    }
    // SAFETY: caller's guarantee (for every call); the `if`s fold at compile time.
    unsafe {
        flip::<V, N, H>(v);
        if H / 4 >= 64 {
            disperse::<V, N, 64>(v);
        }
        if H / 4 >= 32 {
            disperse::<V, N, 32>(v);
        }
        if H / 4 >= 16 {
            disperse::<V, N, 16>(v);
        }
        if H / 4 >= 8 {
            disperse::<V, N, 8>(v);
        }
        if H / 4 >= 4 {
            disperse::<V, N, 4>(v);
        }
        if H / 4 >= 2 {
            disperse::<V, N, 2>(v);
        }
        if H / 4 >= 1 {
            disperse::<V, N, 1>(v);
        }
    }
}

/// Sorts the `N * LANES <= 256` keys held in `v`.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn bitonic<V: KeyVector, const N: usize>(v: &mut [V; N]) {
    debug_assert!(N * V::LANES <= 256);
    // SAFETY: caller's guarantee.
    unsafe {
        level::<V, N, 2>(v);
        level::<V, N, 4>(v);
        level::<V, N, 8>(v);
        level::<V, N, 16>(v);
        level::<V, N, 32>(v);
        level::<V, N, 64>(v);
        level::<V, N, 128>(v);
        level::<V, N, 256>(v);
    }
}
