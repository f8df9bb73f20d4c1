#version 450
// variants: bitonic_global_u32: bitonic_global_u32_pairs:-DPAIRS bitonic_global_u64:-DKEY64 bitonic_global_u64_pairs:-DKEY64,-DPAIRS
//
// The write-up's big_flip and big_disperse, fused: one thread holds 2^M keys in registers
// and runs M consecutive steps of one merge on them, bits params.h down to params.h - M + 1
// (the pairs of those steps never leave the thread's keys). With FLAG_FLIP the top step is
// the merge's flip: the thread's lower keys sit at q + x + c*s, its upper keys at the
// mirrored offset q + (s - 1 - x) + c*s, so the flip pairs slot c with slot 2^M - 1 - c and
// the disperse steps below pair slot c with c + 2^r, as without the flip.
// Indices at or past n are virtual maximal keys (see bitonic_local.comp).

#include "bitonic_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint M = 2;   // fused steps; 2^M keys per thread

KEY k[1u << M];
#ifdef PAIRS
uint v[1u << M];
#endif

void cmpxchg(uint a, uint b) {
    if (key_less(k[b], k[a])) {
        KEY t = k[a]; k[a] = k[b]; k[b] = t;
#ifdef PAIRS
        uint u = v[a]; v[a] = v[b]; v[b] = u;
#endif
    }
}

void main() {
    uint g = flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint lo = params.h + 1u - M;          // lowest bit of the fused steps
    uint s = 1u << lo;                    // slot stride
    uint x = g & (s - 1u);
    uint q = (g >> lo) << (params.h + 1u);
    if (g >= params.groups * gl_WorkGroupSize.x || q + x >= params.n) {
        return;  // every index of this thread is virtual: nothing moves
    }
    const uint SLOTS = 1u << M;
    bool flip = (params.flags & FLAG_FLIP) != 0u;
    uint upper = flip ? (s - 1u - x) : x;  // offset of the upper half's slots
    for (uint c = 0u; c < SLOTS; ++c) {
        uint i = q + (c < SLOTS / 2u ? x : upper) + c * s;
        k[c] = i < params.n ? keys[i] : KEY_MAX;
#ifdef PAIRS
        v[c] = i < params.n ? values[i] : 0u;
#endif
    }
    uint r = M;
    if (flip) {
        for (uint c = 0u; c < SLOTS / 2u; ++c) {
            cmpxchg(c, SLOTS - 1u - c);
        }
        r = M - 1u;
    }
    for (; r > 0u; --r) {
        uint d = 1u << (r - 1u);
        for (uint c = 0u; c < SLOTS; ++c) {
            if ((c & d) == 0u) cmpxchg(c, c | d);
        }
    }
    for (uint c = 0u; c < SLOTS; ++c) {
        uint i = q + (c < SLOTS / 2u ? x : upper) + c * s;
        if (i < params.n) {
            keys[i] = k[c];
#ifdef PAIRS
            values[i] = v[c];
#endif
        }
    }
}
