//! Moving elements: the plain scatter of an LSD pass, the write-combining scatter of the MSD
//! pass with its streaming stores, and the copies that end a sort (streaming, decoding).

use super::digits::*;

/// Moves `src[..len]` to `dst` ordered by digit `d`, keeping the order of equal digits.
/// `offsets[b]` is where the first element with digit `b` goes; it is advanced as elements
/// are written. `ENC`: the source is raw and is encoded as it is read. `DEC`: the
/// destination receives decoded keys.
///
/// # Safety
/// `src` holds `len` initialised elements; every `offsets[b]` plus the number of elements
/// with digit `b` stays within `dst`, and `src` and `dst` do not overlap.
#[inline(always)]
pub(super) unsafe fn scatter<
    K: RadixKey,
    V: Copy,
    C: Codec<K>,
    const W: u32,
    const ENC: bool,
    const DEC: bool,
>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
    d: usize,
    offsets: &mut [usize],
) {
    debug_assert_eq!(offsets.len(), 1 << W);
    for i in 0..len {
        // SAFETY: `i < len` and the caller guarantees `len` initialised elements at `src`;
        // the offsets keep the write inside `dst` (see the function's contract).
        unsafe {
            let k = *src.k.add(i);
            let v = *src.v.add(i);
            let e = if ENC { C::encode(k) } else { k };
            let b = e.digit::<W>(d);
            let p = *offsets.get_unchecked(b);
            *offsets.get_unchecked_mut(b) = p + 1;
            let w = match (ENC, DEC) {
                (true, true) => k,
                (false, true) => C::decode(e),
                _ => e,
            };
            dst.k.add(p).write(w);
            dst.v.add(p).write(v);
        }
    }
}

/// Bytes in a cache line: the unit of the write-combining scatter.
pub(super) const LINE_BYTES: usize = 64;

/// Destinations of at least this many bytes get non-temporal stores: from the
/// write-combining scatter of the MSD pass, and from the copy that ends each bucket's sort.
///
/// Far above the last-level cache the scattered data will be read from main memory anyway,
/// and streaming stores save the read-for-ownership of every destination line (a third of
/// the scatter's traffic). Below, the next pass finds the lines in cache. 16 MiB is half the
/// L3 of the test machine.
pub(crate) const STREAM_MIN_BYTES: usize = 16 << 20;

/// Lines of 64 bytes, aligned for streaming stores.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct Line([u8; LINE_BYTES]);

/// Bytes of write-combining buffer the MSD scatter gives all its buckets together, keys and
/// values: each bucket's block of keys is at most 1 KiB and at least a cache line (keys
/// alone, 256 buckets: 1 KiB each; the wide split's 8192: one line each), and shrinks by
/// powers of two for the values beside it ([`wc_block_len`]).
///
/// A full buffer goes out as one run of whole lines. Measured with a microbenchmark of the
/// scatter loop (one thread, 2^24 random `u32` keys into 256 buckets, not committed):
/// 64-byte buffers 24-26 ms, 256-byte 21-22 ms, 1 KiB 18-21 ms, against 8.2 ms for filling
/// the buffers without writing them out and 3.4-4.5 ms for a non-temporal copy of the same
/// 64 MiB; in the sort (a best-of-N loop, best of 12, both cores), 2^24 `u32`:
/// 52-56 ms with 64-byte buffers, 46.6-48 ms with 1 KiB (`u64`: 73 -> 65-67 ms; 2^22 `u32`
/// 12.6 -> 11.6-12, `u64` 17.7 -> 15.9).
pub(super) const WC_BUFFER_BYTES: usize = 256 << 10;

/// Elements per bucket in the write-combining buffers of [`scatter_wc`]: the buffers of all
/// `buckets` (keys and values together) share [`WC_BUFFER_BYTES`], each bucket's block of
/// keys a power of two between one cache line and 1 KiB. Keys alone get 1 KiB per bucket
/// for 256 buckets; counting the values too keeps pairs and records (up to 36 bytes an
/// element) in the same cache footprint instead of 2 to 9 times it (16-byte values took a
/// 1.25 MiB buffer, more than a core's L2, and every flush missed it).
pub(super) fn wc_block_len<K, V>(buckets: usize) -> usize {
    let size = std::mem::size_of::<K>();
    let elem = size + std::mem::size_of::<V>();
    let fit = (WC_BUFFER_BYTES / buckets / elem).max(1);
    (1usize << fit.ilog2()).clamp(LINE_BYTES / size, (1 << 10) / size)
}

/// What the MSD scatter writes for one input element: the element itself with its key
/// encoded ([`Plain`]), or key and value packed into one word (`pack::Packed`).
pub(super) trait Pack<K, V> {
    /// The key written (the scatter's digit is a field of it).
    type Key: RadixKey;
    /// The value written beside it.
    type Value: Copy;
    fn pack(k: K, v: V) -> (Self::Key, Self::Value);
}

/// The element as it is, its key encoded as it is read when `ENC` is set.
pub(super) struct Plain<C, const ENC: bool>(std::marker::PhantomData<C>);

impl<K: RadixKey, V: Copy, C: Codec<K>, const ENC: bool> Pack<K, V> for Plain<C, ENC> {
    type Key = K;
    type Value = V;
    #[inline(always)]
    fn pack(k: K, v: V) -> (K, V) {
        (if ENC { C::encode(k) } else { k }, v)
    }
}

/// [`scatter`] on the `W`-bit field at bit `shift` of the keys `P` makes (a digit of the MSD
/// route's [`Split`]) through write-combining buffers: each bucket collects a block of keys
/// (up to 1 KiB: [`WC_BUFFER_BYTES`]) in cache and writes it out whole, so main memory sees
/// runs of full lines instead of 256 interleaved streams of single keys. Blocks that lie
/// entirely inside the bucket go out with non-temporal stores when `STREAM` is set; the
/// partial blocks at a bucket's two ends (shared with the neighbouring buckets, which another
/// thread may be writing) always take plain stores of exactly this bucket's elements. Values
/// travel in step with their keys through a second buffer. The keys are written as `P`
/// makes them (encoded; the buckets' sorts decode them).
///
/// # Safety
/// As [`scatter`]; additionally the keys at `dst.k` are aligned to their size.
pub(super) unsafe fn scatter_wc<
    K: RadixKey,
    V: Copy,
    P: Pack<K, V>,
    const W: u32,
    const STREAM: bool,
>(
    src: Buf<K, V>,
    dst: Buf<P::Key, P::Value>,
    len: usize,
    shift: u32,
    offsets: &mut [usize],
) {
    let buckets = 1 << W;
    debug_assert_eq!(offsets.len(), buckets);
    let size = std::mem::size_of::<P::Key>();
    debug_assert!((LINE_BYTES / size).is_power_of_two() && size >= 4);
    let per_block = wc_block_len::<P::Key, P::Value>(buckets);
    let block_bytes = per_block * size;
    // Element index `i` of `dst` starts a block iff `(i + phase) % per_block == 0`; blocks
    // then start on `block_bytes` boundaries, which are cache-line boundaries.
    let phase = (dst.k as usize / size) % per_block;
    let mask = per_block - 1;
    let mut kbuf = vec![Line([0; LINE_BYTES]); buckets * block_bytes / LINE_BYTES];
    let mut vbuf: Vec<P::Value> = Vec::with_capacity(buckets * per_block);
    let kb = kbuf.as_mut_ptr().cast::<P::Key>();
    let vb = vbuf.as_mut_ptr();
    let start = offsets.to_vec();
    let pos = offsets;
    for i in 0..len {
        // SAFETY: `i < len` reads initialised input; `slot < per_block` stays inside bucket
        // `b`'s block of `kbuf`/`vbuf` (capacity `buckets * per_block`); flushed ranges lie
        // in `start[b]..pos[b]`, which this chunk owns in `dst` (caller's contract).
        unsafe {
            let (e, v) = P::pack(*src.k.add(i), *src.v.add(i));
            let b = e.field::<W>(shift);
            let p = *pos.get_unchecked(b);
            *pos.get_unchecked_mut(b) = p + 1;
            let slot = (p + phase) & mask;
            kb.add(b * per_block + slot).write(e);
            vb.add(b * per_block + slot).write(v);
            if slot == mask {
                // The block ending at `p` is complete in the buffer unless the bucket started
                // inside it. In phased coordinates (`+ phase`) blocks start at multiples of
                // `per_block`, and the block's start is never negative there.
                let block_q = p + phase + 1 - per_block;
                let from_q = block_q.max(*start.get_unchecked(b) + phase);
                let skip = from_q - block_q;
                // `from_q - phase` is this bucket's first element in the block.
                let at = from_q - phase;
                flush::<P::Key, P::Value, STREAM>(kb, vb, b * per_block, skip, per_block, dst, at);
            }
        }
    }
    for b in 0..buckets {
        let p = pos[b];
        // Elements of bucket `b` still in the buffer: from the last block start (or the
        // bucket's start) to `p`.
        let block_q = (p + phase) & !mask;
        let from_q = block_q.max(start[b] + phase);
        let end_q = p + phase;
        if from_q < end_q {
            // SAFETY: as in the loop; a partial block never streams.
            unsafe {
                flush::<P::Key, P::Value, false>(
                    kb,
                    vb,
                    b * per_block,
                    from_q - block_q,
                    end_q - block_q,
                    dst,
                    from_q - phase,
                );
            }
        }
    }
    if STREAM {
        fence_streams();
    }
}

/// Writes buffer slots `skip..end` of the block at `base` in the buffers to `dst` from
/// element `first` on; a whole block (`skip == 0`, `end` a multiple of a line's elements)
/// streams line by line when `STREAM` is set.
///
/// # Safety
/// The slots are initialised; `dst[first..first + end - skip]` is writable and owned by the
/// caller; when streaming, `kb + base` and `dst.k + first` are 64-byte aligned.
#[inline(always)]
pub(super) unsafe fn flush<K: Copy, V: Copy, const STREAM: bool>(
    kb: *mut K,
    vb: *mut V,
    base: usize,
    skip: usize,
    end: usize,
    dst: Buf<K, V>,
    first: usize,
) {
    let per_line = LINE_BYTES / std::mem::size_of::<K>();
    // SAFETY: the caller's contract covers every read and write below.
    unsafe {
        if STREAM && skip == 0 && end.is_multiple_of(per_line) {
            for l in (0..end).step_by(per_line) {
                stream_line(kb.add(base + l).cast(), dst.k.add(first + l).cast());
            }
        } else {
            std::ptr::copy_nonoverlapping(kb.add(base + skip), dst.k.add(first), end - skip);
        }
        std::ptr::copy_nonoverlapping(vb.add(base + skip), dst.v.add(first), end - skip);
    }
}

/// Copies one 64-byte line with non-temporal stores, from a source of any alignment.
///
/// # Safety
/// `from` is readable for 64 bytes; `to` is writable for 64 bytes and 64-byte aligned.
#[inline(always)]
pub(super) unsafe fn stream_line(from: *const u8, to: *mut u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        // SAFETY: SSE2 is part of x86-64; `to` is 64-byte aligned and both pointers are valid
        // for 64 bytes (caller's contract), so each 16-byte store is aligned and in bounds.
        unsafe {
            let (f, t) = (from.cast::<__m128i>(), to.cast::<__m128i>());
            for j in 0..4 {
                _mm_stream_si128(t.add(j), _mm_loadu_si128(f.add(j)));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(from, to, LINE_BYTES)
    }
}

/// Orders the non-temporal stores before everything after (they are weakly ordered).
pub(super) fn fence_streams() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Copies `len` elements from `src` to `dst`, the keys' whole cache lines with streaming
/// stores (the lines at either end, which a neighbouring range may share, with plain ones).
///
/// # Safety
/// `src` holds `len` initialised elements; `dst` has room for `len` and does not overlap it;
/// the keys at `dst.k` are aligned to their size.
pub(super) unsafe fn copy_streaming<K: Copy, V: Copy>(src: Buf<K, V>, dst: Buf<K, V>, len: usize) {
    let size = std::mem::size_of::<K>();
    let per_line = LINE_BYTES / size;
    // Elements before `dst.k`'s first line boundary, then whole lines.
    let head = ((LINE_BYTES - dst.k as usize % LINE_BYTES) % LINE_BYTES / size).min(len);
    let lines = (len - head) / per_line;
    // SAFETY: every access stays within the `len` elements of the caller's contract; the
    // streamed lines start at `dst.k + head`, which is 64-byte aligned.
    unsafe {
        std::ptr::copy_nonoverlapping(src.v, dst.v, len);
        std::ptr::copy_nonoverlapping(src.k, dst.k, head);
        for l in 0..lines {
            let at = head + l * per_line;
            stream_line(src.k.add(at).cast(), dst.k.add(at).cast());
        }
        let done = head + lines * per_line;
        std::ptr::copy_nonoverlapping(src.k.add(done), dst.k.add(done), len - done);
    }
    fence_streams();
}

/// Copies `len` elements from `src` to `dst` (which may be the same), decoding the keys when
/// `DEC` is set.
///
/// # Safety
/// `src` holds `len` initialised elements; `dst` has room for `len`; the ranges are either
/// identical or disjoint.
pub(super) unsafe fn copy_decode<K: RadixKey, V: Copy, C: Codec<K>, const DEC: bool>(
    src: Buf<K, V>,
    dst: Buf<K, V>,
    len: usize,
) {
    if src.k == dst.k {
        if DEC {
            for i in 0..len {
                // SAFETY: `i < len`, initialised by the caller's contract.
                unsafe { *dst.k.add(i) = C::decode(*dst.k.add(i)) };
            }
        }
        return;
    }
    // SAFETY: disjoint ranges of `len` elements (caller's contract).
    unsafe {
        std::ptr::copy_nonoverlapping(src.v, dst.v, len);
        if DEC {
            for i in 0..len {
                dst.k.add(i).write(C::decode(*src.k.add(i)));
            }
        } else {
            std::ptr::copy_nonoverlapping(src.k, dst.k, len);
        }
    }
}

/// Keys of the probe that chooses this machine's digit width ([`wide_digits_pay`]): 128 KiB
/// of `u32` keys and as much scratch, inside the L2 of every core measured, where the plain
/// LSD sorts that take wide digits run.
const PROBE_LEN: usize = 1 << 15;

/// Timed rounds of the probe; the fastest pass of each width counts (a burst of load from
/// other processes slows one round of both).
const PROBE_ROUNDS: usize = 3;

/// Whether LSD passes on [`WIDE`] digits beat [`NARROW`] ones on this machine: the time of
/// one 11-bit scatter pass over [`PROBE_LEN`] random `u32` keys at most 3/2 of an 8-bit one.
/// Where plain LSD sorts run (2^14 to 2^17 keys, inside the L2) they sort on the top
/// `log2(n) + 4` bits (`first_digit`): 18 to 21 bits, 2 wide passes against 3 narrow ones.
/// Measured once per process, the first time a sort long enough for wide digits asks; about
/// 0.2 ms (6 passes of 2^15 keys).
///
/// No rule on the CPU's caches predicts the answer, so it is measured: one pass, one
/// thread, random keys in L2, ns per key 8-bit / 11-bit, AMD EPYC (Zen 4, 1 MiB L2): `u32`
/// 2^14 0.64-0.69 / 0.83-0.86, 2^16 0.69-0.71 / 0.82-0.83 (1.17-1.33x: wide digits win,
/// whole sorts 1.2x faster at 2^15-2^16). On the Intel Xeon host of the H200 machine
/// (Emerald Rapids, 2 MiB L2) a simple scatter loop outside the crate took 2.5x as long with
/// 11 bits (2^16 1.35 / 2.99), but the crate's pass did not: the probe chose 11 bits there
/// and whole sorts ran within 7% either way.
pub(super) fn wide_digits_pay() -> bool {
    static WIDE_PAYS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WIDE_PAYS.get_or_init(|| {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut keys: Vec<u32> = (0..PROBE_LEN)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u32
            })
            .collect();
        let mut out = vec![0u32; PROBE_LEN];
        let mut units = [(); 0];
        let src = Buf::<u32, ()> {
            k: keys.as_mut_ptr(),
            v: units.as_mut_ptr(),
        };
        let dst = Buf::<u32, ()> {
            k: out.as_mut_ptr(),
            v: units.as_mut_ptr(),
        };
        let (mut narrow, mut wide) = (f64::MAX, f64::MAX);
        for _ in 0..PROBE_ROUNDS {
            narrow = narrow.min(time_pass::<NARROW>(src, dst));
            wide = wide.min(time_pass::<WIDE>(src, dst));
        }
        2.0 * wide <= 3.0 * narrow
    })
}

/// Seconds one scatter of the [`PROBE_LEN`] keys at `src` on their lowest `W`-bit digit
/// into `dst` takes (its histogram counted before the clock starts).
fn time_pass<const W: u32>(src: Buf<u32, ()>, dst: Buf<u32, ()>) -> f64 {
    let mut offsets = vec![0usize; 1 << W];
    // SAFETY: `src` holds `PROBE_LEN` initialised keys (the probe's own vector).
    let keys = unsafe { std::slice::from_raw_parts(src.k, PROBE_LEN) };
    for &k in keys {
        offsets[k.digit::<W>(0)] += 1;
    }
    let mut sum = 0;
    for o in offsets.iter_mut() {
        (*o, sum) = (sum, sum + *o);
    }
    let start = std::time::Instant::now();
    // SAFETY: `src` and `dst` are the probe's two disjoint vectors of `PROBE_LEN` keys (the
    // values are zero-sized); the offsets are the exclusive prefix of this digit's histogram
    // over exactly those keys, so every write lands in `dst[..PROBE_LEN]`.
    unsafe {
        scatter::<u32, (), super::digits::Unsigned, W, false, false>(
            src,
            dst,
            PROBE_LEN,
            0,
            &mut offsets,
        )
    };
    start.elapsed().as_secs_f64()
}
