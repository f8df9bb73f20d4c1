//! The base case of the vectorised key sort: `N` vectors of `LANES` keys sorted in registers,
//! so that vector 0 ends with the smallest `LANES` keys in lane order, vector 1 the next, ...
//!
//! Two phases, the layout of x86-simd-sort's `sort_n` (Intel; learned from, written anew):
//!
//! 1. **Columns.** A sorting network over the `N` registers, lane-wise min/max only, sorts
//!    each lane's column of `N` keys (no lane moves).
//! 2. **Lane merges.** For `S = 2, 4, ..., LANES`: each group of `S` lanes holds two sorted
//!    sequences (its two halves of `S / 2` lanes, each read row by row), merged into one
//!    sequence of `N * S` keys read row by row inside the group. It is Batcher's bitonic
//!    merge (Knuth, TAOCP vol. 3, 5.3.4) with the second sequence read backwards: the first
//!    `log2(N)` stages compare register `i` with the mirror register of its block (block
//!    sizes `N, N / 2, ..., 2`), whose lanes are reversed inside each group of `S` first;
//!    the last `log2(S)` stages are inside each vector (a lane reversal, then swaps of
//!    `S / 4, ..., 1` lanes).
//!
//! Lane permutations are what cost on Intel cores, which have one 512-bit shuffle port:
//! with 16 vectors of 16 lanes this takes `4 * 2 + (1 + 2 + 3 + 4) = 18` permutations per
//! vector, where Batcher's sorter over the keys in row order took 30 (the lower 4 of the 8
//! index bits are lane bits and every merge level touches them all). On the Intel Xeon
//! host, blocks of 256 random `u32` keys took 1.07-1.15 ns per key against 1.44-1.53 for
//! that sorter and 1.00-1.01 for x86-simd-sort's `sort_n` (AVX-512, one thread;
//! BENCHMARKS.md, "CPU key sort, one thread").
//!
//! Every stage is a loop over constant bounds in an `#[inline(always)]` function with the
//! sizes as const generics, so that after inlining the permutations and blend masks are
//! constants and the vectors stay in registers (with runtime sizes LLVM kept the network
//! rolled, the vectors on the stack).

use super::network::KeyVector;

/// Expands to one call `$cx(a, b)` per comparator, in order, so that every register index
/// is a literal after inlining (a loop over a table of pairs stayed a loop: the registers
/// went to the stack).
macro_rules! network {
    ($cx:ident; $(($a:literal, $b:literal))*) => {
        {
            $( $cx($a, $b); )*
        }
    };
}

/// Optimal sorting networks (fewest comparators known) for 2, 4, 8 and 16 inputs, from Bert
/// Dobbelaere's list, <https://bertdobbelaere.github.io/sorting_networks.html>; 16 inputs:
/// 60 comparators in 10 layers (Batcher's bitonic sorter takes 80). One layer per line.
#[inline(always)]
fn column_network<const N: usize>(mut cx: impl FnMut(usize, usize)) {
    match N {
        2 => network!(cx; (0, 1)),
        4 => network!(cx; (0, 2) (1, 3) (0, 1) (2, 3) (1, 2)),
        8 => network!(cx;
            (0, 2) (1, 3) (4, 6) (5, 7)
            (0, 4) (1, 5) (2, 6) (3, 7)
            (0, 1) (2, 3) (4, 5) (6, 7)
            (2, 4) (3, 5)
            (1, 4) (3, 6)
            (1, 2) (3, 4) (5, 6)
        ),
        16 => network!(cx;
            (0, 13) (1, 12) (2, 15) (3, 14) (4, 8) (5, 6) (7, 11) (9, 10)
            (0, 5) (1, 7) (2, 9) (3, 4) (6, 13) (8, 14) (10, 15) (11, 12)
            (0, 1) (2, 3) (4, 5) (6, 8) (7, 9) (10, 11) (12, 13) (14, 15)
            (0, 2) (1, 3) (4, 10) (5, 11) (6, 7) (8, 9) (12, 14) (13, 15)
            (1, 2) (3, 12) (4, 6) (5, 7) (8, 10) (9, 11) (13, 14)
            (1, 4) (2, 6) (5, 8) (7, 10) (9, 13) (11, 14)
            (2, 4) (3, 6) (9, 12) (11, 13)
            (3, 5) (6, 8) (7, 9) (10, 12)
            (3, 4) (5, 6) (7, 8) (9, 10) (11, 12)
            (6, 7) (8, 9)
        ),
        _ => {}
    }
}

/// Lane-wise compare-exchange of registers `a < b`: the minimum to `a`.
#[inline(always)]
unsafe fn coex<V: KeyVector, const N: usize>(v: &mut [V; N], a: usize, b: usize) {
    // SAFETY: the caller guarantees the CPU supports V's instructions.
    unsafe {
        let (lo, hi) = (v[a].min(v[b]), v[a].max(v[b]));
        v[a] = lo;
        v[b] = hi;
    }
}

/// Phase 1: sorts every lane's column down the `N` registers.
#[inline(always)]
unsafe fn columns<V: KeyVector, const N: usize>(v: &mut [V; N]) {
    // SAFETY: the caller guarantees the CPU; the network's indices are below N.
    column_network::<N>(|a, b| unsafe { coex(v, a, b) });
}

/// One in-vector stage: lanes `l` and `l ^ m` compared, the minimum to the lane where `bit`
/// is clear.
#[inline(always)]
unsafe fn in_vector<V: KeyVector>(v: V, m: usize, bit: usize) -> V {
    // SAFETY: the caller guarantees the CPU supports V's instructions.
    unsafe {
        let p = v.xor_permute(m);
        V::blend_bit(v.min(p), v.max(p), bit)
    }
}

/// The cross-register stages of merge level `S` on blocks of `C` registers: the upper half
/// of each block reversed inside groups of `S` lanes, then register `i` against `C - 1 - i`.
#[inline(always)]
unsafe fn fold<V: KeyVector, const N: usize, const S: usize, const C: usize>(v: &mut [V; N]) {
    if C > N || C < 2 {
        return;
    }
    let mut base = 0;
    while base < N {
        for i in 0..C / 2 {
            let (a, b) = (base + i, base + C - 1 - i);
            // SAFETY: the caller guarantees the CPU; `a < b < N`.
            unsafe {
                v[b] = v[b].xor_permute(S - 1);
                coex(v, a, b);
            }
        }
        base += C;
    }
}

/// Phase 2, level `S` (a no-op above `LANES`): merges the sorted halves of every group of `S`
/// lanes.
#[inline(always)]
unsafe fn merge_lanes<V: KeyVector, const N: usize, const S: usize>(v: &mut [V; N]) {
    if S > V::LANES {
        return;
    }
    // SAFETY: the caller guarantees the CPU; the `if`s below fold at compile time.
    unsafe {
        fold::<V, N, S, 16>(v);
        fold::<V, N, S, 8>(v);
        fold::<V, N, S, 4>(v);
        fold::<V, N, S, 2>(v);
    }
    for x in v.iter_mut() {
        // SAFETY: as above.
        unsafe {
            *x = in_vector(*x, S - 1, S / 2);
            if S >= 4 * 4 {
                *x = in_vector(*x, 4, 4);
            }
            if S >= 2 * 4 {
                *x = in_vector(*x, 2, 2);
            }
            if S >= 4 {
                *x = in_vector(*x, 1, 1);
            }
        }
    }
}

/// Sorts the `N * LANES` keys held in `v` (`N` and `LANES` powers of two up to 16).
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn bitonic<V: KeyVector, const N: usize>(v: &mut [V; N]) {
    debug_assert!(N.is_power_of_two() && N <= 16 && V::LANES <= 16);
    // SAFETY: caller's guarantee.
    unsafe {
        columns::<V, N>(v);
        merge_lanes::<V, N, 2>(v);
        merge_lanes::<V, N, 4>(v);
        merge_lanes::<V, N, 8>(v);
        merge_lanes::<V, N, 16>(v);
    }
}

/// Sorts a block of at most [`block_max`](super::network::block_max) keys in registers
/// (float bits by their image, [`KeyVector::flip`], taken after the loads and undone before
/// the stores).
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn sort_block_n<V: KeyVector, const N: usize>(keys: &mut [V::Key]) {
    let n = keys.len();
    debug_assert!(n <= N * V::LANES);
    let p = keys.as_mut_ptr();
    // SAFETY: vector `i` covers keys `i * LANES..`; full vectors read and write inside
    // `keys`, the partial one only its first `n - i * LANES` lanes; the CPU supports `V`.
    unsafe {
        let mut v = [V::splat(V::MAX); N];
        for (i, x) in v.iter_mut().enumerate() {
            let at = i * V::LANES;
            if at + V::LANES <= n {
                *x = V::load(p.add(at)).flip();
            } else if at < n {
                // The padding, `MAX`, is its own image.
                *x = V::load_padded(p.add(at), n - at).flip();
            }
        }
        bitonic::<V, N>(&mut v);
        for (i, x) in v.iter().enumerate() {
            let at = i * V::LANES;
            if at + V::LANES <= n {
                x.flip().store(p.add(at));
            } else if at < n {
                x.flip().store_first(p.add(at), n - at);
            }
        }
    }
}

/// Sorts at most [`block_max`](super::network::block_max) keys with the smallest network
/// that holds them.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn sort_block_in_registers<V: KeyVector>(keys: &mut [V::Key]) {
    let vectors = keys.len().div_ceil(V::LANES);
    // SAFETY: each arm's network holds `vectors` vectors; the caller guarantees the CPU.
    unsafe {
        match vectors {
            0 => {}
            1 => sort_block_n::<V, 1>(keys),
            2 => sort_block_n::<V, 2>(keys),
            3..=4 => sort_block_n::<V, 4>(keys),
            5..=8 => sort_block_n::<V, 8>(keys),
            // Only reached where `BLOCK_VECTORS` is 16 (the sample sort of `pick_pivot` is at
            // most 16 keys, within any block).
            _ => sort_block_n::<V, 16>(keys),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 0/1 input (the 0-1 principle, Knuth 5.3.4 exercise 11) comes out sorted.
    #[test]
    fn column_networks_sort_every_zero_one_input() {
        fn check<const N: usize>() {
            for bits in 0u32..1 << N {
                let mut x: Vec<u32> = (0..N).map(|i| bits >> i & 1).collect();
                column_network::<N>(|a, b| {
                    assert!(a < b && b < N);
                    if x[a] > x[b] {
                        x.swap(a, b);
                    }
                });
                assert!(x.windows(2).all(|w| w[0] <= w[1]), "n={N} input {bits:b}");
            }
        }
        check::<2>();
        check::<4>();
        check::<8>();
        check::<16>();
    }
}
