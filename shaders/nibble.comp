#version 450
// GPU nibble sort: every invocation sorts 2 * V words (V 16-byte loads, all issued before
// the first word is sorted), by counting: a 256-entry table turns each byte into the packed
// 4-bit counts of its two nibbles, eight lookups give the word's histogram (16 counters of 4
// bits), and the sorted word is the sum over v = 1..15 of 0x1111111111111111 shifted up by
// 4 * (number of nibbles below v) (a second table). A count reaches 16 only when all 16
// nibbles are equal; such a word is its own sorted form and is kept as is.
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
shared uint64_t fill[17];

uint64_t sort_word(uint64_t w) {
    uvec2 halves = unpack32(w);
    uint64_t hist = 0ul;
    for (uint b = 0u; b < 32u; b += 8u) {
        hist += byte_counts[bitfieldExtract(halves.x, int(b), 8)];
        hist += byte_counts[bitfieldExtract(halves.y, int(b), 8)];
    }
    uint64_t sorted = 0ul;
    uint below = 0u;
    for (uint v = 0u; v < 15u; ++v) {
        below += uint(hist >> (4u * v)) & 15u;
        sorted += fill[min(below, 16u)];
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
    for (uint i = lid; i < 17u; i += gl_WorkGroupSize.x) {
        fill[i] = i < 16u ? (0x1111111111111111ul << (4u * i)) : 0ul;
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
