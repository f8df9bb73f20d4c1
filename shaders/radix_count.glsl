// Included by radix_histogram.comp and radix_upsweep.comp after their declarations of
// BATCH, src_keys[] and shared s_hist[DIGITS * RADIX]: digit counting in shared memory,
// and the partition walk of reduce-then-scan.

// The bits of the keys counted so far by this invocation: OR of the keys and of their
// complements (radix_histogram.comp publishes them; where nothing reads them they cost
// nothing).
KEY g_keys_or = KEY_ZERO;
KEY g_keys_nand = KEY_ZERO;

// The keys [first, end) of one batch: BATCH per invocation, strided by the workgroup (keys
// past `end` read as zero and are not counted by count_keys).
void load_keys(out KEY keys[BATCH], uint first, uint end) {
    [[unroll]] for (uint j = 0u; j < BATCH; j++) {
        const uint i = first + j * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
        keys[j] = i < end ? src_keys[i] : KEY_ZERO;
    }
}

// The 8 bits of `k` from `shift` on (a constant after unrolling), unmasked.
uint digit_bits(KEY k, uint shift) {
#if KEY64
    return (shift < 32u ? k.x >> shift : k.y >> (shift - 32u)) & 255u;
#else
    return (k >> shift) & 255u;
#endif
}

// One batch's keys counted into rows [0, R) of s_hist (row p: digit p from `shift`), the last
// row's digit ANDed with `top`. R is a constant in each expansion, so the counts of a key go
// out with no branch between them.
#define COUNT_BATCH(R, top)                                                                \
    [[unroll]] for (uint j = 0u; j < BATCH; j++) {                                         \
        if (first + j * gl_WorkGroupSize.x + gl_LocalInvocationIndex < end) {              \
            KEY key = encode ? encode_key(keys[j], KEY_MAP) : keys[j];                     \
            g_keys_or |= key;                                                              \
            g_keys_nand |= ~key;                                                           \
            [[unroll]] for (uint p = 0u; p < (R); p++) {                                   \
                const uint m = p + 1u == (R) ? (top) : 255u;                               \
                atomicAdd(s_hist[p * RADIX + (digit_bits(key, shift + p * 8u) & m)], 1u); \
            }                                                                              \
        }                                                                                  \
    }

// Counts the DIGITS digits (those below the end bit) from `shift` on of the batch load_keys(keys, first, end) loaded
// into s_hist (row p: digit p).
void count_keys(KEY keys[BATCH], uint first, uint end, bool encode, uint shift) {
    if (MASKED == 0u) {
        COUNT_BATCH(DIGITS, 255u)
        return;
    }
    // Digits at or above the end bit are never sorted by: not counted (they would all be
    // zero, every key's atomic on one word). The rows below it are a constant in each case
    // below: a test of the end bit per digit made the 16-bit histogram (two rows) slower than
    // the 32-bit one (four) on an H200, 36.6 against 29.9 us at 2^22 pairs.
    const uint rows = clamp((int(END_BIT) - int(shift) + 7) / 8, 1, int(DIGITS));
    const uint top = digit_mask(shift + (rows - 1u) * 8u);
    if (rows == 1u) {
        COUNT_BATCH(1u, top)
    } else if (rows == 2u) {
        COUNT_BATCH(2u, top)
    } else if (DIGITS >= 3u && rows == 3u) {
        COUNT_BATCH(3u, top)
    } else if (DIGITS >= 4u && rows == 4u) {
        COUNT_BATCH(4u, top)
#if KEY64
    } else if (rows == 5u) {
        COUNT_BATCH(5u, top)
    } else if (rows == 6u) {
        COUNT_BATCH(6u, top)
    } else if (rows == 7u) {
        COUNT_BATCH(7u, top)
    } else {
        COUNT_BATCH(8u, top)
#endif
    }
}

// Counts keys [first, end), striding by `stride`, with BATCH loads per invocation in flight:
// all BATCH loads are issued before the first count (one at a time left the histogram
// latency bound: 256 MiB took 0.16 ms, 1.6 TB/s, on an H200).
void count_digits(uint first, uint end, uint stride, bool encode, uint shift) {
    for (uint at = first; at < end; at += stride) {
        KEY keys[BATCH];
        load_keys(keys, at, end);
        count_keys(keys, at, end, encode, shift);
    }
}

// Reduce-then-scan: where chunk `chunk` (a batch: BATCH keys per invocation) of tile `tile`
// starts, and where the tile ends.
uint chunk_first(uint tile, uint chunk) {
    return tile * params.tile_keys + chunk * gl_WorkGroupSize.x * BATCH;
}

uint tile_end(uint tile, uint n) {
    return min((tile + 1u) * params.tile_keys, n);
}

// Reduce-then-scan: counts this workgroup's partition (`per` consecutive tiles) a tile at a
// time into s_hist (cleared by the caller, behind a barrier) and leaves, for the digit at
// `shift` (row 0), each tile's offset inside the partition (the partition's counts before
// it) in the tile's words of the second status slot and the partition's counts in its words
// of the first, and adds them to the pass's digit counts (ST_HIST), from which the scan
// takes the bucket offsets. It also zeroes the partition's offsets row of `step`, which the
// scan fills in next (partition_offset_index). The keys of each chunk are loaded while the
// chunk before is counted (one chunk at a time left each tile's loads waiting on the
// barriers between tiles: BENCHMARKS.md, "GPU radix tiles"). Called in uniform control flow.
void count_partition(uint n, uint per, bool encode, uint shift, uint step) {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    const uint tiles = (n + params.tile_keys - 1u) / params.tile_keys;
    const uint first_tile = gl_WorkGroupID.x * per;
    const uint end_tile = min(first_tile + per, tiles);
    const uint chunks = (params.tile_keys + wg * BATCH - 1u) / (wg * BATCH);
    KEY next[BATCH];
    if (first_tile < end_tile) load_keys(next, chunk_first(first_tile, 0u), tile_end(first_tile, n));
    uint tile = first_tile;
    uint chunk = 0u;
    while (tile < end_tile) {
        KEY keys[BATCH];
        [[unroll]] for (uint j = 0u; j < BATCH; j++) keys[j] = next[j];
        const bool last_chunk = chunk + 1u == chunks;
        const uint next_tile = last_chunk ? tile + 1u : tile;
        const uint next_chunk = last_chunk ? 0u : chunk + 1u;
        if (next_tile < end_tile) {
            load_keys(next, chunk_first(next_tile, next_chunk), tile_end(next_tile, n));
        }
        if (chunk == 0u) {
            for (uint d = tid; d < RADIX; d += wg) {
                st[ST_STATUS + params.slot_words + tile * RADIX + d] = s_hist[d];
            }
            barrier();
        }
        count_keys(keys, chunk_first(tile, chunk), tile_end(tile, n), encode, shift);
        if (last_chunk) barrier();
        tile = next_tile;
        chunk = next_chunk;
    }
    // Every partition's words are written (zeros too): nothing clears the slot between passes.
    if (first_tile < end_tile) {
        for (uint d = tid; d < RADIX; d += wg) {
            const uint c = s_hist[d];
            st[ST_STATUS + gl_WorkGroupID.x * RADIX + d] = c;
            st[partition_offset_index(step, gl_WorkGroupID.x, d)] = 0u;
            if (c != 0u) atomicAdd(st[ST_HIST + (shift / 8u) * RADIX + d], c);
        }
    }
}
