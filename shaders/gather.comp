#version 450
// Copies runs of 32-bit words from one buffer to another (a gather): the grouped host path
// of vulkan-radix collects each group's keys from the upload pieces with it. Word offsets,
// so unlike a storage-buffer binding no run needs any alignment. (vkCmdCopyBuffer with the
// same regions ran at about 100 GB/s on an H200, as a copy-engine copy: this kernel moves
// words at the SMs' bandwidth.)
//
// Workgroup (x, y) copies chunk x (CHUNK words, each invocation every WG-th word, so that a
// subgroup's loads and stores are contiguous) of run y; chunks past a run's end do nothing.

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CHUNK = 4096;  // words per workgroup

layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };
// Per run: source word offset, destination word offset, words.
layout(std430, binding = 2) readonly buffer Runs { uvec4 runs[]; };

void main() {
    const uvec4 run = runs[gl_WorkGroupID.y];
    const uint first = gl_WorkGroupID.x * CHUNK;
    if (first >= run.z) return;
    const uint end = min(first + CHUNK, run.z);
    for (uint i = first + gl_LocalInvocationID.x; i < end; i += gl_WorkGroupSize.x) {
        dst[run.y + i] = src[run.x + i];
    }
}
