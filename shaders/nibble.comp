#version 450
// variants: nibble: nibble_bytetable:-DBYTE_TABLE nibble_mixed:-DMIXED
//
// GPU nibble sort: every invocation sorts 2 * V words (V 16-byte loads, all issued before
// the first word is sorted), by counting, with tables in shared memory and one multiply:
// 1. histogram: c_v, the count of nibble value v, as 16 packed 4-bit counters: the sum of
//    one_hot[nibble] = 1 << 4 * nibble over the 16 nibbles (default: 16 lookups in a
//    17-entry table, which no two lanes read from the same bank at different addresses;
//    BYTE_TABLE: 8 lookups in a 256-entry table of byte -> counts of its two nibbles, which
//    lanes read with bank conflicts). Only an all-equal word reaches a count of 16; its
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
//    MIXED: the odd values' terms by two 64-bit shifts instead of table loads (shifting
//    twice by 2 * below keeps every shift under 64 and makes below = 16 vanish), to split
//    the work between the load/store and the integer units.
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

shared uint64_t one_hot[17];
#ifdef BYTE_TABLE
shared uint64_t byte_counts[256];
#endif

const uint64_t ONES = 0x1111111111111111ul;
const uint64_t BYTE_ONES = 0x0101010101010101ul;
const uint64_t LOW_NIBBLES = 0x0F0F0F0F0F0F0F0Ful;

uint64_t sort_word(uint64_t w) {
    uvec2 halves = unpack32(w);
    uint64_t hist = 0ul;
#ifdef BYTE_TABLE
    for (int b = 0; b < 32; b += 8) {
        hist += byte_counts[bitfieldExtract(halves.x, b, 8)];
        hist += byte_counts[bitfieldExtract(halves.y, b, 8)];
    }
#else
    for (int b = 0; b < 32; b += 4) {
        hist += one_hot[bitfieldExtract(halves.x, b, 4)];
        hist += one_hot[bitfieldExtract(halves.y, b, 4)];
    }
#endif
    uint64_t even = (hist & LOW_NIBBLES) * BYTE_ONES;         // byte i: c_0 + c_2 + .. + c_2i
    uint64_t odd = ((hist >> 4) & LOW_NIBBLES) * BYTE_ONES;   // byte i: c_1 + c_3 + .. + c_2i+1
    uvec2 below_odd = unpack32(even + (odd << 8));            // byte i: nibbles below 2i + 1
    uvec2 below_even = unpack32(((even + odd) << 8) | 16ul);  // byte i: below 2i (byte 0: 16)
    uint64_t starts = 0ul;
#ifdef MIXED
    uint64_t odd_terms = 0ul;
    for (int b = 0; b < 32; b += 8) {
        starts += one_hot[bitfieldExtract(below_even.x, b, 8)];
        starts += one_hot[bitfieldExtract(below_even.y, b, 8)];
        uint lo = 2u * bitfieldExtract(below_odd.x, b, 8);
        uint hi = 2u * bitfieldExtract(below_odd.y, b, 8);
        odd_terms += (ONES << lo) << lo;
        odd_terms += (ONES << hi) << hi;
    }
    uint64_t sorted = starts * ONES + odd_terms;
#else
    for (int b = 0; b < 32; b += 8) {
        starts += one_hot[bitfieldExtract(below_even.x, b, 8)];
        starts += one_hot[bitfieldExtract(below_odd.x, b, 8)];
        starts += one_hot[bitfieldExtract(below_even.y, b, 8)];
        starts += one_hot[bitfieldExtract(below_odd.y, b, 8)];
    }
    uint64_t sorted = starts * ONES;
#endif
    bool all_equal = ((w >> 4) | (w << 60)) == w;
    return all_equal ? w : sorted;
}

uvec4 sort_pair(uvec4 d) {
    return uvec4(unpack32(sort_word(pack64(d.xy))), unpack32(sort_word(pack64(d.zw))));
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    for (uint i = lid; i < 17u; i += gl_WorkGroupSize.x) {
        one_hot[i] = i < 16u ? 1ul << (4u * i) : 0ul;
    }
#ifdef BYTE_TABLE
    for (uint i = lid; i < 256u; i += gl_WorkGroupSize.x) {
        byte_counts[i] = (1ul << (4u * (i & 15u))) + (1ul << (4u * (i >> 4)));
    }
#endif
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
