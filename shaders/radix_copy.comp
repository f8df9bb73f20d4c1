#version 450
// variants: radix_copy_k32:-DKEY64=0,-DPAIRS=0 radix_copy_k64:-DKEY64=1,-DPAIRS=0 radix_copy_p32:-DKEY64=0,-DPAIRS=1 radix_copy_p64:-DKEY64=1,-DPAIRS=1
//
// Brings the result back from the scratch buffer B to the caller's buffer A when an odd
// number of passes ran (the plan sizes its indirect dispatch; zero workgroups otherwise).
// Bound with the B->A descriptor set of the passes: binding 0 is B, binding 1 is A.
#extension GL_GOOGLE_include_directive : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer SrcKeys { KEY src_keys[]; };
layout(std430, binding = 1) writeonly buffer DstKeys { KEY dst_keys[]; };
#if PAIRS
layout(std430, binding = 2) readonly buffer SrcVals { uint src_vals[]; };
layout(std430, binding = 3) writeonly buffer DstVals { uint dst_vals[]; };
#endif
layout(std430, binding = 4) readonly buffer State { uint st[]; };

void main() {
    const uint n = KEY_COUNT();
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
        dst_keys[i] = src_keys[i];
#if PAIRS
        dst_vals[i] = src_vals[i];
#endif
    }
}
