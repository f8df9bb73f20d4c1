#version 450
// variants: radix_upsweep_k32:-DKEY64=0 radix_upsweep_k64:-DKEY64=1
//
// Reduce-then-scan, step 1 of a pass: each workgroup counts the digits of one partition (a
// run of consecutive tiles, ST_PARTITION tiles long) into the partition's 256 words of the
// state's first status slot. radix_scan.comp then turns the counts into output offsets and
// radix_scatter.comp (REDUCE_SCAN = 1) sorts the partition's tiles in order from them, so no
// tile waits for another: the price of the look-back's waits is one more read of the keys.
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
    for (uint d = tid; d < RADIX; d += wg) s_hist[d] = 0u;
    barrier();
    const uint n = min(st[ST_COUNT], params.capacity);
    const bool encode = (st[ST_FLAGS + params.pass_index] & 1u) != 0u;
    const uint shift = params.pass_index * 8u;
    const uint partition_keys = st[ST_PARTITION] * params.tile_keys;
    const uint first = gl_WorkGroupID.x * partition_keys;
    const uint end = min(first + partition_keys, n);
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
    // Every word is written (zeros too): nothing clears this slot between passes.
    for (uint d = tid; d < RADIX; d += wg) {
        st[ST_STATUS + gl_WorkGroupID.x * RADIX + d] = s_hist[d];
    }
}
