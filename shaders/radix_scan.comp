#version 450
// variants: radix_scan:-DKEY64=0
//
// Reduce-then-scan, step 2 of a pass: one workgroup per digit turns that digit's counts in
// every partition (written by radix_upsweep.comp) into the output index of the partition's
// first key with the digit: the digit's bucket offset plus the keys with the digit in all
// earlier partitions. Each invocation scans a run of consecutive partitions, after the runs'
// totals are scanned across the workgroup. The bucket offset is the sum of the pass's counts
// of the smaller digits (which the upsweeps added up in ST_HIST), unless the host gave it.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64;
layout(constant_id = 2) const uint PARTITIONS = 1024;  // the plan's most partitions

layout(std430, binding = 4) buffer State { uint st[]; };

shared uint s_sg_sum[MAX_SUBGROUPS];
shared uint s_sg_below[MAX_SUBGROUPS];  // keys with a smaller digit, per subgroup
#include "radix_subgroup_sums.glsl"

// Partitions per invocation: a fixed run, so that its loads are unrolled and in flight
// together, and held in registers between the two halves of the scan.
const uint PER = (PARTITIONS + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint d = gl_WorkGroupID.x;
    const uint partitions = st[ST_PARTITION + 1u];
    const uint pass = STEP_PASS(st[ST_FLAGS + params.step]);
    const bool given = st[ST_BUCKETS_GIVEN] == 1u;
    const uint given_bucket = st[ST_BUCKET + pass * RADIX + d];
    uint below = 0u;
    for (uint e = tid; e < d; e += gl_WorkGroupSize.x) below += st[ST_HIST + pass * RADIX + e];
    uint counts[PER];
    uint total = 0u;
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        const uint q = tid * PER + j;
        counts[j] = q < partitions ? st[ST_STATUS + q * RADIX + d] : 0u;
        total += counts[j];
    }
    const uint before = subgroupExclusiveAdd(total);
    const uint sg_total = subgroupAdd(total);
    const uint sg_below = subgroupAdd(below);
    if (subgroupElect()) {
        s_sg_sum[gl_SubgroupID] = sg_total;
        s_sg_below[gl_SubgroupID] = sg_below;
    }
    barrier();
    scan_subgroup_sums();
    barrier();
    uint bucket = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; s++) bucket += s_sg_below[s];
    if (given) bucket = given_bucket;
    uint run = bucket + s_sg_sum[gl_SubgroupID] + before;
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        const uint q = tid * PER + j;
        if (q < partitions) st[ST_STATUS + q * RADIX + d] = run;
        run += counts[j];
    }
}
