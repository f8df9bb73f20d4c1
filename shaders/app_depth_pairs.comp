#version 450
// Not part of the sort: the compute pass of the example application (examples/gpu_app.rs,
// also run by tests/gpu_caller.rs) that makes the (depth, index) pairs a renderer would sort.
// Each invocation is one splat; the splats a cull test keeps are appended through an atomic
// counter, so only the GPU knows how many there are (the sort reads that count).
//
// Key: the depth in the low 16 bits, other data of the splat in the high 16 (carried along,
// not sorted by: the sort takes key_bits = 16). Value: the splat's index.

layout(local_size_x = 64) in;

layout(std430, binding = 0) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Values { uint values[]; };
layout(std430, binding = 2) buffer Count { uint count; };

layout(push_constant) uniform Params {
    uint splats;
    uint seed;
} params;

// A 32-bit integer hash (lowbias32), the same as the application's host-side check.
uint hash(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= params.splats) return;
    const uint h = hash(i ^ params.seed);
    if ((h & 3u) == 0u) return;  // culled: about a quarter of the splats
    const uint slot = atomicAdd(count, 1u);
    keys[slot] = (i << 16) | ((h >> 8) & 0xFFFFu);
    values[slot] = i;
}
