#version 450
// A plain device-to-device copy, 16 bytes per load and store: the bandwidth yardstick the
// GPU benchmarks compare the sorts against, and the context's smoke test.

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Params {
    uint count;       // uvec4 elements to copy
    uint groups_x;    // workgroups per row of the 2-D dispatch
} params;

void main() {
    uint group = gl_WorkGroupID.y * params.groups_x + gl_WorkGroupID.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i < params.count) {
        dst[i] = src[i];
    }
}
