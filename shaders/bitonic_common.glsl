// Shared by bitonic_local.comp and bitonic_global.comp: the key type, its order, the
// order-preserving key maps (the same maps as src/keys/key.rs) and the push constants.
//
// Variants (compile-time defines): KEY64 makes a key a uvec2 (x = low word, y = high word)
// for u64/i64/f64; PAIRS moves a u32 value with every key.

#extension GL_GOOGLE_include_directive : require

#ifdef KEY64
#define KEY uvec2
#define KEY_MAX uvec2(0xffffffffu)
bool key_less(KEY a, KEY b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
#else
#define KEY uint
#define KEY_MAX 0xffffffffu
bool key_less(KEY a, KEY b) { return a < b; }
#endif

layout(set = 0, binding = 0) buffer Keys { KEY keys[]; };
#ifdef PAIRS
layout(set = 0, binding = 1) buffer Values { uint values[]; };
#endif

// Push constants, the same block for every bitonic kernel (src/gpu/bitonic.rs fills it).
layout(push_constant) uniform Params {
    uint n;         // real elements; indices at or past n are virtual maximal keys
    uint h;         // local sort: largest merge height; global: the step's top bit
    uint flags;     // FLAG_* below
    uint groups_x;  // width of the 2-D dispatch grid
    uint groups;    // workgroups that have work (the grid may hold a few more)
} params;

const uint FLAG_ENCODE = 1u;     // apply the key map on load (the sort's first kernel)
const uint FLAG_DECODE = 2u;     // undo it on store (the sort's last kernel)
const uint FLAG_FLIP = 4u;       // global: the top step is a flip (first step of a merge)
const uint FLAG_DISPERSE = 8u;   // local: only the disperse cascade, not a full local sort
const uint MAP_SHIFT = 4u;       // bits 4..5: 0 unsigned, 1 signed, 2 float (total order)

const uint SIGN = 0x80000000u;

uint map_kind() { return (params.flags >> MAP_SHIFT) & 3u; }

#ifdef KEY64
KEY encode_key(KEY k) {
    uint m = map_kind();
    if (m == 1u) return uvec2(k.x, k.y ^ SIGN);
    if (m == 2u) return (k.y & SIGN) != 0u ? ~k : uvec2(k.x, k.y ^ SIGN);
    return k;
}
KEY decode_key(KEY k) {
    uint m = map_kind();
    if (m == 1u) return uvec2(k.x, k.y ^ SIGN);
    if (m == 2u) return (k.y & SIGN) != 0u ? uvec2(k.x, k.y ^ SIGN) : ~k;
    return k;
}
#else
KEY encode_key(KEY k) {
    uint m = map_kind();
    if (m == 1u) return k ^ SIGN;
    if (m == 2u) return k ^ (uint(int(k) >> 31) | SIGN);
    return k;
}
KEY decode_key(KEY k) {
    uint m = map_kind();
    if (m == 1u) return k ^ SIGN;
    if (m == 2u) return k ^ (uint(~(int(k) >> 31)) | SIGN);
    return k;
}
#endif

uint flat_group() { return gl_WorkGroupID.y * params.groups_x + gl_WorkGroupID.x; }
