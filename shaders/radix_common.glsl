// Shared by the radix_*.comp shaders: the layout of the state buffer (mirrored by
// src/gpu/radix/plan.rs, whose unit test reads this file so the two cannot drift apart), the
// key type of the variant being compiled, and the order-preserving key maps (the GPU twin of
// src/keys/key.rs).
//
// Variants are chosen with -DKEY64=0|1 and -DPAIRS=0|1 (see the `// variants:` lines).

#ifndef KEY64
#define KEY64 0
#endif
#ifndef PAIRS
#define PAIRS 0
#endif

// ---- state buffer layout, in u32 words -------------------------------------------------
#define ST_COUNT 0u          // number of keys to sort where the GPU holds it (copied from the caller's count buffer)
#define ST_PARTITION 1u      // [2]   reduce-then-scan: tiles per partition, partitions (set by the plan)
#define ST_TICKET 3u         // histogram workgroups finished (the last one plans, and sets it back to 0)
#define ST_KEYS_OR 4u        // [2]   OR of every (mapped) key, low word first: with ST_KEYS_NAND,
#define ST_KEYS_NAND 6u      // [2]   OR of every key's complement: the digits that vary
#define ST_BUCKETS_GIVEN 8u  // 1: the host wrote a pass's bucket offsets (the scan takes them; no shipped path does)
#define ST_TILE_COUNTER 16u  // [8]   reserved (per-step tile counters; no shipped scatter uses them)
#define ST_FLAGS 32u         // [8]   per step (see STEP_PASS): bit 0 encode on read, bit 1 decode on write, bit 2 look-back slot, bit 3 runs (FLAG_RUNS)
#define ST_LB_STATS 64u      // [8][4] reserved (per-step look-back statistics; none written)
#define ST_BUCKET 128u       // [8][256] first output index of each digit of each pass
#define ST_HIST 2176u        // [8][256] digit counts of each pass (the upfront histogram; by
                             // reduce-then-scan pass 0's and then each upsweep's own); zero
                             // between sorts, like KEYS_OR, KEYS_NAND and TICKET (radix_plan.glsl)
#define ST_STATUS 4224u      // [2][tiles][256] look-back words: 2-bit flag, 30-bit count
                             // (reduce-then-scan: [partitions][256] counts in slot 0, tile
                             // offsets inside their partition in slot 1), then, after the two
                             // slots, reduce-then-scan's partition offsets: [partitions][2][256]

// ---- indirect buffer (binding 5, written by the plan only: vulkano would see a conflict if a
// dispatch read its own size from a buffer range that the same dispatch may write) ----------
#define IND_PASS 0u      // [8][3] dispatch size of each step's scatter
#define IND_COPY 24u     // [3] dispatch size of the final B->A copy (zero when the step count is even)
#define IND_UPSWEEP 27u  // [8][3] reduce-then-scan: the upsweep of each step
#define IND_SCAN 51u     // [8][3] reduce-then-scan: the scan of each step
#define IND_WORDS 75u

// Steps: the passes that run, in order. Step k reads A and writes B when k is even, the
// other way when odd, so the host records one dispatch per step and stage with the buffers
// bound in that order, while only the plan knows which passes run: it writes each step's
// pass (its digit) into the step's flags (FLAG_RUNS below marks the steps that run) and, by
// reduce-then-scan, each step's dispatch sizes, zero for the steps past the last (look-back
// steps are direct dispatches: an indirect one cost 2.3-2.8 us more a pass on an H200).
// (Recording every pass in both directions, the plan sizing one to zero workgroups, cost an
// empty dispatch and its barrier per pass and stage, 4-8 us each on an H200; choosing the
// buffers in the shader by a flag made the scatter 10-60% slower: BENCHMARKS.md, "GPU radix tiles".)
#define STEP_PASS(flags) (((flags) >> 8) & 7u)
// Set in the flags of every step that runs. A step the host dispatched directly (a count
// known when recording: its tiles, not the plan's size) that finds it unset has no pass to
// sort by, and its workgroups leave at once.
#define FLAG_RUNS 8u

#define FLAG_AGGREGATE (1u << 30)
#define FLAG_PREFIX (2u << 30)
#define VALUE_MASK ((1u << 30) - 1u)

#define RADIX 256u
// Reduce-then-scan: the workgroups that scan the partitions' counts, two digits each.
#define SCAN_GROUPS 128u
// Reduce-then-scan: set in every partition offset the scan wrote (partition_offset_index);
// offsets are below 2^30 (radix::plan::LOOKBACK_COUNT_LIMIT).
#define OFFSET_READY (1u << 31)

// Reduce-then-scan: tiles per partition, so that at most `most` partitions cover `tiles`.
uint partition_tiles(uint tiles, uint most) {
    return max((tiles + most - 1u) / most, 1u);
}
// Every radix pipeline shares one layout: bindings 0..3 keys/values in and out, 4 state,
// 5 indirect dispatch sizes.
// Push constants: the step, the key map, the look-back slot stride in words, keys per tile,
// and the capacity of the bound buffers in keys (a count read from the GPU is clamped to it,
// so no count can make a shader reach past its buffers).
layout(push_constant) uniform Params {
    uint step;  // the plan: the mask of the passes it may run
    uint map;   // the key map (low byte) and the end bit: digits see only the key's bits below it
    uint slot_words;
    uint tile_keys;
    uint capacity;
} params;

#define KEY_MAP (params.map & 255u)
#define END_BIT ((params.map >> 8u) & 255u)
// Bit 16 of `map`: the host knows the count and passes it as the capacity, so no dispatch
// sets the state's count word (only copies of a caller's count buffer write it).
#define COUNT_KNOWN ((params.map >> 16u) & 1u)
// The keys to sort (where the state is bound as st[]).
#define KEY_COUNT() (COUNT_KNOWN == 1u ? params.capacity : min(st[ST_COUNT], params.capacity))

// 1 in the pipelines of sorts by fewer bits than the key has (SortJob::key_bits): only they
// mask digits, since the mask in every sort cost 2-10% on an H200 (BENCHMARKS.md, "GPU radix
// sort").
layout(constant_id = 30) const uint MASKED = 0u;

// The bits of the digit at `shift` that lie below the sort's end bit (CUB's end_bit): a sort
// by the low B bits masks its last digit, and its passes past B do not run (the plan's mask).
uint digit_mask(uint shift) {
    return MASKED == 0u ? 255u : (1u << uint(clamp(int(END_BIT) - int(shift), 0, 8))) - 1u;
}

#define MAP_UNSIGNED 0u
#define MAP_SIGNED 1u
#define MAP_FLOAT 2u

#if KEY64
#define KEY uvec2
#define KEY_WORDS 2u
#define PASSES 8u
#define KEY_ZERO uvec2(0u)
#define KEY_ONES uvec2(~0u)

uint digit_of(uvec2 k, uint shift) {
    return (shift < 32u ? k.x >> shift : k.y >> (shift - 32u)) & digit_mask(shift);
}

uvec2 encode_key(uvec2 k, uint map) {
    if (map == MAP_SIGNED) {
        k.y ^= 0x80000000u;
    } else if (map == MAP_FLOAT) {
        uint neg = uint(int(k.y) >> 31);
        k ^= uvec2(neg, neg | 0x80000000u);
    }
    return k;
}

uvec2 decode_key(uvec2 k, uint map) {
    if (map == MAP_SIGNED) {
        k.y ^= 0x80000000u;
    } else if (map == MAP_FLOAT) {
        uint neg = uint(~(int(k.y) >> 31));
        k ^= uvec2(neg, neg | 0x80000000u);
    }
    return k;
}
#else
#define KEY uint
#define KEY_WORDS 1u
#define PASSES 4u
#define KEY_ZERO 0u
#define KEY_ONES (~0u)

uint digit_of(uint k, uint shift) {
    return (k >> shift) & digit_mask(shift);
}

uint encode_key(uint k, uint map) {
    if (map == MAP_SIGNED) {
        k ^= 0x80000000u;
    } else if (map == MAP_FLOAT) {
        k ^= uint(int(k) >> 31) | 0x80000000u;
    }
    return k;
}

uint decode_key(uint k, uint map) {
    if (map == MAP_SIGNED) {
        k ^= 0x80000000u;
    } else if (map == MAP_FLOAT) {
        k ^= uint(~(int(k) >> 31)) | 0x80000000u;
    }
    return k;
}
#endif


// Reduce-then-scan: the word of a partition's offset of digit d in the step's pass
// (radix_partition_scan.glsl). Steps alternate between two rows per partition: the upsweep
// (or the histogram) of a step zeroes its row, which the step before last read, before the
// scan fills it in, each word with OFFSET_READY set, so that a tile waiting for its offsets
// needs no other signal (nor the fence a separate one would need).
uint partition_offset_index(uint step, uint part, uint d) {
    return ST_STATUS + 2u * params.slot_words + (part * 2u + (step & 1u)) * RADIX + d;
}
