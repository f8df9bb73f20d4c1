#version 450
// variants: bitonic_local_u32: bitonic_local_u32_pairs:-DPAIRS bitonic_local_u64:-DKEY64 bitonic_local_u64_pairs:-DKEY64,-DPAIRS
//
// The write-up's two shared-memory kernels, on one tile of TILE = WG * E elements per
// workgroup (E elements per thread):
// - local_bms (no FLAG_DISPERSE): the whole bitonic network for merge heights 2..params.h,
//   flip then disperse cascade, sorting each tile ascending;
// - local_disperse (FLAG_DISPERSE): the disperse cascade from height TILE down to 2, the
//   tail of every merge whose upper steps ran in global memory. Its pairs at strides of a
//   workgroup or more join a thread's own keys (thread t holds tile indices e * WG + t),
//   and so do those below E once every thread holds E consecutive keys: both ends run in
//   registers, only the strides in between go through shared memory.
// Shared memory is padded by one slot per 32 (index i lives at i + i / 32) so that threads
// reading E consecutive keys hit different banks.
// Flip pairs (q + t, q + h - 1 - t), disperse pairs (q + t, q + t + h/2), q the block start;
// every comparator puts the smaller key at the lower index, so indices at or past n can be
// virtual maximal keys: they are never stored and no real key moves there.

#include "bitonic_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint E = 8;        // elements per thread (even)
layout(constant_id = 2) const uint TILE = 2048;  // WG * E, a power of two

shared KEY sh_keys[TILE + TILE / 32u];
#ifdef PAIRS
shared uint sh_values[TILE + TILE / 32u];
#endif

uint pad(uint i) { return i + (i >> 5); }

void cmpxchg(uint a, uint b) {
    a = pad(a);
    b = pad(b);
    KEY x = sh_keys[a];
    KEY y = sh_keys[b];
    if (key_less(y, x)) {
        sh_keys[a] = y;
        sh_keys[b] = x;
#ifdef PAIRS
        uint v = sh_values[a];
        sh_values[a] = sh_values[b];
        sh_values[b] = v;
#endif
    }
}

// A thread's own keys, for the register phases of local_disperse.
KEY r[E];
#ifdef PAIRS
uint rv[E];
#endif

void cmpxchg_reg(uint a, uint b) {
    if (key_less(r[b], r[a])) {
        KEY t = r[a]; r[a] = r[b]; r[b] = t;
#ifdef PAIRS
        uint u = rv[a]; rv[a] = rv[b]; rv[b] = u;
#endif
    }
}

// Disperse steps on the thread's own keys: slot strides E/2 down to 1.
void disperse_registers() {
    for (uint d = E / 2u; d > 0u; d >>= 1) {
        for (uint e = 0u; e < E; ++e) {
            if ((e & d) == 0u) cmpxchg_reg(e, e | d);
        }
    }
}

// Heights are powers of two: block starts and offsets are masks and shifts, not divisions
// (integer division by a run-time value costs tens of instructions on GPUs).
void flip(uint h) {
    uint low = (h >> 1) - 1u;  // offset within the lower half of a block
    for (uint p = 0u; p < E / 2u; ++p) {
        uint j = p * gl_WorkGroupSize.x + gl_LocalInvocationID.x;  // pair index in the tile
        uint q = (j & ~low) << 1;  // block start
        uint t = j & low;
        cmpxchg(q + t, q + h - 1u - t);
    }
}

void disperse(uint h) {
    uint low = (h >> 1) - 1u;
    for (uint p = 0u; p < E / 2u; ++p) {
        uint j = p * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        uint a = j + (j & ~low);  // ((j / half) * h) + j % half
        cmpxchg(a, a + low + 1u);
    }
}

void local_disperse(uint base) {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    // Strides TILE/2 .. WG: keys e * WG + lid, loaded straight from memory (coalesced).
    for (uint e = 0u; e < E; ++e) {
        uint gi = base + e * wg + lid;
        r[e] = gi < params.n ? keys[gi] : KEY_MAX;
#ifdef PAIRS
        rv[e] = gi < params.n ? values[gi] : 0u;
#endif
    }
    disperse_registers();
    for (uint e = 0u; e < E; ++e) {
        uint li = pad(e * wg + lid);
        sh_keys[li] = r[e];
#ifdef PAIRS
        sh_values[li] = rv[e];
#endif
    }
    // Strides WG/2 .. E in shared memory.
    for (uint hh = wg; hh > E; hh >>= 1) {
        barrier();
        disperse(hh);
    }
    barrier();
    // Strides E/2 .. 1: keys lid * E + e.
    for (uint e = 0u; e < E; ++e) {
        uint li = pad(lid * E + e);
        r[e] = sh_keys[li];
#ifdef PAIRS
        rv[e] = sh_values[li];
#endif
    }
    disperse_registers();
    // Back through shared memory, so that the stores to memory are coalesced.
    barrier();
    for (uint e = 0u; e < E; ++e) {
        uint li = pad(lid * E + e);
        sh_keys[li] = r[e];
#ifdef PAIRS
        sh_values[li] = rv[e];
#endif
    }
    barrier();
    bool decode = (params.flags & FLAG_DECODE) != 0u;
    for (uint e = 0u; e < E; ++e) {
        uint li = e * wg + lid;
        uint gi = base + li;
        if (gi < params.n) {
            KEY k = sh_keys[pad(li)];
            keys[gi] = decode ? decode_key(k) : k;
#ifdef PAIRS
            values[gi] = sh_values[pad(li)];
#endif
        }
    }
}

void main() {
    uint group = flat_group();
    if (group >= params.groups) {
        return;  // the whole workgroup leaves together: barriers stay in uniform flow
    }
    uint base = group * TILE;
    if ((params.flags & FLAG_DISPERSE) != 0u) {
        local_disperse(base);
        return;
    }
    bool encode = (params.flags & FLAG_ENCODE) != 0u;
    for (uint e = 0u; e < E; ++e) {
        uint li = e * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        uint gi = base + li;
        KEY k = KEY_MAX;
#ifdef PAIRS
        uint v = 0u;
#endif
        if (gi < params.n) {
            k = keys[gi];
            if (encode) k = encode_key(k);
#ifdef PAIRS
            v = values[gi];
#endif
        }
        sh_keys[pad(li)] = k;
#ifdef PAIRS
        sh_values[pad(li)] = v;
#endif
    }
    for (uint h = 2u; h <= params.h; h <<= 1) {
        barrier();
        flip(h);
        for (uint hh = h >> 1; hh > 1u; hh >>= 1) {
            barrier();
            disperse(hh);
        }
    }
    barrier();
    bool decode = (params.flags & FLAG_DECODE) != 0u;
    for (uint e = 0u; e < E; ++e) {
        uint li = e * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        uint gi = base + li;
        if (gi < params.n) {
            KEY k = sh_keys[pad(li)];
            keys[gi] = decode ? decode_key(k) : k;
#ifdef PAIRS
            values[gi] = sh_values[pad(li)];
#endif
        }
    }
}
