#version 450
// variants: radix_small_k32:-DKEY64=0,-DPAIRS=0 radix_small_p32:-DKEY64=0,-DPAIRS=1
//
// Small sorts of 32-bit keys (with or without values) in shared memory, two ways:
//
// - One workgroup (BUCKETS = 0): at most SIZE keys in one dispatch, in place: the multi-pass
//   sort's chain of dispatches costs about 25 us on an H200 before any key is sorted.
// - One workgroup per bucket (BUCKETS = 1), the second half of the short path: the split
//   (radix_scatter.comp, SPLIT) left each tile of the keys ordered by its bucket (the top
//   digit, or between two splitters sampled from the keys) in the scratch (binding 0), with
//   each bucket's first index and count per tile; workgroup d gathers bucket d's runs (in
//   tile order, so in input order), sorts them and writes them where bucket d starts in the
//   caller's buffers (binding 1). The split's sample keeps buckets to about a quarter of SIZE
//   whatever the keys; one that still outgrows SIZE (a sample that missed) is sorted by the
//   same workgroup in global memory (bucket_passes): correct, but far slower.
//
// Either way each key's sort word (its mapped bits below the end bit) and its index go to
// shared memory and a bitonic network sorts the (word, index) pairs, so keys with equal
// words keep their input order (stable); keys and values are then gathered by index.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SIZE = 4096;  // a power of two; shared memory: 8 x SIZE bytes
layout(constant_id = 2) const uint BUCKETS = 0;  // 1: one workgroup per bucket of the split (see the top)
layout(constant_id = 3) const uint EXTRA = 0;    // with BUCKETS: the most split tiles (at most 4 per invocation) + 1

// One workgroup: binding 0 in place (bindings 1 and 3 are bound, unused). Buckets: 0 and 2
// the split's output, 1 and 3 the caller's buffers.
layout(std430, binding = 0) buffer Keys { uint keys[]; };
layout(std430, binding = 1) coherent buffer DstKeys { uint dst_keys[]; };
#if PAIRS
layout(std430, binding = 2) buffer Vals { uint vals[]; };
layout(std430, binding = 3) coherent buffer DstVals { uint dst_vals[]; };
#endif
// Buckets: a bucket too large for shared memory passes through the words after the split's
// status words (2 x capacity of them, keys then values; RadixSorter's scratch has them).
layout(std430, binding = 4) coherent buffer State { uint st[]; };

// The one-workgroup sort takes all of its 8 x SIZE bytes, so the buckets' few words of their
// own lie past SIZE (EXTRA of them, none for the one workgroup).
shared uint s_word[SIZE + EXTRA];
shared uint s_index[SIZE + EXTRA];
// Buckets: per split tile, the inclusive prefix of the bucket's counts, and where its run
// starts; where the bucket starts.
#define S_SCAN(t) s_word[SIZE + (t)]
#define S_SRC(t) s_index[SIZE + (t)]
#define S_TOTAL s_word[SIZE + EXTRA - 1u]

// The element count: from the push constant (`step`), or where that is ~0 from the state
// (copied there from the caller's count buffer); clamped to the buffers and to SIZE.
uint element_count() {
    const uint n = params.step == ~0u ? st[ST_COUNT] : params.step;
    return min(min(n, params.capacity), SIZE);
}

// Sorts the (s_word, s_index) pairs [0, width) (width a power of two), ascending by word,
// then index. Called in uniform control flow.
void bitonic(uint width) {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
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
}

uint pow2_above(uint n) {
    uint width = 2u;
    while (width < n) width <<= 1u;
    return width;
}

void one_workgroup() {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    const uint n = element_count();
    if (n < 2u) return;
    // The network spans the next power of two; padding sorts after every key (index ~0).
    const uint width = pow2_above(n);
    const uint mask = END_BIT >= 32u ? ~0u : (1u << END_BIT) - 1u;
    const bool encode = KEY_MAP != MAP_UNSIGNED;
    for (uint i = tid; i < width; i += wg) {
        const bool real = i < n;
        s_word[i] = real ? (encode ? encode_key(keys[i], KEY_MAP) : keys[i]) & mask : ~0u;
        s_index[i] = real ? i : ~0u;
    }
    barrier();
    bitonic(width);
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

// Where the bucket's i-th key lies in the split's output: in the run of the first tile
// whose inclusive prefix passes i.
uint run_position(uint i, uint tiles) {
    uint lo = 0u;
    uint hi = tiles - 1u;
    while (lo < hi) {
        const uint mid = (lo + hi) / 2u;
        if (S_SCAN(mid) > i) hi = mid; else lo = mid + 1u;
    }
    return S_SRC(lo) + i - (lo == 0u ? 0u : S_SCAN(lo - 1u));
}

// A bucket too large for shared memory: gathered into the spare words, then one stable
// counting pass per digit of the sort word (ping-pong with the bucket's place in the caller's
// buffers; a digit the same in every key of the bucket is skipped), the key map undone on the
// way out. One workgroup does it all: correct, not fast.
// Digit offsets, one round's digits (workgroups of at most RADIX here), whether to skip a
// digit: in the sort's words (SIZE >= 512), free by then.
#define s_hist s_word
#define s_digit s_index
#define s_skip s_index[RADIX]

uint spare_key(uint at) { return ST_STATUS + params.slot_words + at; }
uint spare_val(uint at) { return ST_STATUS + params.slot_words + params.capacity + at; }

void bucket_passes(uint start, uint m, uint tiles, uint digits, uint mask) {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    for (uint i = tid; i < m; i += wg) {
        const uint at = run_position(i, tiles);
        st[spare_key(start + i)] = keys[at];
#if PAIRS
        st[spare_val(start + i)] = vals[at];
#endif
    }
    bool in_spare = true;
    for (uint p = 0u; p < digits; p++) {
        const uint shift = p * 8u;
        memoryBarrierBuffer();
        barrier();
        for (uint d = tid; d < RADIX; d += wg) s_hist[d] = 0u;
        if (tid == 0u) s_skip = 0u;
        barrier();
        for (uint i = tid; i < m; i += wg) {
            const uint k = in_spare ? st[spare_key(start + i)] : dst_keys[start + i];
            atomicAdd(s_hist[digit_of(k & mask, shift)], 1u);
        }
        barrier();
        if (tid == 0u) {
            uint run = 0u;
            for (uint d = 0u; d < RADIX; d++) {
                const uint c = s_hist[d];
                if (c == m) s_skip = 1u;
                s_hist[d] = run;
                run += c;
            }
        }
        barrier();
        if (s_skip == 1u) continue;  // uniform: shared, behind a barrier
        // Rounds of wg keys in order: a key goes after the keys of its digit in earlier
        // rounds and earlier lanes.
        for (uint base = 0u; base < m; base += wg) {
            const uint i = base + tid;
            uint k = 0u;
            uint v = 0u;
            uint d = ~0u;
            if (i < m) {
                k = in_spare ? st[spare_key(start + i)] : dst_keys[start + i];
#if PAIRS
                v = in_spare ? st[spare_val(start + i)] : dst_vals[start + i];
#endif
                d = digit_of(k & mask, shift);
            }
            s_digit[tid] = d;
            barrier();
            if (i < m) {
                uint below = 0u;
                for (uint j = 0u; j < tid; j++) below += s_digit[j] == d ? 1u : 0u;
                const uint to = start + s_hist[d] + below;
                if (in_spare) {
                    dst_keys[to] = k;
#if PAIRS
                    dst_vals[to] = v;
#endif
                } else {
                    st[spare_key(to)] = k;
#if PAIRS
                    st[spare_val(to)] = v;
#endif
                }
            }
            barrier();
            if (i < m) atomicAdd(s_hist[d], 1u);
            barrier();
        }
        in_spare = !in_spare;
    }
    memoryBarrierBuffer();
    barrier();
    const bool decode = KEY_MAP != MAP_UNSIGNED;
    for (uint i = tid; i < m; i += wg) {
        const uint k = in_spare ? st[spare_key(start + i)] : dst_keys[start + i];
        dst_keys[start + i] = decode ? decode_key(k, KEY_MAP) : k;
#if PAIRS
        if (in_spare) dst_vals[start + i] = st[spare_val(start + i)];
#endif
    }
}

void bucket() {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    const uint d = gl_WorkGroupID.x;
    const uint n = KEY_COUNT();
    const uint tiles = (n + params.tile_keys - 1u) / params.tile_keys;
    if (tid == 0u) S_TOTAL = 0u;
    // Each invocation takes up to four consecutive tiles: their words, then the inclusive
    // prefix of the counts over the tiles (a scan in shared memory), and where the bucket
    // starts: the keys of smaller digits in every tile.
    const uint per = (tiles + wg - 1u) / wg;
    uint counts[4];
    uint own = 0u;
    uint before = 0u;
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        const uint t = tid * per + j;
        counts[j] = 0u;
        if (j < per && t < tiles) {
            const uint w = st[ST_STATUS + t * RADIX + d];
            counts[j] = w >> 16;
            S_SRC(t) = t * params.tile_keys + (w & 0xffffu);
            before += w & 0xffffu;
            own += counts[j];
        }
    }
    barrier();
    if (before != 0u) atomicAdd(S_TOTAL, before);
    // Inclusive scan of the invocations' sums (Hillis-Steele in s_word).
    s_word[tid] = own;
    barrier();
    for (uint off = 1u; off < wg; off <<= 1u) {
        const uint add = tid >= off ? s_word[tid - off] : 0u;
        barrier();
        s_word[tid] += add;
        barrier();
    }
    uint run = s_word[tid] - own;
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        const uint t = tid * per + j;
        if (j < per && t < tiles) {
            run += counts[j];
            S_SCAN(t) = run;
        }
    }
    const uint m = s_word[wg - 1u];
    barrier();
    const uint start = S_TOTAL;
    if (m == 0u) return;  // uniform: every invocation read the same words
    // The split's keys are mapped already: the sort word is their bits below the end bit.
    const uint mask = END_BIT >= 32u ? ~0u : (1u << END_BIT) - 1u;
    if (m > SIZE) {
        bucket_passes(start, m, tiles, (END_BIT + 7u) / 8u, mask);
        return;
    }
    const uint width = pow2_above(m);
    for (uint i = tid; i < width; i += wg) {
        if (i < m) {
            const uint at = run_position(i, tiles);
            s_word[i] = keys[at] & mask;
            s_index[i] = at;
        } else {
            s_word[i] = ~0u;
            s_index[i] = ~0u;
        }
    }
    barrier();
    if (m > 1u) bitonic(width);
    const bool decode = KEY_MAP != MAP_UNSIGNED;
    for (uint i = tid; i < m; i += wg) {
        const uint at = s_index[i];
        const uint k = keys[at];
        dst_keys[start + i] = decode ? decode_key(k, KEY_MAP) : k;
#if PAIRS
        dst_vals[start + i] = vals[at];
#endif
    }
}

void main() {
    if (BUCKETS == 1u) {
        bucket();
    } else {
        one_workgroup();
    }
}
