#version 450
// Reduce-then-scan, the last step of a sort: zeroes the state's words before the status
// slots (the histogram's accumulators, which the next sort expects zero) and sets the count
// word to the push constants' step. A compute dispatch rather than a fill of the buffer: the
// transfer commands cost more than this (BENCHMARKS.md, "GPU radix tiles").
#extension GL_GOOGLE_include_directive : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 4) writeonly buffer State { uint st[]; };

void main() {
    for (uint i = gl_LocalInvocationIndex; i < ST_STATUS; i += gl_WorkGroupSize.x) {
        st[i] = i == ST_COUNT ? params.step : 0u;
    }
}
