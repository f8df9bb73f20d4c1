#version 450
// GPU nibble sort: every invocation sorts 2 * V words (V 16-byte loads, all issued before
// the first word is sorted), by counting, in three table-and-multiply stages per word:
// 1. histogram: a 256-entry table turns each byte into the packed 4-bit counts of its two
//    nibbles; eight lookups sum to 16 counters of 4 bits (c_v for v = 0..15). Only an
//    all-equal word reaches a count of 16; its carry leaves small garbage counts, and the
//    word is its own sorted form, kept as is at the end.
// 2. prefix sums in bytes: the even and odd counters spread into byte lanes and multiplied
//    by 0x0101..01 give running sums, combined into A (byte i = number of nibbles below
//    2i + 1) and B (byte i = number below 2i); every byte stays <= 16, so no lane carries.
// 3. the sorted word is the sum over v = 1..15 of 0x1111..1 << 4 * (nibbles below v); a
//    17 x 17 table holds the sum for a pair (v = 2i, v = 2i + 1), so eight lookups build it
//    (pair 0 uses the table's empty row 16 for v = 0, which adds nothing).
// An odd last word arrives through the `tail` binding (the uvec4 view cannot hold it).

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint V = 4;   // uvec4 loads per invocation

layout(set = 0, binding = 0) buffer Pairs { uvec4 pairs[]; };
layout(set = 0, binding = 1) buffer Tail { uvec2 tail[]; };

layout(push_constant) uniform Params {
    uint pair_count;  // uvec4 elements (two words each) in `pairs`
    uint has_tail;    // 1 if tail[0] is a word to sort too
    uint groups_x;    // width of the 2-D dispatch grid
} params;

shared uint64_t byte_counts[256];
shared uint64_t pair_fill[17 * 17];

const uint64_t ONES = 0x1111111111111111ul;
const uint64_t BYTE_ONES = 0x0101010101010101ul;
const uint64_t LOW_NIBBLES = 0x0F0F0F0F0F0F0F0Ful;

uint64_t fill(uint below) { return below < 16u ? ONES << (4u * below) : 0ul; }

uint64_t sort_word(uint64_t w) {
    uvec2 halves = unpack32(w);
    uint64_t hist = 0ul;
    for (int b = 0; b < 32; b += 8) {
        hist += byte_counts[bitfieldExtract(halves.x, b, 8)];
        hist += byte_counts[bitfieldExtract(halves.y, b, 8)];
    }
    uint64_t even = (hist & LOW_NIBBLES) * BYTE_ONES;         // byte i: c_0 + c_2 + .. + c_2i
    uint64_t odd = ((hist >> 4) & LOW_NIBBLES) * BYTE_ONES;   // byte i: c_1 + c_3 + .. + c_2i+1
    uvec2 below_odd = unpack32(even + (odd << 8));            // byte i: nibbles below 2i + 1
    uvec2 below_even = unpack32(((even + odd) << 8) | 16ul);  // byte i: below 2i (byte 0: 16)
    uint64_t sorted = 0ul;
    for (int b = 0; b < 32; b += 8) {
        sorted += pair_fill[bitfieldExtract(below_even.x, b, 8) * 17u
                            + bitfieldExtract(below_odd.x, b, 8)];
        sorted += pair_fill[bitfieldExtract(below_even.y, b, 8) * 17u
                            + bitfieldExtract(below_odd.y, b, 8)];
    }
    bool all_equal = ((w >> 4) | (w << 60)) == w;
    return all_equal ? w : sorted;
}

uvec4 sort_pair(uvec4 d) {
    return uvec4(unpack32(sort_word(pack64(d.xy))), unpack32(sort_word(pack64(d.zw))));
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    for (uint i = lid; i < 256u; i += gl_WorkGroupSize.x) {
        byte_counts[i] = (1ul << (4u * (i & 15u))) + (1ul << (4u * (i >> 4)));
    }
    for (uint i = lid; i < 17u * 17u; i += gl_WorkGroupSize.x) {
        pair_fill[i] = fill(i / 17u) + fill(i % 17u);
    }
    barrier();
    uint group = gl_WorkGroupID.y * params.groups_x + gl_WorkGroupID.x;
    uint base = group * gl_WorkGroupSize.x * V + lid;
    uvec4 d[V];
    for (uint v = 0u; v < V; ++v) {
        uint i = base + v * gl_WorkGroupSize.x;
        d[v] = i < params.pair_count ? pairs[i] : uvec4(0u);
    }
    for (uint v = 0u; v < V; ++v) {
        uint i = base + v * gl_WorkGroupSize.x;
        if (i < params.pair_count) {
            pairs[i] = sort_pair(d[v]);
        }
    }
    if (params.has_tail != 0u && group == 0u && lid == 0u) {
        tail[0] = unpack32(sort_word(pack64(tail[0])));
    }
}
