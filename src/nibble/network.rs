//! The 16-input sorting network, written once as data and applied to any byte-lane vector.
//!
//! Every SIMD nibble kernel lays 16 vectors side by side so that lane `j` of vector `i` holds
//! nibble `i` of some word; one comparator (a lane-wise min and max of two vectors) then acts
//! on that many words at once. The network and the block kernel built on it are generic over
//! [`ByteVector`], so the avx2, avx512 and portable backends share one copy of each.

/// Lane-wise byte operations the nibble kernels need, one implementation per instruction set.
///
/// Lanes are unsigned bytes; `interleave_*` work inside each 128-bit lane, as the x86 unpack
/// instructions and NEON `zip` do, which is all the block transpose needs.
///
/// # Safety
///
/// The methods are `unsafe` because the x86 implementations execute instructions the CPU
/// may lack: callers must make sure the CPU supports the implementation's instruction set
/// (the backends only call them through a capability token that checked it). Pointers given
/// to `load` / `store` must be valid for `BYTES` bytes; no alignment is needed.
pub(crate) trait ByteVector: Copy {
    /// Bytes per vector; a block of the kernel is this many words.
    const BYTES: usize;

    /// Reads `BYTES` bytes from `src` (unaligned).
    unsafe fn load(src: *const u8) -> Self;
    /// Writes `BYTES` bytes to `dst` (unaligned).
    unsafe fn store(self, dst: *mut u8);
    /// Lane-wise unsigned minimum.
    unsafe fn min(self, other: Self) -> Self;
    /// Lane-wise unsigned maximum.
    unsafe fn max(self, other: Self) -> Self;
    /// Per 128-bit lane: bytes 0..8 of `self` and `other`, interleaved (`self` first).
    unsafe fn interleave_low(self, other: Self) -> Self;
    /// Per 128-bit lane: bytes 8..16 of `self` and `other`, interleaved (`self` first).
    unsafe fn interleave_high(self, other: Self) -> Self;
    /// Each byte's low nibble moved into its high half; the new low half is don't-care.
    unsafe fn low_nibble_up(self) -> Self;
    /// Bytes whose high half is the high half of `high` and whose low half is the high half
    /// of `low`: two sorted nibble vectors folded back into one byte vector.
    unsafe fn join_nibbles(high: Self, low: Self) -> Self;
}

/// Applies one comparator: `v[lo]` gets the minimum, `v[hi]` the maximum, in every lane.
///
/// # Safety
///
/// As for [`ByteVector`]: the CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn compare_exchange<V: ByteVector>(v: &mut [V; 16], lo: usize, hi: usize) {
    let (a, b) = (v[lo], v[hi]);
    // SAFETY: the caller guarantees the CPU supports V's instructions.
    unsafe {
        v[lo] = a.min(b);
        v[hi] = a.max(b);
    }
}

/// Declares the network once as a list of comparators and derives from that one list both
/// the `GREEN_16` table (which the tests check) and the straight-line [`sort16`]
/// (a loop over the table would leave the 16 vectors in memory instead of registers).
macro_rules! network {
    ($( ($lo:literal, $hi:literal) ),* $(,)?) => {
        /// Green's 60-comparator network for 16 inputs in 10 layers (Knuth, The Art of
        /// Computer Programming, vol. 3, 2nd ed., section 5.3.4, Fig. 49), one comparator
        /// `(lo, hi)` per entry: afterwards input `lo` holds the smaller value.
        #[cfg(test)]
        pub(crate) const GREEN_16: [(usize, usize); 60] = [$(($lo, $hi)),*];

        /// Sorts the 16 vectors lane-wise ascending: afterwards `v[0]` holds the smallest
        /// byte of every lane and `v[15]` the largest.
        ///
        /// # Safety
        ///
        /// As for [`ByteVector`]: the CPU supports `V`'s instructions.
        #[inline(always)]
        pub(crate) unsafe fn sort16<V: ByteVector>(v: &mut [V; 16]) {
            // SAFETY: forwarded from the caller.
            unsafe { $( compare_exchange(v, $lo, $hi); )* }
        }
    };
}

network! {
    // Layer 1. Layers 1-4 sort along each dimension of the 4-cube of indices.
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (8, 9),
    (10, 11),
    (12, 13),
    (14, 15),
    // Layer 2.
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (8, 10),
    (9, 11),
    (12, 14),
    (13, 15),
    // Layer 3.
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
    (8, 12),
    (9, 13),
    (10, 14),
    (11, 15),
    // Layer 4.
    (0, 8),
    (1, 9),
    (2, 10),
    (3, 11),
    (4, 12),
    (5, 13),
    (6, 14),
    (7, 15),
    // Layer 5.
    (5, 10),
    (6, 9),
    (3, 12),
    (13, 14),
    (7, 11),
    (1, 2),
    (4, 8),
    // Layer 6.
    (1, 4),
    (7, 13),
    (2, 8),
    (11, 14),
    // Layer 7.
    (2, 4),
    (5, 6),
    (9, 10),
    (11, 13),
    (3, 8),
    (7, 12),
    // Layer 8.
    (6, 8),
    (10, 12),
    (3, 5),
    (7, 9),
    // Layer 9.
    (3, 4),
    (5, 6),
    (7, 8),
    (9, 10),
    (11, 12),
    // Layer 10.
    (6, 7),
    (8, 9),
}

/// Sorts the nibbles of `V::BYTES` words in place.
///
/// The 8 vectors loaded from the block hold `BYTES / 8` whole words each. Four rounds of
/// [`interleave_round`] transpose them so that vector `k` holds byte `k` of every word (lane
/// `j` of all vectors belonging to the same word); splitting each byte into its two nibbles
/// gives the 16 network inputs, with the nibble in the high half of its byte (the low half
/// is left-over bits that never decide a comparison between different nibbles). After the
/// network the nibbles are folded back into bytes in sorted order and three more rounds
/// complete the transpose back to words (seven rounds are the identity).
///
/// # Safety
///
/// The CPU supports `V`'s instructions and `block` is valid for reads and writes of
/// `V::BYTES` words.
#[inline(always)]
pub(crate) unsafe fn sort_block<V: ByteVector>(block: *mut u64) {
    let bytes = block.cast::<u8>();
    // SAFETY: `block` is valid for 8 * V::BYTES bytes (caller), the 8 loads and stores
    // cover exactly that range, and the CPU supports V's instructions (caller).
    unsafe {
        let load = |i: usize| V::load(bytes.add(i * V::BYTES));
        // Spelled out rather than `array::from_fn`, which LLVM stops inlining once a
        // kernel holds several block widths.
        let rows = [
            load(0),
            load(1),
            load(2),
            load(3),
            load(4),
            load(5),
            load(6),
            load(7),
        ];
        for (i, row) in sort_rows(rows).iter().enumerate() {
            row.store(bytes.add(i * V::BYTES));
        }
    }
}

/// The block kernel between loads and stores: 8 rows of whole words in, sorted out.
///
/// # Safety
///
/// The CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn sort_rows<V: ByteVector>(mut rows: [V; 8]) -> [V; 8] {
    // SAFETY: forwarded from the caller.
    unsafe {
        // Written out: a loop here is left rolled by LLVM, with the rows on the stack.
        interleave_round(&mut rows);
        interleave_round(&mut rows);
        interleave_round(&mut rows);
        interleave_round(&mut rows);
        let r = rows;
        let mut nibbles: [V; 16] = [
            r[0],
            r[0].low_nibble_up(),
            r[1],
            r[1].low_nibble_up(),
            r[2],
            r[2].low_nibble_up(),
            r[3],
            r[3].low_nibble_up(),
            r[4],
            r[4].low_nibble_up(),
            r[5],
            r[5].low_nibble_up(),
            r[6],
            r[6].low_nibble_up(),
            r[7],
            r[7].low_nibble_up(),
        ];
        sort16(&mut nibbles);
        // Byte k of a sorted word holds sorted nibbles 2k (low half) and 2k + 1 (high half).
        let n = nibbles;
        let mut rows: [V; 8] = [
            V::join_nibbles(n[1], n[0]),
            V::join_nibbles(n[3], n[2]),
            V::join_nibbles(n[5], n[4]),
            V::join_nibbles(n[7], n[6]),
            V::join_nibbles(n[9], n[8]),
            V::join_nibbles(n[11], n[10]),
            V::join_nibbles(n[13], n[12]),
            V::join_nibbles(n[15], n[14]),
        ];
        interleave_round(&mut rows);
        interleave_round(&mut rows);
        interleave_round(&mut rows);
        rows
    }
}

// Only the AVX-512 kernel has masked loads and stores.
#[cfg(target_arch = "x86_64")]
/// Byte vectors that can read and write a prefix of their width without touching the bytes
/// after it (masked loads and stores), so a slice shorter than a block needs no buffer.
///
/// # Safety
///
/// As for [`ByteVector`]; `len <= Self::BYTES`, and the pointers are valid for `len` bytes.
pub(crate) trait MaskedByteVector: ByteVector {
    /// Reads the first `len` bytes at `src`; the other lanes are zero.
    unsafe fn load_prefix(src: *const u8, len: usize) -> Self;
    /// Writes the first `len` lanes to `dst` and nothing after them.
    unsafe fn store_prefix(self, dst: *mut u8, len: usize);
}

/// Sorts a slice of at most one block of `V` in place with masked loads and stores.
///
/// # Safety
///
/// The CPU supports `V`'s instructions.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn sort_short_masked<V: MaskedByteVector>(words: &mut [u64]) {
    debug_assert!(words.len() <= V::BYTES);
    if words.len() == V::BYTES {
        // A whole block: plain loads and stores are cheaper than masked ones.
        // SAFETY: the slice holds exactly one block; the caller vouches for the CPU.
        return unsafe { sort_block::<V>(words.as_mut_ptr()) };
    }
    let bytes = words.as_mut_ptr().cast::<u8>();
    let len = words.len() * 8;
    // Row i covers bytes i * BYTES.. of the block; only the part inside the slice is read
    // or written.
    let row_len = |i: usize| len.saturating_sub(i * V::BYTES).min(V::BYTES);
    // SAFETY: row i's pointer plus row_len(i) bytes stays inside the slice (a row past the
    // end gets length 0 and touches nothing); the caller vouches for the CPU.
    unsafe {
        let load = |i: usize| V::load_prefix(bytes.wrapping_add(i * V::BYTES), row_len(i));
        let rows = [
            load(0),
            load(1),
            load(2),
            load(3),
            load(4),
            load(5),
            load(6),
            load(7),
        ];
        for (i, row) in sort_rows(rows).iter().enumerate() {
            row.store_prefix(bytes.wrapping_add(i * V::BYTES), row_len(i));
        }
    }
}

/// As [`sort_words_with_tail`] for vectors with masked loads and stores: the words after
/// the last whole block, and a slice of at most one block, are sorted by one block of the
/// narrowest of `V`, `H`, `Q` that holds them, reading and writing only those words (an
/// overlapping block would read words the previous block has just stored, and wait for
/// those stores: measured 51 against 35 ns for 35 words).
///
/// # Safety
///
/// The CPU supports the instructions of `V`, `H` and `Q`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn sort_words_masked<V, H, Q>(words: &mut [u64])
where
    V: MaskedByteVector,
    H: MaskedByteVector,
    Q: MaskedByteVector,
{
    const { assert!(Q::BYTES <= H::BYTES && H::BYTES <= V::BYTES) };
    // A single block of V is slower than the same words in blocks of H (measured 44
    // against 39 ns for 64 words in 512- and 256-bit blocks): with one block there is no
    // second one to overlap its dependency chain with.
    let block = if words.len() > V::BYTES {
        V::BYTES
    } else {
        H::BYTES
    };
    let mut blocks = words.chunks_exact_mut(block);
    for chunk in &mut blocks {
        // SAFETY: the chunk holds exactly `block` words, V::BYTES or H::BYTES, and the
        // caller vouches for the CPU.
        unsafe {
            if block == V::BYTES {
                sort_block::<V>(chunk.as_mut_ptr())
            } else {
                sort_block::<H>(chunk.as_mut_ptr())
            }
        }
    }
    let rest = blocks.into_remainder();
    // SAFETY: `rest` is shorter than one block of V; the caller vouches for the CPU.
    unsafe {
        if rest.len() <= super::thresholds::NIBBLE_MASKED_LUT_MAX_WORDS {
            crate::nibble::lut::sort_words(rest)
        } else if rest.len() <= Q::BYTES {
            sort_short_masked::<Q>(rest)
        } else if rest.len() <= H::BYTES {
            sort_short_masked::<H>(rest)
        } else {
            sort_short_masked::<V>(rest)
        }
    }
}

/// The most words a block of any [`ByteVector`] holds (64-byte vectors).
const MAX_BLOCK_WORDS: usize = 64;

/// Sorts the nibbles of every word of `words`, a block of `V::BYTES` words at a time.
///
/// # Safety
///
/// The CPU supports `V`'s instructions.
#[inline(always)]
pub(crate) unsafe fn sort_words<V: ByteVector>(words: &mut [u64]) {
    // SAFETY: forwarded from the caller (H = V needs nothing more).
    unsafe { sort_words_with_tail::<V, V>(words) }
}

/// Sorts the nibbles of every word of `words` in blocks of `V::BYTES` words, using the
/// narrower `H` where it does the job with less work.
///
/// The words after the last whole block are sorted by one more block over the *last*
/// `V::BYTES` (or, if they fit, `H::BYTES`) words of the slice. That block overlaps words
/// already sorted, which sorting leaves as they are, so no copy is needed. A word or two
/// go to the lookup-table sort instead, which is cheaper than a block. Only a slice
/// shorter than one block of `H` goes through a stack buffer ([`sort_short`]).
///
/// # Safety
///
/// The CPU supports the instructions of `V` and of `H`.
#[inline(always)]
pub(crate) unsafe fn sort_words_with_tail<V: ByteVector, H: ByteVector>(words: &mut [u64]) {
    const { assert!(H::BYTES <= V::BYTES) };
    let len = words.len();
    if len < V::BYTES {
        // SAFETY: forwarded from the caller.
        return unsafe { sort_words_below::<H>(words, V::BYTES) };
    }
    let rest = len % V::BYTES;
    // The overlapping last block goes first: sorted after the whole blocks, its loads
    // would wait for the stores of the block just before it (measured 53 against 37 ns
    // for 35 words with avx2); first, only the last whole block can wait, on stores long
    // retired unless the slice is short.
    // SAFETY: `len >= V::BYTES >= H::BYTES`, so the last block lies inside the slice; the
    // caller vouches for the CPU.
    unsafe {
        if rest > super::thresholds::NIBBLE_TAIL_LUT_MAX_WORDS {
            if rest <= H::BYTES {
                sort_block::<H>(words[len - H::BYTES..].as_mut_ptr());
            } else {
                sort_block::<V>(words[len - V::BYTES..].as_mut_ptr());
            }
        }
    }
    let mut blocks = words.chunks_exact_mut(V::BYTES);
    for block in &mut blocks {
        // SAFETY: the chunk holds exactly V::BYTES words; the caller vouches for the CPU.
        unsafe { sort_block::<V>(block.as_mut_ptr()) };
    }
    let tail = blocks.into_remainder();
    if !tail.is_empty() && tail.len() <= super::thresholds::NIBBLE_TAIL_LUT_MAX_WORDS {
        crate::nibble::lut::sort_words(tail);
    }
}

/// Sorts a slice of at most `limit` words (a block of the wider kernel) with `H` alone: whole
/// blocks of `H` with an overlapping last block, or the stack buffer below one block.
///
/// # Safety
///
/// The CPU supports `H`'s instructions.
#[inline(always)]
unsafe fn sort_words_below<H: ByteVector>(words: &mut [u64], limit: usize) {
    let len = words.len();
    debug_assert!(len <= limit);
    if len < H::BYTES {
        // SAFETY: forwarded from the caller.
        return unsafe { sort_short::<H>(words) };
    }
    // SAFETY: `len >= H::BYTES`, so every block lies inside the slice; CPU from the caller.
    unsafe { sort_words_with_tail::<H, H>(words) }
}

/// Sorts a slice shorter than one block without touching memory outside it: a few words
/// through the lookup-table sort, more in a stack buffer sorted as one block.
///
/// # Safety
///
/// The CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn sort_short<V: ByteVector>(words: &mut [u64]) {
    const { assert!(V::BYTES <= MAX_BLOCK_WORDS) };
    debug_assert!(words.len() < V::BYTES);
    if words.len() <= super::thresholds::NIBBLE_SHORT_LUT_MAX_WORDS {
        crate::nibble::lut::sort_words(words);
        return;
    }
    let mut buffer = [0u64; MAX_BLOCK_WORDS];
    buffer[..words.len()].copy_from_slice(words);
    // SAFETY: the buffer holds MAX_BLOCK_WORDS >= V::BYTES words; the caller vouches for
    // the CPU.
    unsafe { sort_block::<V>(buffer.as_mut_ptr()) };
    words.copy_from_slice(&buffer[..words.len()]);
}

/// One round of the block transpose: vectors `i` and `i + 4` are interleaved into `2i`
/// (low halves) and `2i + 1` (high halves).
///
/// Index a byte of the 8 vectors by 7 bits, 4 for its position in a 128-bit lane and 3
/// for its vector (bits of the 128-bit lane number never change). A round rotates these 7
/// bits by one place: the top position bit becomes the low vector bit and the top vector
/// bit the low position bit. Four rounds move the 3 low position bits (the byte within a
/// word) into the vector number; seven rounds restore the start.
///
/// # Safety
///
/// The CPU supports `V`'s instructions.
#[inline(always)]
unsafe fn interleave_round<V: ByteVector>(rows: &mut [V; 8]) {
    let old = *rows;
    for i in 0..4 {
        // SAFETY: forwarded from the caller.
        unsafe {
            rows[2 * i] = old[i].interleave_low(old[i + 4]);
            rows[2 * i + 1] = old[i].interleave_high(old[i + 4]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain array of bytes as the vector: the reference implementation of the trait,
    /// also used to test the transpose and the network without any SIMD.
    #[derive(Clone, Copy)]
    struct Lanes([u8; 16]);

    impl ByteVector for Lanes {
        const BYTES: usize = 16;
        unsafe fn load(src: *const u8) -> Self {
            // SAFETY: the caller gives 16 readable bytes.
            Lanes(unsafe { src.cast::<[u8; 16]>().read_unaligned() })
        }
        unsafe fn store(self, dst: *mut u8) {
            // SAFETY: the caller gives 16 writable bytes.
            unsafe { dst.cast::<[u8; 16]>().write_unaligned(self.0) }
        }
        unsafe fn min(self, o: Self) -> Self {
            Lanes(std::array::from_fn(|i| self.0[i].min(o.0[i])))
        }
        unsafe fn max(self, o: Self) -> Self {
            Lanes(std::array::from_fn(|i| self.0[i].max(o.0[i])))
        }
        unsafe fn interleave_low(self, o: Self) -> Self {
            Lanes(std::array::from_fn(|i| {
                if i % 2 == 0 {
                    self.0[i / 2]
                } else {
                    o.0[i / 2]
                }
            }))
        }
        unsafe fn interleave_high(self, o: Self) -> Self {
            Lanes(std::array::from_fn(|i| {
                if i % 2 == 0 {
                    self.0[8 + i / 2]
                } else {
                    o.0[8 + i / 2]
                }
            }))
        }
        unsafe fn low_nibble_up(self) -> Self {
            Lanes(self.0.map(|b| b << 4))
        }
        unsafe fn join_nibbles(high: Self, low: Self) -> Self {
            Lanes(std::array::from_fn(|i| {
                (high.0[i] & 0xf0) | (low.0[i] >> 4)
            }))
        }
    }

    #[test]
    fn green_network_sorts_every_zero_one_input() {
        // Zero-one principle: a comparator network that sorts all 2^16 inputs of 0s and 1s
        // sorts every input.
        for bits in 0u32..1 << 16 {
            let mut v: [u8; 16] = std::array::from_fn(|i| (bits >> i & 1) as u8);
            for &(lo, hi) in GREEN_16.iter() {
                let (a, b) = (v[lo], v[hi]);
                v[lo] = a.min(b);
                v[hi] = a.max(b);
            }
            assert!(v.windows(2).all(|w| w[0] <= w[1]), "input {bits:#06x}");
        }
    }

    #[test]
    fn green_network_has_60_comparators_in_10_layers() {
        assert_eq!(GREEN_16.len(), 60);
        // Greedy layering: a comparator starts a new layer when it touches a wire already
        // used in the current one.
        let mut layers = 1;
        let mut used = 0u16;
        for &(lo, hi) in GREEN_16.iter() {
            assert!(lo < hi && hi < 16);
            let wires = 1 << lo | 1 << hi;
            if used & wires != 0 {
                layers += 1;
                used = 0;
            }
            used |= wires;
        }
        assert_eq!(layers, 10);
    }

    #[test]
    fn sort16_matches_the_table() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..1000 {
            let mut v: [Lanes; 16] = std::array::from_fn(|_| {
                Lanes(std::array::from_fn(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                }))
            });
            let before = v;
            // SAFETY: `Lanes` is plain Rust.
            unsafe { sort16(&mut v) };
            for lane in 0..16 {
                let mut want: Vec<u8> = before.iter().map(|r| r.0[lane]).collect();
                want.sort_unstable();
                let got: Vec<u8> = v.iter().map(|r| r.0[lane]).collect();
                assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn interleave_rounds_transpose_and_seven_restore() {
        let mut rows: [Lanes; 8] =
            std::array::from_fn(|v| Lanes(std::array::from_fn(|i| (v * 16 + i) as u8)));
        let start = rows.map(|r| r.0);
        for _ in 0..4 {
            // SAFETY: `Lanes` is plain Rust.
            unsafe { interleave_round(&mut rows) };
        }
        // Vector k now holds byte k of each of the 16 words, each word in one lane.
        let mut words_seen = 0u16;
        for lane in 0..16 {
            let word = rows[0].0[lane] / 8;
            words_seen |= 1 << word;
            for (k, row) in rows.iter().enumerate() {
                assert_eq!(row.0[lane], word * 8 + k as u8);
            }
        }
        assert_eq!(words_seen, u16::MAX);
        for _ in 0..3 {
            // SAFETY: `Lanes` is plain Rust.
            unsafe { interleave_round(&mut rows) };
        }
        assert_eq!(rows.map(|r| r.0), start);
    }

    #[test]
    fn sort_block_matches_reference() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            let mut block: [u64; 16] = std::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            });
            let want = block.map(crate::nibble::reference);
            // SAFETY: `Lanes` is plain Rust and the block holds 16 words.
            unsafe { sort_block::<Lanes>(block.as_mut_ptr()) };
            assert_eq!(block, want);
        }
    }
}
