#version 450
// variants: radix_histogram_k32:-DKEY64=0 radix_histogram_k64:-DKEY64=1
//
// The upfront pass: counts the keys per digit value for every pass at once (Onesweep's
// global histogram), so each later pass reads its digit's bucket offsets instead of making a
// counting sweep of its own. Counts go to shared memory first, then once per workgroup and
// digit into the state buffer. The key map is applied in registers: digits are those of the
// order-preserving image.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BATCH = 8;  // keys per invocation loaded before counting

layout(std430, binding = 0) readonly buffer SrcKeys { KEY src_keys[]; };
layout(std430, binding = 4) buffer State { uint st[]; };

shared uint s_hist[PASSES * RADIX];

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    for (uint i = tid; i < PASSES * RADIX; i += wg) s_hist[i] = 0u;
    barrier();
    const uint n = min(st[ST_COUNT], params.capacity);
    // Blocks of BATCH keys per invocation: all BATCH loads are issued before the first
    // count, so each invocation keeps BATCH loads in flight (one at a time left the pass
    // latency bound: 256 MiB took 0.16 ms, 1.6 TB/s, on an H200).
    const uint block = wg * BATCH;
    const uint stride = gl_NumWorkGroups.x * block;
    for (uint at = gl_WorkGroupID.x * block; at < n; at += stride) {
        KEY keys[BATCH];
        [[unroll]] for (uint j = 0u; j < BATCH; j++) {
            uint i = at + j * wg + tid;
            keys[j] = i < n ? src_keys[i] : KEY_ZERO;
        }
        [[unroll]] for (uint j = 0u; j < BATCH; j++) {
            if (at + j * wg + tid < n) {
                KEY key = encode_key(keys[j], params.map);
                for (uint p = 0u; p < PASSES; p++) {
                    atomicAdd(s_hist[p * RADIX + digit_of(key, p * 8u)], 1u);
                }
            }
        }
    }
    barrier();
    for (uint i = tid; i < PASSES * RADIX; i += wg) {
        uint c = s_hist[i];
        if (c != 0u) atomicAdd(st[ST_HIST + i], c);
    }
}
