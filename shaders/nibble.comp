#version 450
// variants: nibble: nibble_f16mix:-DNET_F16
//
// GPU nibble sort: every invocation sorts 2 * V words (V 16-byte loads, all issued before
// the first word is sorted), by counting, with tables in shared memory and one multiply:
// 1. histogram: c_v, the count of nibble value v, as 16 packed 4-bit counters: the sum of
//    one_hot[nibble] = 1 << 4 * nibble over the 16 nibbles (default: 16 lookups in a
//    17-entry table, which no two lanes read from the same bank at different addresses).
//    Only an all-equal word reaches a count of 16; its
//    carry leaves small garbage counts, and the word is its own sorted form, kept as is.
// 2. prefix sums in bytes: the even and odd counters spread into byte lanes and multiplied
//    by 0x0101..01 give running sums, combined into the number of nibbles below v for
//    every v (bytes of `below_odd` for v = 2i + 1, of `below_even` for v = 2i); every byte
//    stays <= 16, so no lane carries.
// 3. the sorted word is the sum over v = 1..15 of 0x1111..1 << 4 * below(v)
//    = (sum over v of one_hot[below(v)]) * 0x1111..1: a second histogram, of where each
//    value's run starts, whose nibbles stay <= 15, times the ones pattern, whose product
//    nibbles are prefix sums <= 15 (one_hot[16] = 0 drops values above the maximum; v = 0
//    is routed to that entry).
// NET_F16: no counting; Green's 60-comparator network (the one of src/nibble/network.rs) on
//    two words at once, on f16vec2 lanes (needs shaderFloat16): lane 0 of every 16-bit pair
//    holds a nibble of the first word of a 16-byte load, lane 1 the same nibble of the second
//    word. Lanes hold 64 + n / 16 (bit pattern 0x5400 | n, exact and ordered like n).
//    Unpacking takes a shift and one and-or per nibble pair; packing is linear, four
//    multiply-adds per four nibble pairs, because every lane is bias + n and the bias is
//    subtracted once. Every other comparator of a row is three adds on the FMA pipe:
//    t = clamp(a - b, 0, 1) (one add with saturation; a - b is a multiple of 1/16 in
//    (-1, 1), exact), then min = a - t and max = b + t, exact; the others are a min and a
//    max, so the network is split between the FMA pipe and the min/max unit (BENCHMARKS.md,
//    "GPU nibble sort").
// An odd last word arrives through the `tail` binding (the uvec4 view cannot hold it).
// TILES (specialisation constant 2): tiles of V loads per invocation that one workgroup sorts,
//    grid-stride (tile group + t * workgroups, so that the groups resident at once work on
//    neighbouring memory). With more than one, each invocation issues the loads of its next
//    tile before it sorts and stores the current one (double buffering in registers), so that
//    memory traffic stays in flight during the network's long dependent chains.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
#if defined(NET_F16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define LANES f16vec2
#define TO_LANES(u) unpackFloat2x16(u)
#define FROM_LANES(l) packFloat2x16(l)
const uint BIAS = 0x54005400u;
#define NETWORK
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint V = 4;   // uvec4 loads per invocation
layout(constant_id = 2) const uint TILES = 1;  // tiles (V loads each) per workgroup

layout(set = 0, binding = 0) buffer Pairs { uvec4 pairs[]; };
layout(set = 0, binding = 1) buffer Tail { uvec2 tail[]; };

layout(push_constant) uniform Params {
    uint pair_count;  // uvec4 elements (two words each) in `pairs`
    uint has_tail;    // 1 if tail[0] is a word to sort too
    uint groups_x;    // width of the 2-D dispatch grid
} params;

#ifndef NETWORK
shared uint64_t one_hot[17];
#define ONE_HOT(x) one_hot[x]

const uint64_t ONES = 0x1111111111111111ul;
const uint64_t BYTE_ONES = 0x0101010101010101ul;
const uint64_t LOW_NIBBLES = 0x0F0F0F0F0F0F0F0Ful;

uint64_t sort_word(uint64_t w) {
    uvec2 halves = unpack32(w);
    uint64_t hist = 0ul;
    for (int b = 0; b < 32; b += 4) {
        hist += ONE_HOT(bitfieldExtract(halves.x, b, 4));
        hist += ONE_HOT(bitfieldExtract(halves.y, b, 4));
    }
    uint64_t even = (hist & LOW_NIBBLES) * BYTE_ONES;         // byte i: c_0 + c_2 + .. + c_2i
    uint64_t odd = ((hist >> 4) & LOW_NIBBLES) * BYTE_ONES;   // byte i: c_1 + c_3 + .. + c_2i+1
    uvec2 below_odd = unpack32(even + (odd << 8));            // byte i: nibbles below 2i + 1
    uvec2 below_even = unpack32(((even + odd) << 8) | 16ul);  // byte i: below 2i (byte 0: 16)
    uint64_t starts = 0ul;
    for (int b = 0; b < 32; b += 8) {
        starts += ONE_HOT(bitfieldExtract(below_even.x, b, 8));
        starts += ONE_HOT(bitfieldExtract(below_odd.x, b, 8));
        starts += ONE_HOT(bitfieldExtract(below_even.y, b, 8));
        starts += ONE_HOT(bitfieldExtract(below_odd.y, b, 8));
    }
    uint64_t sorted = starts * ONES;
    bool all_equal = ((w >> 4) | (w << 60)) == w;
    return all_equal ? w : sorted;
}

uvec4 sort_pair(uvec4 d) {
    return uvec4(unpack32(sort_word(pack64(d.xy))), unpack32(sort_word(pack64(d.zw))));
}
#else
// One comparator on both words: r[a] gets the minimum, r[b] the maximum. CX by min/max,
// CY by a saturated difference: t = max(a - b, 0) (a - b lies in (-1, 1)); min = a - t,
// max = b + t.
#define CX(a, b) { LANES lo = min(r[a], r[b]); r[b] = max(r[a], r[b]); r[a] = lo; }
#define CY(a, b) { LANES t = clamp(r[a] - r[b], LANES(0.0), LANES(1.0)); \
    r[a] = r[a] - t; r[b] = r[b] + t; }

// The 16 lanes of nibble 4k + j: shifted down and masked, the bias or-ed in.
#define UNPACK4(k, p) \
    r[4 * k] = TO_LANES((p & 0x000F000Fu) | BIAS); \
    r[4 * k + 1] = TO_LANES(((p >> 4) & 0x000F000Fu) | BIAS); \
    r[4 * k + 2] = TO_LANES(((p >> 8) & 0x000F000Fu) | BIAS); \
    r[4 * k + 3] = TO_LANES(((p >> 12) & 0x000F000Fu) | BIAS);

// Nibbles 4k..4k+3 of both words (first word in the low half): every lane is BIAS + n, so
// the weighted sum minus BIAS * 0x1111 is exact and carries nothing between halves.
#define PACK4(k) (FROM_LANES(r[4 * k]) + FROM_LANES(r[4 * k + 1]) * 16u \
    + FROM_LANES(r[4 * k + 2]) * 256u + FROM_LANES(r[4 * k + 3]) * 4096u - BIAS * 0x1111u)

// Sorts the nibbles of the two words of a 16-byte load (d.xy and d.zw) with Green's network.
uvec4 sort_pair(uvec4 d) {
    LANES r[16];
    // Bits 16k..16k+15 of both words side by side: nibbles 4k..4k+3.
    uint p0 = (d.x & 0xFFFFu) | (d.z << 16);
    uint p1 = (d.x >> 16) | (d.z & 0xFFFF0000u);
    uint p2 = (d.y & 0xFFFFu) | (d.w << 16);
    uint p3 = (d.y >> 16) | (d.w & 0xFFFF0000u);
    UNPACK4(0, p0)
    UNPACK4(1, p1)
    UNPACK4(2, p2)
    UNPACK4(3, p3)
    CX(0, 1) CY(2, 3) CX(4, 5) CY(6, 7)
    CX(8, 9) CY(10, 11) CX(12, 13) CY(14, 15)
    CX(0, 2) CY(1, 3) CX(4, 6) CY(5, 7)
    CX(8, 10) CY(9, 11) CX(12, 14) CY(13, 15)
    CX(0, 4) CY(1, 5) CX(2, 6) CY(3, 7)
    CX(8, 12) CY(9, 13) CX(10, 14) CY(11, 15)
    CX(0, 8) CY(1, 9) CX(2, 10) CY(3, 11)
    CX(4, 12) CY(5, 13) CX(6, 14) CY(7, 15)
    CX(5, 10) CY(6, 9) CX(3, 12) CY(13, 14)
    CX(7, 11) CY(1, 2) CX(4, 8) CY(1, 4)
    CX(7, 13) CY(2, 8) CX(11, 14) CY(2, 4)
    CX(5, 6) CY(9, 10) CX(11, 13) CY(3, 8)
    CX(7, 12) CY(6, 8) CX(10, 12) CY(3, 5)
    CX(7, 9) CY(3, 4) CX(5, 6) CY(7, 8)
    CX(9, 10) CY(11, 12) CX(6, 7) CY(8, 9)
    uint q0 = PACK4(0);
    uint q1 = PACK4(1);
    uint q2 = PACK4(2);
    uint q3 = PACK4(3);
    return uvec4((q0 & 0xFFFFu) | (q1 << 16), (q2 & 0xFFFFu) | (q3 << 16),
                 (q0 >> 16) | (q1 & 0xFFFF0000u), (q2 >> 16) | (q3 & 0xFFFF0000u));
}
#endif

void main() {
    uint lid = gl_LocalInvocationID.x;
#ifndef NETWORK
    for (uint i = lid; i < 17u; i += gl_WorkGroupSize.x) {
        one_hot[i] = i < 16u ? 1ul << (4u * i) : 0ul;
    }
    barrier();
#endif
    uint group = gl_WorkGroupID.y * params.groups_x + gl_WorkGroupID.x;
    uint tile_pairs = gl_WorkGroupSize.x * V;
    if (TILES <= 1u) {
        uint base = group * tile_pairs + lid;
        uvec4 d[V];
        [[unroll]] for (uint v = 0u; v < V; ++v) {
            uint i = base + v * gl_WorkGroupSize.x;
            d[v] = i < params.pair_count ? pairs[i] : uvec4(0u);
        }
        [[unroll]] for (uint v = 0u; v < V; ++v) {
            uint i = base + v * gl_WorkGroupSize.x;
            if (i < params.pair_count) {
                pairs[i] = sort_pair(d[v]);
            }
        }
    } else {
        // Every tile index below groups * TILES is visited once; those past the data load
        // zeros and store nothing.
        uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
        uint base = group * tile_pairs + lid;
        uvec4 d[V];
        [[unroll]] for (uint v = 0u; v < V; ++v) {
            uint i = base + v * gl_WorkGroupSize.x;
            d[v] = i < params.pair_count ? pairs[i] : uvec4(0u);
        }
        for (uint t = 0u; t < TILES; ++t) {
            uint next = base + groups * tile_pairs;
            uvec4 e[V];
            [[unroll]] for (uint v = 0u; v < V; ++v) {
                uint i = next + v * gl_WorkGroupSize.x;
                e[v] = t + 1u < TILES && i < params.pair_count ? pairs[i] : uvec4(0u);
            }
            [[unroll]] for (uint v = 0u; v < V; ++v) {
                uint i = base + v * gl_WorkGroupSize.x;
                if (i < params.pair_count) {
                    pairs[i] = sort_pair(d[v]);
                }
            }
            [[unroll]] for (uint v = 0u; v < V; ++v) {
                d[v] = e[v];
            }
            base = next;
        }
    }
    if (params.has_tail != 0u && group == 0u && lid == 0u) {
        tail[0] = sort_pair(uvec4(tail[0], 0u, 0u)).xy;
    }
}
