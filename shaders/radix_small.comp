#version 450
// variants: radix_small_k32:-DKEY64=0,-DPAIRS=0 radix_small_p32:-DKEY64=0,-DPAIRS=1
//
// Sorts of at most SIZE 32-bit keys (with or without values) in one workgroup, in one
// dispatch: the multi-pass sort's chain of dispatches (clear, histogram, plan, a scatter per
// pass, copy) costs about 40 us on an H200 before any key is sorted. Each key's sort word
// (its mapped bits below the end bit) and its index go to shared memory, a bitonic network
// sorts the (word, index) pairs, so keys with equal words keep their input order (stable),
// and the keys and values are then gathered by index and written back in place: every
// invocation reads its elements before any writes (one workgroup, one barrier between).
#extension GL_GOOGLE_include_directive : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SIZE = 4096;  // a power of two; shared memory: 8 x SIZE bytes

layout(std430, binding = 0) buffer Keys { uint keys[]; };
#if PAIRS
layout(std430, binding = 2) buffer Vals { uint vals[]; };
#endif
layout(std430, binding = 4) readonly buffer State { uint st[]; };

shared uint s_word[SIZE];
shared uint s_index[SIZE];

// The element count: from the push constant (`step`), or where that is ~0 from the state
// (copied there from the caller's count buffer); clamped to the buffers and to SIZE.
uint element_count() {
    const uint n = params.step == ~0u ? st[ST_COUNT] : params.step;
    return min(min(n, params.capacity), SIZE);
}

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    const uint n = element_count();
    if (n < 2u) return;
    // The network spans the next power of two; padding sorts after every key (index ~0).
    uint width = 2u;
    while (width < n) width <<= 1u;
    const uint mask = END_BIT >= 32u ? ~0u : (1u << END_BIT) - 1u;
    const bool encode = KEY_MAP != MAP_UNSIGNED;
    for (uint i = tid; i < width; i += wg) {
        const bool real = i < n;
        s_word[i] = real ? (encode ? encode_key(keys[i], KEY_MAP) : keys[i]) & mask : ~0u;
        s_index[i] = real ? i : ~0u;
    }
    barrier();
    for (uint k = 2u; k <= width; k <<= 1u) {
        for (uint j = k >> 1u; j > 0u; j >>= 1u) {
            for (uint i = tid; i < width; i += wg) {
                const uint l = i ^ j;
                if (l > i) {
                    const uint wi = s_word[i], wl = s_word[l];
                    const uint ii = s_index[i], il = s_index[l];
                    const bool greater = wi > wl || (wi == wl && ii > il);
                    if (greater == ((i & k) == 0u)) {
                        s_word[i] = wl;
                        s_word[l] = wi;
                        s_index[i] = il;
                        s_index[l] = ii;
                    }
                }
            }
            barrier();
        }
    }
    // Gather by index (reads of the whole input), then write in place once all have read;
    // the values after the keys, through the same shared words.
    for (uint c = 0u; c * wg < n; c++) {
        const uint i = c * wg + tid;
        if (i < n) s_word[i] = keys[s_index[i]];
    }
    barrier();
    for (uint c = 0u; c * wg < n; c++) {
        const uint i = c * wg + tid;
        if (i < n) keys[i] = s_word[i];
    }
#if PAIRS
    barrier();
    for (uint c = 0u; c * wg < n; c++) {
        const uint i = c * wg + tid;
        if (i < n) s_word[i] = vals[s_index[i]];
    }
    barrier();
    for (uint c = 0u; c * wg < n; c++) {
        const uint i = c * wg + tid;
        if (i < n) vals[i] = s_word[i];
    }
#endif
}
