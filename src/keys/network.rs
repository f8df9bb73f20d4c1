//! Vectorised key sort, written once over [`KeyVector`] and instantiated per instruction set:
//! quicksort with vector partitioning down to blocks of at most `16 * LANES` keys, which a
//! bitonic network sorts in registers.
//!
//! Keys are sorted on their unsigned image (the caller encodes and decodes with
//! [`KeyMap`](super::key::KeyMap)), or, for signed keys on x86-64, as they are by vectors
//! that compare signed, and for float keys on x86-64 (AVX2 and AVX-512) as they are by
//! vectors that compare a signed image of their bits ([`KeyVector::IMAGE`]).
//!
//! * **Base case.** A block is loaded into `N` vectors (`N` a power of two, at most
//!   [`KeyVector::BLOCK_VECTORS`]), the tail padded with the largest key, and sorted in
//!   registers: columns across the registers by min/max, then bitonic merges of lane groups
//!   ([`bitonic`](super::bitonic)).
//! * **Partition.** Each vector is split by one compare against the pivot into the
//!   keys below it and the rest, which are compressed to the two ends of the range (AVX-512
//!   `vpcompressd` in a register, then a masked store of only the wanted lanes; elsewhere a
//!   permutation from a table and two whole-vector stores, see
//!   [`KeyVector::partition_store`]). One batch of vectors (four, or eight in ranges of 32
//!   vectors and more) read ahead from each end gives the writes room, so the partition is
//!   in place, and each next batch comes from the side with less room left (the scheme of
//!   Bramas, "A Novel Hybrid Quicksort Algorithm Vectorized using AVX-512 on Intel Skylake",
//!   2017, also used by x86-simd-sort and vqsort), chosen by a branch, not a select.
//! * **Pivots** are the median of a sorted sample of 16 keys spread over the range. When
//!   no key is below the pivot, the keys equal to it are split off at once (so few
//!   distinct keys cost one pass per distinct key, not a quadratic run).
//! * **Worst cases.** Ranges are kept on an explicit stack (smaller side first), and a
//!   range that is still large after `2 * log2(n)` partitions goes to the radix sort, so
//!   adversarial inputs stay `O(n log n)` in time and `O(log n)` in stack.
//! * **Threads.** On several rayon threads (the SIMD backends' own entry points) the ranges
//!   of at least [`PARALLEL_SPLIT_MIN_LEN`] keys are split by one partition each and their
//!   two sides sorted by `rayon::join` ([`Steps`]); the first partitions, while fewer
//!   ranges than threads are open, run in chunks on several threads ([`split_on_threads`]).
//!   One thread sorts as above.
//! * **Where it stands.** One thread, random keys, on the Intel Xeon host (BENCHMARKS.md,
//!   "CPU key sort, one thread"): `avx512` 0.93-1.75x numpy's `np.sort` (x86-simd-sort) at
//!   2^10-2^24, `u32` 1.00 / 0.97 at 2^20 / 2^24. Where time goes at 2^24: the partition
//!   loop's loads, then the 256-key blocks (a fifth); the store is not it: compressing
//!   straight to memory, as x86-simd-sort does, tied for `u32` and lost for `u64` there (and
//!   is microcoded on AMD Zen 4). Float keys take no key-map pass with AVX2 or AVX-512. Input
//!   order, one thread: sorted halves and sawtooth take 0.7-0.96x random keys' time at 2^20
//!   / 2^24 on the Xeon, ascending 0.1x, sorted input with 1% of the keys out of place
//!   0.2-0.4x (only those are sorted, `nearly`); on two threads sorted halves, organ pipes,
//!   interleaved halves and sawtooth take 0.5-1.2x. `auto` sends slices here wherever the
//!   once-per-machine measurement finds them faster than radix (`backend::calibration`);
//!   the `wide` instantiation (`portable`) is slower than `radix` on x86-64.

use rayon::prelude::*;

use super::key::KeyMap;
use super::radix;
use super::sampling::{run_end, sample_is_monotonic, sample_position};

/// Lane-wise key operations the vectorised sort needs, one implementation per
/// instruction set and key width.
///
/// # Safety
///
/// The methods are `unsafe` because the x86 implementations execute instructions the CPU
/// may lack: callers must make sure the CPU supports the implementation's instruction set
/// (the backends only call them through a capability token that checked it). Pointers must
/// be valid for the lanes they touch; no alignment is needed.
pub(crate) trait KeyVector: Copy {
    /// The key: unsigned, or signed for the vectors that compare signed.
    type Key: Copy + Ord + 'static;
    /// Keys per vector (a power of two).
    const LANES: usize;
    /// The largest key, used as padding.
    const MAX: Self::Key;
    /// Vectors in the largest block, 8 or 16: measured per implementation. AVX2 `u32` and
    /// `u64` take 16 although they spill some of AVX2's 16 registers (16 beat 8: 357 -> 376
    /// M keys/s at 2^10 for `u32`, AMD EPYC; 32 lost: 376 -> 279). AVX-512 with 32 vectors
    /// (512 `u32` / 256 `u64` keys, x86-simd-sort's blocks) gained nothing on the Intel Xeon
    /// host: full sort, one thread, 2^16 / 2^20 keys, `u32` 4.50 / 4.37 ns per key against
    /// 4.45 / 4.39 with 16, `u64` 7.89 / 7.71 against 7.63 / 7.55 (BENCHMARKS.md, "CPU key
    /// sort, one thread").
    const BLOCK_VECTORS: usize;

    /// Whether the keys in memory are float bits (read as signed integers) that the vectors
    /// compare by their image under [`flip`](Self::flip): the total order of `f32::total_cmp`
    /// as signed integers. The block sort flips after its loads and before its stores, the
    /// partition compares the image and moves the bits, so floats take no pass of a key map.
    const IMAGE: bool = false;

    /// The image of float bits whose signed order is the total order: the bits other than
    /// the sign flipped in negative keys, `x ^ ((x >> (W - 1)) as unsigned >> 1)`. Its own
    /// inverse. The identity where [`IMAGE`](Self::IMAGE) is false.
    #[inline(always)]
    unsafe fn flip(self) -> Self {
        self
    }

    /// [`flip`](Self::flip) of one key.
    #[inline(always)]
    fn flip_key(k: Self::Key) -> Self::Key {
        k
    }

    /// `self` in a form whose signed order against `pivot` (every lane the same image) is
    /// that of the keys' images: [`flip`](Self::flip) by default. The 32-bit
    /// [`IMAGE`](Self::IMAGE) vectors take one XOR instead, with the pivot's own flip mask
    /// (its sign smeared and shifted right by one; computed once per partition, outside the
    /// loop): below a pivot of sign bit 0 fall all keys with the sign bit set and the others
    /// by their bits, which `x ^ 0` keeps; below one with the sign bit set only keys with it
    /// set, in the order of their images, `x ^ (MAX of the signed type)`, where keys without
    /// it land above. One thread of the Xeon host, ratio to numpy at 2^16-2^24, flip -> XOR
    /// (seven rounds): `f32` with AVX-512 1.09-1.17 -> 1.14-1.22, with AVX2 1.21-1.34 ->
    /// 1.25-1.42 (three rounds); `f64` with AVX-512 lost, 0.94 -> 0.76-0.86 at 2^16-2^20,
    /// so the 64-bit vectors flip.
    #[inline(always)]
    unsafe fn against_pivot(self, pivot: Self) -> Self {
        let _ = pivot;
        // SAFETY: caller's guarantee.
        unsafe { self.flip() }
    }

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
    /// Lane-wise minimum in the key's order.
    unsafe fn min(self, other: Self) -> Self;
    /// Lane-wise maximum in the key's order.
    unsafe fn max(self, other: Self) -> Self;
    /// Lane `l` gets lane `l ^ m` of `self` (`m < LANES`).
    unsafe fn xor_permute(self, m: usize) -> Self;
    /// Lane `l` from `hi` where `l & bit != 0`, else from `lo` (`bit` a power of two).
    unsafe fn blend_bit(lo: Self, hi: Self, bit: usize) -> Self;
    /// Sorts at most [`block_max`] keys: `bitonic::sort_block_in_registers` compiled for
    /// this implementation's instruction set as a function of its own (inlined at each
    /// call site, the networks' temporaries added up to megabytes of stack in debug
    /// builds).
    unsafe fn sort_block(keys: &mut [Self::Key]);
    /// Splits `self` around `pivot` and returns `c`, the number of lanes below it (for
    /// [`IMAGE`](Self::IMAGE) vectors: whose image is below `pivot`, itself an image; the
    /// keys are stored as they are).
    ///
    /// Let `P` be the lanes of `self` reordered: the `c` lanes below `pivot` first, then the
    /// others, each group in lane order. `P[..c]` must end in `left[..c]` and `P[c..]` in
    /// `right_end[-(LANES - c)..]`. Implementations without masked or compressing stores may
    /// write the whole of `P` to `left[..LANES]` and to `right_end[-LANES..]`, so both ranges
    /// must be writable and hold no key the caller still needs; they may be the same range
    /// (`left + LANES == right_end`), where both writes leave `P`, which is right.
    unsafe fn partition_store(
        self,
        pivot: Self,
        left: *mut Self::Key,
        right_end: *mut Self::Key,
    ) -> usize;

    /// `P` of [`partition_store`](Self::partition_store) in registers: `(low, high, c)` with
    /// `P[..c]` in the first `c` lanes of `low` and `P[c..]` in the first `LANES - c` lanes
    /// of `high` (their other lanes unspecified). By default through memory, which costs a
    /// store-forwarding stall; implementations with a register compress do better.
    #[inline(always)]
    unsafe fn split(self, pivot: Self) -> (Self, Self, usize) {
        const { assert!(Self::LANES <= MAX_LANES) };
        let mut room = [Self::MAX; 3 * MAX_LANES];
        let at = room.as_mut_ptr();
        // SAFETY: `partition_store` writes `room[..LANES]` and `room[LANES..2 * LANES]`; the
        // vector read from `room[LANES + c..]` (`c <= LANES`) ends inside `room`.
        unsafe {
            let c = self.partition_store(pivot, at, at.add(2 * Self::LANES));
            (Self::load(at), Self::load(at.add(Self::LANES + c)), c)
        }
    }
}

/// Largest block the bitonic network sorts: [`KeyVector::BLOCK_VECTORS`] vectors.
pub(crate) const fn block_max<V: KeyVector>() -> usize {
    V::BLOCK_VECTORS * V::LANES
}

/// Sorts at most [`block_max`] keys: [`KeyVector::sort_block`].
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn sort_block<V: KeyVector>(keys: &mut [V::Key]) {
    // SAFETY: caller's guarantee.
    unsafe { V::sort_block(keys) }
}

/// Vectors the partition reads from one side at a time once a range holds at least
/// `2 * PARTITION_UNROLL` vectors. Choosing the side by a select (`cmov`) cost about 18
/// cycles a batch, the loads waiting for the previous batch's counts: one pass over 2^16
/// random `u32` keys, AVX2 on the AMD EPYC build machine, took 0.71 / 0.39 / 0.25 / 0.18 ns
/// per key with 1 / 2 / 4 / 8 vectors a batch; with a branch ([`keep_branch`]) 0.15 at 4 and
/// 8, x86-simd-sort (which branches) 0.16 at 4.
const PARTITION_UNROLL: usize = 4;

/// Vectors a batch holds in ranges of at least [`WIDE_FROM`] vectors: twice the read-ahead
/// costs more than it saves in short ranges (the last levels above the blocks).
const PARTITION_UNROLL_WIDE: usize = 8;

/// Range length, in vectors, from which batches are [`PARTITION_UNROLL_WIDE`] vectors.
const WIDE_FROM: usize = 32;

/// Marks one arm of the partition's side choice with an empty `asm!` (a different one per
/// arm), so that LLVM cannot merge the two arms' loads into one load from a selected
/// address: with a select (`cmov`) every batch's loads wait for the previous batch's
/// compares and counts, about 18 cycles a batch (see [`PARTITION_UNROLL`]).
#[inline(always)]
fn keep_branch<const LEFT: bool>() {
    #[cfg(not(miri))]
    // SAFETY: the template is only a comment; it emits no instruction and touches no
    // memory, stack or flags.
    unsafe {
        if LEFT {
            std::arch::asm!(
                "/* partition: left */",
                options(nomem, nostack, preserves_flags)
            );
        } else {
            std::arch::asm!(
                "/* partition: right */",
                options(nomem, nostack, preserves_flags)
            );
        }
    }
}

/// Asks for the cache lines of `bytes` bytes from `p` to be brought into L1: a hint, no
/// access. The partition prefetches the batch after the one it just read on that side, as
/// x86-simd-sort does (its pass was 1.2-1.4x faster than ours on the Intel Xeon host with the
/// same stores).
#[inline(always)]
fn prefetch<T>(p: *const T, bytes: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let mut at = 0;
        while at < bytes {
            // SAFETY: a prefetch only hints the cache: it reads no memory architecturally
            // and cannot fault, whatever the address (`wrapping_add` keeps the pointer
            // arithmetic defined past the slice's ends).
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    p.cast::<i8>().wrapping_add(at),
                )
            };
            at += 64;
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = (p, bytes);
}

/// Partitions `keys` in place around `pivot`: returns `b` with every key of `keys[..b]` below
/// `pivot` and every key of `keys[b..]` at or above it (for [`KeyVector::IMAGE`] vectors,
/// `pivot` is an image and keys compare by theirs).
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn partition<V: KeyVector>(keys: &mut [V::Key], pivot: V::Key) -> usize {
    let lanes = V::LANES;
    let n = keys.len();
    // The vectors start at a vector-size boundary (so do their reads from both ends): the keys
    // before it and after the last whole vector join their sides afterwards. Unaligned, every read
    // and most writes span two cache lines; on the AMD EPYC build machine one pass over 2^20 /
    // 2^24 random `u32` keys took 0.175 / 1.48 ns per key at 16 bytes past a 64-byte line, 0.132 /
    // 0.71 on it.
    let line = lanes * std::mem::size_of::<V::Key>();
    let head = (line - keys.as_ptr() as usize % line) % line / std::mem::size_of::<V::Key>();
    let head = head.min(n);
    let m = (n - head) - (n - head) % lanes;
    // Ranges longer than a block (at least 8 vectors) always take the vector scheme; shorter
    // ones (not reached from `quicksort`) would go through the scalar loop below.
    let vectors = m >= 2 * PARTITION_UNROLL * lanes;
    let body = &mut keys[head..head + m];
    let mut b = if m >= WIDE_FROM * lanes {
        // SAFETY: caller's guarantee; `m` is a multiple of `LANES` and large enough.
        head + unsafe { partition_vectors::<V, PARTITION_UNROLL_WIDE>(body, pivot) }
    } else if vectors {
        // SAFETY: as above.
        head + unsafe { partition_vectors::<V, PARTITION_UNROLL>(body, pivot) }
    } else {
        0
    };
    if vectors {
        // SAFETY: caller's guarantee; `keys[head..head + m]` is split at `b`, `head` and
        // `n - head - m` are below `LANES`.
        unsafe {
            b = place_head::<V>(keys, head, b, pivot);
            return place_tail::<V>(keys, head + m, b, pivot);
        }
    }
    scalar_tail::<V>(keys, 0, 0, pivot)
}

/// The most lanes a [`KeyVector`] has (16 `u32` keys of AVX-512): the room of
/// [`KeyVector::split`]'s default.
const MAX_LANES: usize = 16;

/// Moves the `head < LANES` keys before the split body `keys[head..end]` (below `pivot`
/// before `b`) to their side and returns the new split: the head's keys at or above the
/// pivot trade places with as many of the body's last keys below it, one vector each way.
/// A loop with a branch per key mispredicted half the time on random keys: the head and
/// tail loops took about a tenth of the quicksort's partition time (perf, Xeon build
/// machine, one thread, 2^24 `u32` keys). With the split, one thread of the Xeon host,
/// `avx512` / numpy `np.sort` for `u32` at 2^18 / 2^20 / 2^24: 0.84 / 0.87 / 0.87 -> 0.98 /
/// 1.00 / 0.97 (BENCHMARKS.md, "CPU key sort, one thread").
///
/// # Safety
/// The CPU supports `V`'s instructions; `head < LANES`; `keys[head..]` holds the split body
/// (keys below `pivot` in `keys[head..b]`) followed by fewer than `LANES` keys.
#[inline(always)]
unsafe fn place_head<V: KeyVector>(
    keys: &mut [V::Key],
    head: usize,
    b: usize,
    pivot: V::Key,
) -> usize {
    if head == 0 {
        return b;
    }
    let p = keys.as_mut_ptr();
    // SAFETY: `keys[..head]` is read (`head < LANES`). `keys[b - above..b]` lies in
    // the body's low run (checked), apart from the head, so the three stores do not overlap.
    unsafe {
        let (lows, highs, below) = V::load_padded(p, head).split(V::splat(pivot));
        let above = head - below;
        if above == 0 {
            return b;
        }
        if b - head < above {
            // Fewer keys below the pivot in the body than the head has above it.
            return scalar_head::<V>(keys, head, b, pivot);
        }
        let low = V::load_padded(p.add(b - above), above);
        lows.store_first(p, below);
        low.store_first(p.add(below), above);
        highs.store_first(p.add(b - above), above);
        b - above
    }
}

/// [`place_head`] for the fewer than `LANES` keys after the split body `keys[..end]`: the
/// tail's keys below the pivot trade places with as many of the body's first keys at or
/// above it.
///
/// # Safety
/// The CPU supports `V`'s instructions; `keys.len() - end < LANES`; below `pivot` are
/// exactly the keys of `keys[..b]` (`b <= end`).
#[inline(always)]
unsafe fn place_tail<V: KeyVector>(
    keys: &mut [V::Key],
    end: usize,
    b: usize,
    pivot: V::Key,
) -> usize {
    let tail = keys.len() - end;
    if tail == 0 {
        return b;
    }
    let p = keys.as_mut_ptr();
    // SAFETY: as in `place_head`: `keys[end..]` is read, `keys[b..b + below]` lies in the
    // body's high run (checked), apart from the tail.
    unsafe {
        let (lows, highs, below) = V::load_padded(p.add(end), tail).split(V::splat(pivot));
        if below == 0 {
            return b;
        }
        if end - b < below {
            return scalar_tail::<V>(keys, end, b, pivot);
        }
        let high = V::load_padded(p.add(b), below);
        lows.store_first(p.add(b), below);
        high.store_first(p.add(end), below);
        highs.store_first(p.add(end + below), tail - below);
        b + below
    }
}

/// The scalar [`place_head`]: each head key, last first, joins the low run; one at or above
/// the pivot swaps with the run's last key.
fn scalar_head<V: KeyVector>(
    keys: &mut [V::Key],
    head: usize,
    mut b: usize,
    pivot: V::Key,
) -> usize {
    let mut low = head;
    while low > 0 {
        low -= 1;
        if V::flip_key(keys[low]) >= pivot {
            b -= 1;
            keys.swap(low, b);
        }
    }
    b
}

/// Swaps each key of `keys[from..]` below the pivot to the end of the low run `keys[..b]`
/// (`b <= from`; every key of `keys[b..from]` at or above the pivot), and returns the run's
/// new end.
fn scalar_tail<V: KeyVector>(
    keys: &mut [V::Key],
    from: usize,
    mut b: usize,
    pivot: V::Key,
) -> usize {
    for i in from..keys.len() {
        if V::flip_key(keys[i]) < pivot {
            keys.swap(i, b);
            b += 1;
        }
    }
    b
}

/// The vector part of [`partition`]: `keys.len()` is a multiple of `LANES` and at least
/// `2 * U` vectors. `U` vectors are read ahead from each end, then `U` at a time from the
/// side with less room, then one at a time, then the read-ahead ones are written.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn partition_vectors<V: KeyVector, const U: usize>(
    keys: &mut [V::Key],
    pivot: V::Key,
) -> usize {
    let lanes = V::LANES;
    let step = U * lanes;
    let m = keys.len();
    debug_assert!(m % lanes == 0 && m >= 2 * step);
    let p = keys.as_mut_ptr();
    // SAFETY: all reads and writes stay in `keys[..m]`. The free slots (read, not yet
    // written back) are `l_write..l_read` and `r_read..r_write`, `2 * step` in all before
    // each read. A read takes the side with less room (at most `step`), so afterwards both
    // sides have at least `step` free; each of the `U` (or 1) writes that follow takes
    // `LANES` slots from the two sides together, so every write still finds `LANES` free
    // slots on each side: `keys[l_write..][..LANES]` and `keys[..r_write][r_write - LANES..]`
    // hold no key still needed, which is what `partition_store` may overwrite. For the
    // read-ahead vectors the free slots are one contiguous run of `2 * step` keys, shrinking
    // by `LANES` per write: the last write's two ranges coincide, as its contract allows.
    unsafe {
        let pv = V::splat(pivot);
        let mut ahead_left = [pv; U];
        let mut ahead_right = [pv; U];
        for i in 0..U {
            ahead_left[i] = V::load(p.add(i * lanes));
            ahead_right[i] = V::load(p.add(m - step + i * lanes));
        }
        let (mut l_read, mut r_read) = (step, m - step);
        let batch_bytes = step * std::mem::size_of::<V::Key>();
        let (mut l_write, mut r_write) = (0usize, m);
        let store = |v: V, l_write: &mut usize, r_write: &mut usize| {
            let c = v.partition_store(pv, p.add(*l_write), p.add(*r_write));
            *l_write += c;
            *r_write -= lanes - c;
        };
        while r_read - l_read >= step {
            // A branch, not a select: predicted (the sides mostly alternate), it lets the
            // next loads start before this batch's counts are known.
            let mut batch = [pv; U];
            if l_read - l_write <= r_write - r_read {
                keep_branch::<true>();
                for (i, v) in batch.iter_mut().enumerate() {
                    *v = V::load(p.add(l_read + i * lanes));
                }
                l_read += step;
                prefetch(p.wrapping_add(l_read), batch_bytes);
            } else {
                keep_branch::<false>();
                r_read -= step;
                for (i, v) in batch.iter_mut().enumerate() {
                    *v = V::load(p.add(r_read + i * lanes));
                }
                prefetch(p.wrapping_sub(step).wrapping_add(r_read), batch_bytes);
            }
            for v in batch {
                store(v, &mut l_write, &mut r_write);
            }
        }
        while l_read < r_read {
            let v = if l_read - l_write <= r_write - r_read {
                l_read += lanes;
                V::load(p.add(l_read - lanes))
            } else {
                r_read -= lanes;
                V::load(p.add(r_read))
            };
            store(v, &mut l_write, &mut r_write);
        }
        for v in ahead_left.into_iter().chain(ahead_right) {
            store(v, &mut l_write, &mut r_write);
        }
        debug_assert_eq!(l_write, r_write);
        l_write
    }
}

/// Keys sampled for each pivot: one AVX-512 vector of `u32`, two of `u64`, two or four AVX2
/// vectors. A narrower sample (the 4 keys of one AVX2 `u64` vector) gives pivots far from
/// the median and more partition passes.
pub(crate) const PIVOT_SAMPLE: usize = 16;

/// The median of [`PIVOT_SAMPLE`] keys spread over `keys` ([`sample_position`]; their
/// image, for [`KeyVector::IMAGE`] vectors).
///
/// # Safety
/// The CPU supports `V`'s instructions; `keys.len() > block_max::<V>()`.
#[inline(always)]
pub(crate) unsafe fn pick_pivot<V: KeyVector>(keys: &[V::Key]) -> V::Key {
    let n = keys.len();
    let mut sample = [V::MAX; PIVOT_SAMPLE];
    for (i, x) in sample.iter_mut().enumerate() {
        *x = keys[sample_position(n, PIVOT_SAMPLE, i)];
    }
    // SAFETY: caller's guarantee; the sample is no larger than a block (16 vectors).
    unsafe { sort_block::<V>(&mut sample) };
    V::flip_key(sample[PIVOT_SAMPLE / 2])
}

/// What the quicksort needs of an unsigned key beyond the vector operations.
pub(crate) trait VecKey: Copy + Ord + Send + Sync {
    /// Sorts encoded (unsigned) keys by radix: the way out for ranges whose pivots went bad.
    fn radix_sort(keys: &mut [Self]);
    /// The next larger key (`self` is not the maximum).
    fn succ(self) -> Self;
    /// [`radix::sort32_if_monotonic`] (or its 64-bit twin) for these keys: unsigned, or
    /// signed for the vectors that compare signed, float bits as signed integers where
    /// `floats`.
    fn sort_if_monotonic(keys: &mut [Self], floats: bool) -> bool;
    /// Sorts float bits (as signed integers of their width) in total order by radix: the
    /// way out for [`KeyVector::IMAGE`] vectors.
    fn radix_sort_floats(_keys: &mut [Self]) {
        unreachable!("only signed keys hold float bits")
    }
}

impl VecKey for u32 {
    fn sort_if_monotonic(keys: &mut [u32], _floats: bool) -> bool {
        radix::sort32_if_monotonic(keys, KeyMap::Unsigned)
    }
    fn radix_sort(keys: &mut [u32]) {
        radix::sort32(keys, KeyMap::Unsigned);
    }
    fn succ(self) -> Self {
        self + 1
    }
}

impl VecKey for u64 {
    fn sort_if_monotonic(keys: &mut [u64], _floats: bool) -> bool {
        radix::sort64_if_monotonic(keys, KeyMap::Unsigned)
    }
    fn radix_sort(keys: &mut [u64]) {
        radix::sort64(keys, KeyMap::Unsigned);
    }
    fn succ(self) -> Self {
        self + 1
    }
}

/// Signed keys, for vectors that compare signed: `i32` slices sort as they are.
impl VecKey for i32 {
    fn sort_if_monotonic(keys: &mut [i32], floats: bool) -> bool {
        let map = if floats {
            KeyMap::Float
        } else {
            KeyMap::Signed
        };
        radix::sort32_if_monotonic(bytemuck::cast_slice_mut::<i32, u32>(keys), map)
    }
    fn radix_sort(keys: &mut [i32]) {
        radix::sort32(bytemuck::cast_slice_mut(keys), KeyMap::Signed);
    }
    fn radix_sort_floats(keys: &mut [i32]) {
        radix::sort32(bytemuck::cast_slice_mut(keys), KeyMap::Float);
    }
    fn succ(self) -> Self {
        self + 1
    }
}

/// 64-bit keys with the sign bit flipped, for vectors that compare signed (AVX2 has only
/// `vpcmpgtq`): the unsigned order of `k` is the signed order of `(k ^ 1 << 63) as i64`.
impl VecKey for i64 {
    fn sort_if_monotonic(keys: &mut [i64], floats: bool) -> bool {
        let map = if floats {
            KeyMap::Float
        } else {
            KeyMap::Signed
        };
        radix::sort64_if_monotonic(bytemuck::cast_slice_mut::<i64, u64>(keys), map)
    }
    fn radix_sort(keys: &mut [i64]) {
        radix::sort64(bytemuck::cast_slice_mut(keys), KeyMap::Signed);
    }
    fn radix_sort_floats(keys: &mut [i64]) {
        radix::sort64(bytemuck::cast_slice_mut(keys), KeyMap::Float);
    }
    fn succ(self) -> Self {
        self + 1
    }
}

/// Sorts keys ascending (by their image for [`KeyVector::IMAGE`] vectors): vectorised
/// quicksort down to [`sort_block`].
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
    // SAFETY: caller's guarantee.
    unsafe { quicksort_on_threads::<V>(keys, None) }
}

/// [`quicksort`], with large ranges split over rayon's threads by `steps` (compiled for
/// `V`'s instruction set) where there are several.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn quicksort_on_threads<V: KeyVector>(
    keys: &mut [V::Key],
    steps: Option<Steps<V::Key>>,
) where
    V::Key: VecKey,
{
    let block = block_max::<V>();
    let n = keys.len();
    if n <= block {
        // SAFETY: caller's guarantee.
        unsafe { sort_block::<V>(keys) };
        return;
    }
    // Input already in order (or in reverse) takes one scan, not n log n: users re-sort
    // sorted data most often. A sample goes first, and the scans stop at the first key out
    // of order, so on other input they cost a few compares. On several threads the radix
    // sort's scan and reversal run on all of them.
    let threaded =
        steps.is_some() && n >= PARALLEL_SPLIT_MIN_LEN && rayon::current_num_threads() > 1;
    let image = V::flip_key;
    if threaded {
        if V::Key::sort_if_monotonic(keys, V::IMAGE) {
            return;
        }
    } else if sample_is_monotonic(keys, image) {
        if run_end(keys, 0, |a, b| image(a) <= image(b)) == n {
            return;
        }
        if run_end(keys, 0, |a, b| image(a) >= image(b)) == n {
            keys.reverse();
            return;
        }
    }
    // Sorted but for a few keys: only those are sorted (`nearly`).
    if let Some(mut aside) = super::nearly::set_aside(keys, image) {
        // SAFETY: caller's guarantee.
        unsafe { partition_down::<V>(&mut aside) };
        super::nearly::merge_back(keys, &aside, image);
        return;
    }
    match steps {
        // SAFETY: caller's guarantee (`steps` are `V`'s).
        Some(steps) if threaded => unsafe {
            sort_on_threads(
                keys,
                steps,
                partition_budget(n),
                rayon::current_num_threads(),
            )
        },
        // SAFETY: caller's guarantee.
        _ => unsafe { partition_down::<V>(keys) },
    }
}

/// Ranges of at least this many keys are split over rayon's threads, each side of a
/// partition a task of its own ([`sort_on_threads`]): a range this long takes a few hundred
/// µs on one thread, against a few µs to hand one to another thread.
pub(crate) const PARALLEL_SPLIT_MIN_LEN: usize = 1 << 16;

/// The quicksort's steps as functions compiled for one vector type's instruction set, which
/// rayon's tasks call ([`sort_on_threads`]; a closure does not take on the target features
/// of the function it is written in).
#[derive(Clone, Copy)]
pub(crate) struct Steps<K> {
    /// [`split_step`]: one partition.
    pub(crate) split: unsafe fn(&mut [K]) -> Option<(usize, usize)>,
    /// [`pick_pivot`]: the pivot of a split over several threads ([`split_on_threads`]).
    pub(crate) pivot: unsafe fn(&[K]) -> K,
    /// [`partition`]: one pass around a given pivot, over one chunk of such a split.
    pub(crate) partition: unsafe fn(&mut [K], K) -> usize,
    /// [`partition_down`]: the rest of the sort on this thread.
    pub(crate) sort: unsafe fn(&mut [K]),
}

/// Sorts `keys` by partitions whose sides are sorted in parallel (`rayon::join`) while
/// they hold at least [`PARALLEL_SPLIT_MIN_LEN`] keys and `budget` partitions are left (bad
/// pivots end in `steps.sort`, which has a budget of its own and then the radix sort).
/// `threads` is the share of rayon's threads the range has (all of them at the top, half
/// each side below): a range with two or more is partitioned in chunks, one on each
/// ([`split_on_threads`]), since until its sides are split the other threads would wait.
///
/// # Safety
/// The CPU supports the instructions `steps` were compiled for.
unsafe fn sort_on_threads<K: Copy + Send + Sync>(
    keys: &mut [K],
    steps: Steps<K>,
    budget: usize,
    threads: usize,
) {
    if keys.len() < PARALLEL_SPLIT_MIN_LEN || budget == 0 {
        // SAFETY: caller's guarantee.
        unsafe { (steps.sort)(keys) };
        return;
    }
    // SAFETY: caller's guarantee.
    let split = unsafe { split_on_threads(keys, steps, threads) };
    let Some((mid, high)) = split else {
        return;
    };
    let (left, rest) = keys.split_at_mut(mid);
    let right = &mut rest[high - mid..];
    let threads = threads.div_ceil(2);
    rayon::join(
        || {
            // SAFETY: caller's guarantee, on this thread or another of the same CPU.
            unsafe { sort_on_threads(left, steps, budget - 1, threads) }
        },
        || {
            // SAFETY: as above.
            unsafe { sort_on_threads(right, steps, budget - 1, threads) }
        },
    );
}

/// [`split_step`] for a range on `threads` threads: one pivot for the whole range, a
/// partition of each of up to `threads` chunks (of about [`PARALLEL_SPLIT_MIN_LEN`] keys or
/// more) on a thread of its own, then the keys at or above the pivot that lie before the split
/// trade places with the keys below it that lie after (in parallel). One thread's pass over
/// 2^24 `u64` keys takes 15 ms (0.9 ns a key on the Xeon host), while the others wait: on
/// its 16 threads `avx512` sorted 2^24 keys at 1227-1277 M keys/s (`u32`) and 425-509
/// (`u64`) with the first partitions on one thread each, 1771-1910 and 781-806 with them in
/// chunks (2026-11-28, `sortnet bench --no-profile --backends avx512,radix`, two rounds).
/// Falls back to [`split_step`] where no key is below the pivot (it needs the split of the
/// keys equal to it).
///
/// # Safety
/// The CPU supports the instructions `steps` were compiled for.
unsafe fn split_on_threads<K: Copy + Send + Sync>(
    keys: &mut [K],
    steps: Steps<K>,
    threads: usize,
) -> Option<(usize, usize)> {
    let parts = threads.min(keys.len() / PARALLEL_SPLIT_MIN_LEN);
    if parts < 2 {
        // SAFETY: caller's guarantee.
        return unsafe { (steps.split)(keys) };
    }
    // SAFETY: caller's guarantee; the range is longer than a block.
    let pivot = unsafe { (steps.pivot)(keys) };
    let chunk = keys.len().div_ceil(parts);
    let mids: Vec<usize> = keys
        .par_chunks_mut(chunk)
        // SAFETY: caller's guarantee, on any thread of the same CPU; each chunk holds at
        // least `PARALLEL_SPLIT_MIN_LEN - parts` keys, far more than a block.
        .map(|part| unsafe { (steps.partition)(part, pivot) })
        .collect();
    let below: usize = mids.iter().sum();
    if below == 0 {
        // SAFETY: caller's guarantee.
        return unsafe { (steps.split)(keys) };
    }
    // Chunk `i` holds its keys below the pivot at `i * chunk..i * chunk + mids[i]`.
    let n = keys.len();
    let sides = mids.iter().enumerate().map(|(i, &mid)| {
        let start = i * chunk;
        let end = (start + chunk).min(n);
        (start..start + mid, start + mid..end)
    });
    let (front, back) = keys.split_at_mut(below);
    let high_in_front = pieces(front, 0, sides.clone().map(|(_, high)| high));
    let low_in_back = pieces(back, below, sides.map(|(low, _)| low));
    trade_places(high_in_front, low_in_back);
    Some((below, below))
}

/// The parts of `zone` (which starts at index `offset` of the whole range) that the
/// ascending, disjoint `ranges` (indices of the whole range) cover.
fn pieces<K>(
    zone: &mut [K],
    offset: usize,
    ranges: impl Iterator<Item = std::ops::Range<usize>>,
) -> Vec<&mut [K]> {
    let end = offset + zone.len();
    let mut rest = zone;
    let mut at = offset;
    let mut out = Vec::new();
    for range in ranges {
        let (start, stop) = (range.start.max(at), range.end.min(end));
        if start >= stop {
            continue;
        }
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(start - at);
        let (piece, tail) = tail.split_at_mut(stop - start);
        out.push(piece);
        rest = tail;
        at = stop;
    }
    out
}

/// Keys a task of [`trade_places`] swaps: 512 KiB of `u64` keys each way, a few tens of µs.
const TRADE_TASK: usize = 1 << 16;

/// Swaps the keys of `a`'s pieces with those of `b`'s, in order (both hold as many keys),
/// in tasks of at most [`TRADE_TASK`] keys over rayon's threads.
fn trade_places<K: Send>(a: Vec<&mut [K]>, b: Vec<&mut [K]>) {
    let mut tasks: Vec<(&mut [K], &mut [K])> = Vec::new();
    let (mut a, mut b) = (a.into_iter(), b.into_iter());
    let (mut x, mut y): (&mut [K], &mut [K]) = (&mut [], &mut []);
    loop {
        if x.is_empty() {
            match a.next() {
                Some(next) => x = next,
                None => break,
            }
        }
        if y.is_empty() {
            match b.next() {
                Some(next) => y = next,
                None => break,
            }
        }
        let len = x.len().min(y.len()).min(TRADE_TASK);
        let (x_head, x_rest) = std::mem::take(&mut x).split_at_mut(len);
        let (y_head, y_rest) = std::mem::take(&mut y).split_at_mut(len);
        tasks.push((x_head, y_head));
        (x, y) = (x_rest, y_rest);
    }
    tasks
        .into_par_iter()
        .for_each(|(x, y)| x.swap_with_slice(y));
}

/// Partitions a range of `n` keys may take before it goes to the radix sort: 2 * log2(n).
fn partition_budget(n: usize) -> usize {
    2 * (usize::BITS - n.leading_zeros()) as usize
}

/// One partition of `keys` (longer than a block) around the median of a sample: `(mid,
/// high)` with the keys below the pivot in `keys[..mid]`, those equal to it in
/// `keys[mid..high]` where they were split off (when no key is below it, the pivot is the
/// minimum), the rest after; `None` when every key is the largest (sorted).
///
/// # Safety
/// The CPU supports `V`'s instructions; `keys.len() > block_max::<V>()`.
#[inline(always)]
pub(crate) unsafe fn split_step<V: KeyVector>(keys: &mut [V::Key]) -> Option<(usize, usize)>
where
    V::Key: VecKey,
{
    // SAFETY: caller's guarantee.
    let pivot = unsafe { pick_pivot::<V>(keys) };
    // SAFETY: caller's guarantee.
    let mid = unsafe { partition::<V>(keys, pivot) };
    if mid > 0 {
        return Some((mid, mid));
    }
    // No key below the pivot: it is the minimum. Split off every key equal to it (they are
    // done) by partitioning on "below or equal".
    if pivot == V::MAX {
        return None;
    }
    // SAFETY: caller's guarantee. Keys `< succ(pivot)` are exactly those equal to it.
    Some((0, unsafe { partition_le::<V>(keys, pivot) }))
}

/// The quicksort's partitions and blocks, without its checks of the input's order.
///
/// # Safety
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn partition_down<V: KeyVector>(keys: &mut [V::Key])
where
    V::Key: VecKey,
{
    let block = block_max::<V>();
    let n = keys.len();
    let budget = partition_budget(n);
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
            if V::IMAGE {
                V::Key::radix_sort_floats(range);
            } else {
                V::Key::radix_sort(range);
            }
            continue;
        }
        // SAFETY: caller's guarantee; `len > block`.
        let Some((mid, high)) = (unsafe { split_step::<V>(range) }) else {
            continue; // every key is MAX
        };
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
pub(crate) unsafe fn partition_le<V: KeyVector>(keys: &mut [V::Key], pivot: V::Key) -> usize
where
    V::Key: VecKey,
{
    // With integer keys, "at most p" is "below p + 1"; `pivot < MAX` so it does not wrap.
    // SAFETY: caller's guarantee.
    unsafe { partition::<V>(keys, pivot.succ()) }
}

/// Checks shared by the instantiations' unit tests (`network/tests.rs`).
#[cfg(test)]
pub(crate) mod tests;
