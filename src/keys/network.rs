//! Vectorised key sort, written once over [`KeyVector`] and instantiated per instruction set:
//! quicksort with vector partitioning down to blocks of at most `16 * LANES` keys, which a
//! bitonic network sorts in registers.
//!
//! Keys are sorted on their unsigned image (the caller encodes and decodes with
//! [`KeyMap`](super::key::KeyMap)).
//!
//! * **Base case.** A block is loaded into `N` vectors (`N` a power of two, at most 16),
//!   the tail padded with the largest key, and sorted by Batcher's bitonic sorter (Knuth,
//!   TAOCP vol. 3, 5.3.4) in its "flip/disperse" form, where every comparator puts the
//!   minimum at the lower index (the form of the reference write-up on GPU bitonic sort).
//!   Comparators between vectors are lane-wise min/max; comparators inside a vector are a
//!   lane permutation (`lane ^ m`) plus min/max and a blend.
//! * **Partition.** Each vector is split by one unsigned compare against the pivot into the
//!   keys below it and the rest, which are compressed to the two ends of the range (AVX-512
//!   `vpcompressd`/`vpcompressq` in a register, then a masked store of only the wanted
//!   lanes). Two vectors read ahead from the ends give the writes room, so the partition is
//!   in place and reads always come from the side with less room left (the scheme of Bramas,
//!   "A Novel Hybrid Quicksort Algorithm Vectorized using AVX-512 on Intel Skylake", 2017,
//!   also used by x86-simd-sort and vqsort).
//! * **Pivots** are the median of a sorted sample of one vector's worth of keys spread over
//!   the range. When no key is below the pivot, the keys equal to it are split off at once
//!   (so few distinct keys cost one pass per distinct key, not a quadratic run).
//! * **Worst cases.** Ranges are kept on an explicit stack (smaller side first), and a
//!   range that is still large after `2 * log2(n)` partitions goes to the radix sort, so
//!   adversarial inputs stay `O(n log n)` in time and `O(log n)` in stack.
//! * **Where it stands.** Measured against `radix` (`thresholds::KEYS32_RADIX_MIN_LEN`), this
//!   sort wins below about 1 200 `u32` or 8 192 `u64` keys and on few distinct keys up to
//!   about 2^16 (not routed by `auto`, which sees only the length); the bitonic blocks
//!   (about 2.3 ns per key for 256 keys: the 16 vectors of the largest block live on the
//!   stack between stages) and the partition are not tuned further yet.

use super::key::KeyMap;
use super::radix;

/// Lane-wise unsigned key operations the vectorised sort needs, one implementation per
/// instruction set and key width.
///
/// # Safety
///
/// The methods are `unsafe` because the x86 implementations execute instructions the CPU
/// may lack: callers must make sure the CPU supports the implementation's instruction set
/// (the backends only call them through a capability token that checked it). Pointers must
/// be valid for the lanes they touch; no alignment is needed.
pub(crate) trait KeyVector: Copy {
    /// The unsigned key.
    type Key: Copy + Ord + 'static;
    /// Keys per vector (a power of two).
    const LANES: usize;
    /// The largest key, used as padding.
    const MAX: Self::Key;

    /// Reads `LANES` keys.
    unsafe fn load(src: *const Self::Key) -> Self;
    /// Writes `LANES` keys.
    unsafe fn store(self, dst: *mut Self::Key);
    /// Reads the first `n < LANES` keys, the other lanes set to [`MAX`](Self::MAX).
    unsafe fn load_padded(src: *const Self::Key, n: usize) -> Self;
    /// Writes the first `n <= LANES` lanes.
    unsafe fn store_first(self, dst: *mut Self::Key, n: usize);
    /// Every lane `k`.
    unsafe fn splat(k: Self::Key) -> Self;
    /// Lane-wise unsigned minimum.
    unsafe fn min(self, other: Self) -> Self;
    /// Lane-wise unsigned maximum.
    unsafe fn max(self, other: Self) -> Self;
    /// Lane `l` gets lane `l ^ m` of `self` (`m < LANES`).
    unsafe fn xor_permute(self, m: usize) -> Self;
    /// Lane `l` from `hi` where `l & bit != 0`, else from `lo` (`bit` a power of two).
    unsafe fn blend_bit(lo: Self, hi: Self, bit: usize) -> Self;
    /// Writes the lanes below `pivot` to `left[..c]` and the others to
    /// `right_end[-(LANES - c)..]`, each group in lane order, and returns `c`.
    unsafe fn partition_store(
        self,
        pivot: Self,
        left: *mut Self::Key,
        right_end: *mut Self::Key,
    ) -> usize;
}

/// Largest block the bitonic network sorts: 16 vectors.
pub(crate) const fn block_max<V: KeyVector>() -> usize {
    16 * V::LANES
}

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

/// Sorts `N * LANES` keys held in `v` (bitonic, flip/disperse form).
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn bitonic<V: KeyVector, const N: usize>(v: &mut [V; N]) {
    let lanes = V::LANES;
    let total = N * lanes;
    let mut h = 2;
    while h <= total {
        // Flip: in groups of `h` keys, key `i` against key `h - 1 - i`.
        if h <= lanes {
            for x in v.iter_mut() {
                // SAFETY: caller's guarantee.
                *x = unsafe { in_vector(*x, h - 1, h / 2) };
            }
        } else {
            let group = h / lanes;
            for g in (0..N).step_by(group) {
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
            }
        }
        // Disperse: key `i` against key `i + j` for j = h/4, h/8, ..., 1.
        let mut j = h / 4;
        while j >= 1 {
            if j >= lanes {
                let stride = j / lanes;
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
                    *x = unsafe { in_vector(*x, j, j) };
                }
            }
            j /= 2;
        }
        h *= 2;
    }
}

/// Sorts a block of at most [`block_max`] keys in registers.
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
                *x = V::load(p.add(at));
            } else if at < n {
                *x = V::load_padded(p.add(at), n - at);
            }
        }
        bitonic::<V, N>(&mut v);
        for (i, x) in v.iter().enumerate() {
            let at = i * V::LANES;
            if at + V::LANES <= n {
                x.store(p.add(at));
            } else if at < n {
                x.store_first(p.add(at), n - at);
            }
        }
    }
}

/// Sorts at most [`block_max`] keys with the smallest network that holds them.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn sort_block<V: KeyVector>(keys: &mut [V::Key]) {
    let vectors = keys.len().div_ceil(V::LANES);
    // SAFETY: each arm's network holds `vectors` vectors; the caller guarantees the CPU.
    unsafe {
        match vectors {
            0 => {}
            1 => sort_block_n::<V, 1>(keys),
            2 => sort_block_n::<V, 2>(keys),
            3..=4 => sort_block_n::<V, 4>(keys),
            5..=8 => sort_block_n::<V, 8>(keys),
            _ => sort_block_n::<V, 16>(keys),
        }
    }
}

/// Partitions `keys` in place around `pivot`: returns `b` with every key of `keys[..b]` below
/// `pivot` and every key of `keys[b..]` at or above it.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn partition<V: KeyVector>(keys: &mut [V::Key], pivot: V::Key) -> usize {
    let lanes = V::LANES;
    let n = keys.len();
    let m = n - n % lanes;
    let p = keys.as_mut_ptr();
    let mut b = 0;
    if m >= 2 * lanes {
        // SAFETY: all reads and writes stay in `keys[..m]`: the two vectors read ahead keep
        // `LANES` free slots on the side each write goes to (see the module docs).
        unsafe {
            let pv = V::splat(pivot);
            let first = V::load(p);
            let last = V::load(p.add(m - lanes));
            let (mut l_read, mut r_read) = (lanes, m - lanes);
            let (mut l_write, mut r_write) = (0usize, m);
            while l_read < r_read {
                let v = if l_read - l_write <= r_write - r_read {
                    let v = V::load(p.add(l_read));
                    l_read += lanes;
                    v
                } else {
                    r_read -= lanes;
                    V::load(p.add(r_read))
                };
                let c = v.partition_store(pv, p.add(l_write), p.add(r_write));
                l_write += c;
                r_write -= lanes - c;
            }
            for v in [first, last] {
                let c = v.partition_store(pv, p.add(l_write), p.add(r_write));
                l_write += c;
                r_write -= lanes - c;
            }
            debug_assert_eq!(l_write, r_write);
            b = l_write;
        }
    } else {
        // Too short for the vector scheme: everything goes through the scalar tail loop.
        for i in 0..m {
            if keys[i] < pivot {
                keys.swap(i, b);
                b += 1;
            }
        }
    }
    // The keys after the last full vector: swap each one below the pivot into place.
    for i in m..n {
        if keys[i] < pivot {
            keys.swap(i, b);
            b += 1;
        }
    }
    b
}

/// The median of one vector's worth of keys spread evenly over `keys`.
///
/// # Safety
/// The CPU supports `V`'s instructions; `keys.len() > block_max::<V>()`.
#[inline(always)]
unsafe fn pick_pivot<V: KeyVector>(keys: &[V::Key]) -> V::Key {
    let n = keys.len();
    let mut sample = [V::MAX; 64];
    let s = &mut sample[..V::LANES];
    let step = n / V::LANES;
    for (i, x) in s.iter_mut().enumerate() {
        *x = keys[i * step + step / 2];
    }
    // SAFETY: caller's guarantee; the sample fits in one vector.
    unsafe { sort_block_n::<V, 1>(s) };
    s[V::LANES / 2]
}

/// What the quicksort needs of an unsigned key beyond the vector operations.
pub(crate) trait VecKey: Copy + Ord {
    /// Sorts encoded (unsigned) keys by radix: the way out for ranges whose pivots went bad.
    fn radix_sort(keys: &mut [Self]);
    /// The next larger key (`self` is not the maximum).
    fn succ(self) -> Self;
}

impl VecKey for u32 {
    fn radix_sort(keys: &mut [u32]) {
        radix::sort32(keys, KeyMap::Unsigned);
    }
    fn succ(self) -> Self {
        self + 1
    }
}

impl VecKey for u64 {
    fn radix_sort(keys: &mut [u64]) {
        radix::sort64(keys, KeyMap::Unsigned);
    }
    fn succ(self) -> Self {
        self + 1
    }
}

/// Sorts unsigned keys ascending: vectorised quicksort down to [`sort_block`].
///
/// Not recursive (an explicit stack of ranges), so that one `#[target_feature]` function
/// can inline all of it.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn quicksort<V: KeyVector>(keys: &mut [V::Key])
where
    V::Key: VecKey,
{
    let block = block_max::<V>();
    let n = keys.len();
    if n <= block {
        // SAFETY: caller's guarantee.
        unsafe { sort_block::<V>(keys) };
        return;
    }
    // Partition budget per range: 2 * log2(n) levels.
    let budget = 2 * (usize::BITS - n.leading_zeros()) as usize;
    // (start, end, depth); the smaller side is pushed last so it is taken first, which keeps
    // at most log2(n) entries on the stack.
    let mut stack: Vec<(usize, usize, usize)> = Vec::with_capacity(64);
    stack.push((0, n, 0));
    while let Some((start, end, depth)) = stack.pop() {
        let range = &mut keys[start..end];
        let len = range.len();
        if len <= block {
            // SAFETY: caller's guarantee.
            unsafe { sort_block::<V>(range) };
            continue;
        }
        if depth >= budget {
            V::Key::radix_sort(range);
            continue;
        }
        // SAFETY: caller's guarantee; `len > block`.
        let pivot = unsafe { pick_pivot::<V>(range) };
        // SAFETY: caller's guarantee.
        let mut mid = unsafe { partition::<V>(range, pivot) };
        let mut high = mid;
        if mid == 0 {
            // No key below the pivot: it is the minimum. Split off every key equal to it
            // (they are done) by partitioning on "below or equal".
            if pivot == V::MAX {
                continue; // every key is MAX
            }
            // SAFETY: caller's guarantee. Keys `< succ(pivot)` are exactly those equal to it.
            high = unsafe { partition_le::<V>(range, pivot) };
            mid = 0;
        }
        let left = (start, start + mid, depth + 1);
        let right = (start + high, end, depth + 1);
        if mid < len - high {
            stack.push(right);
            stack.push(left);
        } else {
            stack.push(left);
            stack.push(right);
        }
    }
}

/// Partitions so that every key of `keys[..b]` is at most `pivot` (`pivot < MAX`).
///
/// # Safety
/// As [`partition`].
#[inline(always)]
unsafe fn partition_le<V: KeyVector>(keys: &mut [V::Key], pivot: V::Key) -> usize
where
    V::Key: VecKey,
{
    // With integer keys, "at most p" is "below p + 1"; `pivot < MAX` so it does not wrap.
    // SAFETY: caller's guarantee.
    unsafe { partition::<V>(keys, pivot.succ()) }
}
