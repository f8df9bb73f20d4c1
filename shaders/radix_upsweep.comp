#version 450
// variants: radix_upsweep_k32:-DKEY64=0 radix_upsweep_k64:-DKEY64=1
//
// Reduce-then-scan, step 1 of a pass: each workgroup counts the pass's digit in one
// partition (a run of ST_PARTITION consecutive tiles), one tile at a time, leaving each
// tile's offset inside the partition and the partition's counts in the state
// (count_partition in radix_count.glsl, shared with the histogram, which does this for
// pass 0).
// The scan (radix_partition_scan.glsl) then turns the partitions' counts into offsets, and
// radix_scatter.comp (REDUCE_SCAN = 1) adds the two: no tile waits for another, for one more
// read of the keys.
// (Tiles taken in order by one workgroup per partition, instead of one workgroup per tile,
// made the scatter slower: BENCHMARKS.md, "GPU radix tiles".)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BATCH = 8;  // keys per invocation loaded before counting

layout(std430, binding = 0) readonly buffer SrcKeys { KEY src_keys[]; };
layout(std430, binding = 4) buffer State { uint st[]; };

shared uint s_hist[RADIX];

const uint DIGITS = 1u;
#include "radix_count.glsl"

void main() {
    const uint tid = gl_LocalInvocationIndex;
    for (uint d = tid; d < RADIX; d += gl_WorkGroupSize.x) s_hist[d] = 0u;
    barrier();
    const uint n = KEY_COUNT();
    const uint flags = st[ST_FLAGS + params.step];
    count_partition(n, st[ST_PARTITION], (flags & 1u) != 0u, STEP_PASS(flags) * 8u, params.step);
}
