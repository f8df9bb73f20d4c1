#version 450
// variants: radix_scan:-DKEY64=0
//
// Reduce-then-scan, step 2 of a pass, as a dispatch of its own (pairs, and keys alone from
// 2^26 keys; below that the scatter's first workgroups do it): SCAN_GROUPS workgroups turn the
// partitions' counts into offsets (radix_partition_scan.glsl).
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64;
layout(constant_id = 2) const uint PARTITIONS = 1024;  // the plan's most partitions

layout(std430, binding = 4) coherent buffer State { uint st[]; };

shared uint s_scan[2u * MAX_SUBGROUPS + RADIX / SCAN_GROUPS];
#define SCAN_SHARED s_scan
#include "radix_partition_scan.glsl"

void main() {
    scan_partitions(gl_WorkGroupID.x, params.step);
}
