#version 450
// Loads the caller's element count (`Count::Buffer`) into the state's count word, where every
// pass of the sort reads it. A dispatch reading a storage binding rather than a copy command:
// the count buffer then needs only the storage usage that the caller's own compute pass,
// which wrote the count, already gave it (a copy would need TRANSFER_SRC). The state clamps
// nothing: every pass clamps the count to the capacity (KEY_COUNT in radix_common.glsl).
#extension GL_GOOGLE_include_directive : require
#include "radix_common.glsl"

layout(local_size_x = 1) in;

layout(std430, binding = 0) readonly buffer CallerCount { uint caller_count; };
layout(std430, binding = 4) writeonly buffer State { uint st[]; };

void main() {
    // `params.capacity` is read (and is the largest count any pass takes) so that this
    // pipeline's layout has the push constants every radix pipeline is bound with.
    st[ST_COUNT] = min(caller_count, params.capacity);
}
