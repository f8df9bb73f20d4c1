#version 450
// variants: radix_plan_32:-DKEY64=0 radix_plan_64:-DKEY64=1
//
// One workgroup of 256 invocations between the histogram and the passes. Decides on the GPU,
// without a round trip to the host, which passes to run: a pass whose digit is the same for
// all n keys would only copy, so it is skipped. The passes that run become the steps, which
// alternate between A->B and B->A (radix_common.glsl); when an odd number of passes runs the
// result is in B and a final copy brings it back to A. The first pass that runs applies the
// key map on read and the last undoes it on write; when none runs (all keys equal, or n < 2)
// the keys are never touched. For the look-back it also turns the counts into bucket offsets
// (exclusive prefix sums).
//
// By reduce-then-scan (REDUCE_SCAN) it also cuts the tiles into partitions and sizes each
// step's upsweep (none for pass 0 when the histogram counted its tiles) and scan (or adds the
// scan's workgroups to the scatter's, SCAN_IN_PASS).
//
// The plan takes, in the push constants' step, the mask of the passes it may run (bit p:
// pass p; the host always passes all ones, a whole sort); the others count as trivial.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "radix_common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const uint MAX_SUBGROUPS = 64;
layout(constant_id = 1) const uint COPY_WG = 256;  // invocations of the copy shader
layout(constant_id = 2) const uint REDUCE_SCAN = 0; // 1: passes by reduce-then-scan (upsweep, scan, scatter)
layout(constant_id = 3) const uint PARTITIONS = 1024; // reduce-then-scan: at most this many partitions per pass
layout(constant_id = 4) const uint SCAN_IN_PASS = 1;  // reduce-then-scan: 1: the scatter's first workgroups scan (radix_scatter.comp)

layout(std430, binding = 4) buffer State { uint st[]; };
layout(std430, binding = 5) writeonly buffer Indirect { uint ind[]; };

shared uint s_trivial[PASSES];
shared uint s_sg_sum[MAX_SUBGROUPS];

void main() {
    const uint d = gl_LocalInvocationIndex;
    const uint n = min(st[ST_COUNT], params.capacity);
    // A pass is trivial where its digit is the same in every key: the histogram's OR of the
    // keys and OR of their complements are both ones in none of its bits.
    if (d < PASSES) {
        const uint shift = d * 8u;
        const uint w = shift / 32u;
        const uint varies = (st[ST_KEYS_OR + w] & st[ST_KEYS_NAND + w]) >> (shift % 32u);
        const bool trivial = n < 2u || (varies & digit_mask(shift)) == 0u || ((params.step >> d) & 1u) == 0u;
        s_trivial[d] = trivial ? 1u : 0u;
    }
    barrier();
    // Bucket offsets for the look-back (reduce-then-scan's scans find their own).
    for (uint p = 0u; REDUCE_SCAN == 0u && p < PASSES; p++) {
        uint c = st[ST_HIST + p * RADIX + d];
        uint before = subgroupExclusiveAdd(c);
        uint total = subgroupAdd(c);
        if (subgroupElect()) s_sg_sum[gl_SubgroupID] = total;
        barrier();
        if (d == 0u) {
            uint run = 0u;
            for (uint s = 0u; s < gl_NumSubgroups; s++) {
                uint t = s_sg_sum[s];
                s_sg_sum[s] = run;
                run += t;
            }
        }
        barrier();
        st[ST_BUCKET + p * RADIX + d] = s_sg_sum[gl_SubgroupID] + before;
        barrier();
    }
    if (d == 0u) {
        const uint tiles = (n + params.tile_keys - 1u) / params.tile_keys;
        // Reduce-then-scan: the tiles cut into at most PARTITIONS runs of equal length, one
        // upsweep workgroup each (the scatter has a workgroup per tile either way).
        const uint per = partition_tiles(tiles, PARTITIONS);
        const uint partitions = (tiles + per - 1u) / per;
        st[ST_PARTITION] = per;
        st[ST_PARTITION + 1u] = partitions;
        // Step k sorts by the k-th pass that runs (radix_common.glsl: STEP_PASS); the first
        // step applies the key map on read, the last undoes it on write. Unsigned keys map
        // to themselves, so no step is told to (first and last steps that applied the
        // identity map ran 3-8% slower than the others on an H200).
        const uint map_ends = KEY_MAP == MAP_UNSIGNED ? 0u : 3u;
        uint running = 0u;
        for (uint p = 0u; p < PASSES; p++) running += 1u - s_trivial[p];
        uint next = 0u;
        for (uint p = 0u; p < PASSES; p++) {
            if (s_trivial[p] == 0u) {
                const uint ends =
                    ((next == 0u ? 1u : 0u) | (next + 1u == running ? 2u : 0u)) & map_ends;
                st[ST_FLAGS + next] = (p << 8) | ((next & 1u) << 2) | ends;
                next++;
            }
        }
        for (; next < PASSES; next++) st[ST_FLAGS + next] = 0u;
        // The first step reads the keys the histogram counted: when it sorts by pass 0 (pass
        // 0 runs), the histogram may have left its tile offsets already.
        const bool counted = s_trivial[0] == 0u && st[ST_PASS0_OFFSETS] == 1u;
        for (uint k = 0u; k < PASSES; k++) {
            const bool runs = k < running;
            const bool sweep = REDUCE_SCAN == 1u && runs;
            const bool scan_in_pass = sweep && SCAN_IN_PASS == 1u;
            const uint groups = runs ? tiles + (scan_in_pass ? SCAN_GROUPS : 0u) : 0u;
            const uint at = IND_PASS + k * 3u;
            const uint up = IND_UPSWEEP + k * 3u;
            const uint scan = IND_SCAN + k * 3u;
            ind[at] = groups;
            ind[up] = sweep && !(k == 0u && counted) ? partitions : 0u;
            ind[scan] = sweep && !scan_in_pass ? SCAN_GROUPS : 0u;
            for (uint y = 1u; y < 3u; y++) {
                ind[at + y] = 1u;
                ind[up + y] = 1u;
                ind[scan + y] = 1u;
            }
        }
        uint copy_groups = (running & 1u) != 0u ? min((n + COPY_WG - 1u) / COPY_WG, 65535u) : 0u;
        ind[IND_COPY + 0u] = copy_groups;
        ind[IND_COPY + 1u] = 1u;
        ind[IND_COPY + 2u] = 1u;
    }
}
