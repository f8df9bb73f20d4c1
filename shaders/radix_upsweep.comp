#version 450
// variants: radix_upsweep_k32:-DKEY64=0 radix_upsweep_k64:-DKEY64=1
//
// Reduce-then-scan, step 1 of a pass: each workgroup counts the digits of one partition (a
// run of ST_PARTITION consecutive tiles), one tile at a time. It leaves each tile's offset
// inside the partition (the counts of the partition's earlier tiles) in the tile's words of
// the second status slot, and the partition's counts in its words of the first.
// radix_scan.comp then turns the partitions' counts into offsets, and radix_scatter.comp
// (REDUCE_SCAN = 1) adds the two: no tile waits for another, for one more read of the keys.
// (Tiles taken in order by one workgroup per partition, instead of one workgroup per tile,
// made the scatter slower: BENCHMARKS.md, run 22.)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BATCH = 8;  // keys per invocation loaded before counting

layout(std430, binding = 0) readonly buffer SrcKeys { KEY src_keys[]; };
layout(std430, binding = 4) buffer State { uint st[]; };

shared uint s_hist[RADIX];

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    const uint n = min(st[ST_COUNT], params.capacity);
    const bool encode = (st[ST_FLAGS + params.pass_index] & 1u) != 0u;
    const uint shift = params.pass_index * 8u;
    const uint per = st[ST_PARTITION];
    const uint first_tile = gl_WorkGroupID.x * per;
    const uint end_tile = min(first_tile + per, (n + params.tile_keys - 1u) / params.tile_keys);
    // Digits tid, tid + wg, ...: the partition's counts so far (the same invocation clears,
    // reads and carries each digit, so only the barriers around the counting are needed).
    const uint DIGITS = (RADIX + 63u) / 64u;  // per invocation with the smallest workgroup, 64
    uint run[DIGITS];
    [[unroll]] for (uint j = 0u; j < DIGITS; j++) run[j] = 0u;
    for (uint tile = first_tile; tile < end_tile; tile++) {
        for (uint d = tid; d < RADIX; d += wg) s_hist[d] = 0u;
        barrier();
        const uint first = tile * params.tile_keys;
        const uint end = min(first + params.tile_keys, n);
        // BATCH loads in flight per invocation before the first count (as radix_histogram.comp).
        for (uint at = first; at < end; at += wg * BATCH) {
            KEY keys[BATCH];
            [[unroll]] for (uint j = 0u; j < BATCH; j++) {
                uint i = at + j * wg + tid;
                keys[j] = i < end ? src_keys[i] : KEY_ZERO;
            }
            [[unroll]] for (uint j = 0u; j < BATCH; j++) {
                if (at + j * wg + tid < end) {
                    KEY key = encode ? encode_key(keys[j], params.map) : keys[j];
                    atomicAdd(s_hist[digit_of(key, shift)], 1u);
                }
            }
        }
        barrier();
        [[unroll]] for (uint j = 0u; j < DIGITS; j++) {
            const uint d = tid + j * wg;
            if (d < RADIX) {
                st[ST_STATUS + params.slot_words + tile * RADIX + d] = run[j];
                run[j] += s_hist[d];
            }
        }
    }
    // Every partition word is written (zeros too): nothing clears this slot between passes.
    [[unroll]] for (uint j = 0u; j < DIGITS; j++) {
        const uint d = tid + j * wg;
        if (d < RADIX) st[ST_STATUS + gl_WorkGroupID.x * RADIX + d] = run[j];
    }
}
