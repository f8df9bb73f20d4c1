#version 450
// variants: radix_scan:-DKEY64=0
//
// Reduce-then-scan, step 2 of a pass: one workgroup per digit turns that digit's counts in
// every partition (written by radix_upsweep.comp) into the output index of the partition's
// first key with the digit: the digit's bucket offset plus the keys with the digit in all
// earlier partitions. Each invocation scans a run of consecutive partitions, after the runs'
// totals are scanned across the workgroup.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64;

layout(std430, binding = 4) buffer State { uint st[]; };

shared uint s_sg_sum[MAX_SUBGROUPS];
#include "radix_subgroup_sums.glsl"

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    const uint d = gl_WorkGroupID.x;
    const uint partitions = st[ST_PARTITION + 1u];
    const uint per = (partitions + wg - 1u) / wg;
    const uint first = tid * per;
    const uint end = min(first + per, partitions);
    uint total = 0u;
    for (uint q = first; q < end; q++) total += st[ST_STATUS + q * RADIX + d];
    const uint before = subgroupExclusiveAdd(total);
    const uint sg_total = subgroupAdd(total);
    if (subgroupElect()) s_sg_sum[gl_SubgroupID] = sg_total;
    barrier();
    scan_subgroup_sums();
    barrier();
    uint run = st[ST_BUCKET + params.pass_index * RADIX + d] + s_sg_sum[gl_SubgroupID] + before;
    for (uint q = first; q < end; q++) {
        const uint at = ST_STATUS + q * RADIX + d;
        const uint count = st[at];
        st[at] = run;
        run += count;
    }
}
