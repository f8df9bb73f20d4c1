#version 450
// variants: radix_plan_32:-DKEY64=0 radix_plan_64:-DKEY64=1
//
// One workgroup of 256 invocations between the histogram and the passes. Decides on the GPU,
// without a round trip to the host, which passes to run: a pass whose digit is the same for
// all n keys (one bucket holds n) would only copy, so it gets zero workgroups. The passes
// that run alternate between A->B and B->A, so each pass has two indirect dispatches and the
// plan gives the tiles to the one of the right direction; when an odd number of passes runs
// the result is in B and a final copy brings it back to A. The first pass that runs applies
// the key map on read and the last undoes it on write; when none runs (all keys equal, or
// n < 2) the keys are never touched. Also turns the counts into bucket offsets (exclusive
// prefix sums).
//
// By reduce-then-scan (REDUCE_SCAN) it also cuts the tiles into partitions and sizes each
// pass's upsweep (none for pass 0 when the histogram counted its tiles) and scan.
//
// The plan takes, in the push constants' pass slot, the mask of the passes it may run (bit p:
// pass p; all ones for a whole sort); the others count as trivial. The host path's grouped
// sort (src/gpu/radix.rs) runs one pass by the most significant digit that way.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "radix_common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const uint MAX_SUBGROUPS = 64;
layout(constant_id = 1) const uint COPY_WG = 256;  // invocations of the copy shader
layout(constant_id = 2) const uint REDUCE_SCAN = 0; // 1: passes by reduce-then-scan (upsweep, scan, scatter)
layout(constant_id = 3) const uint PARTITIONS = 1024; // reduce-then-scan: at most this many partitions per pass

layout(std430, binding = 4) buffer State { uint st[]; };
layout(std430, binding = 5) writeonly buffer Indirect { uint ind[]; };

shared uint s_trivial[PASSES];
shared uint s_sg_sum[MAX_SUBGROUPS];

void main() {
    const uint d = gl_LocalInvocationIndex;
    const uint n = min(st[ST_COUNT], params.capacity);
    if (d < PASSES) s_trivial[d] = 0u;
    barrier();
    for (uint p = 0u; p < PASSES; p++) {
        uint c = st[ST_HIST + p * RADIX + d];
        if (c == n || ((params.pass_index >> p) & 1u) == 0u) s_trivial[p] = 1u;
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
        uint running = 0u;
        uint last = 0u;
        for (uint p = 0u; p < PASSES; p++) {
            if (s_trivial[p] == 0u) {
                running++;
                last = p;
            }
        }
        uint seen = 0u;
        for (uint p = 0u; p < PASSES; p++) {
            uint groups_ab = 0u;
            uint groups_ba = 0u;
            uint flags = 0u;
            if (s_trivial[p] == 0u) {
                uint parity = seen & 1u;
                if (seen == 0u) flags |= 1u;
                if (p == last) flags |= 2u;
                flags |= parity << 2;
                if (parity == 0u) groups_ab = tiles; else groups_ba = tiles;
                seen++;
            }
            st[ST_FLAGS + p] = flags;
            const bool sweep = REDUCE_SCAN == 1u;
            const uint at = IND_PASS + p * 6u;
            const uint up = IND_UPSWEEP + p * 6u;
            const uint scan = IND_SCAN + p * 3u;
            ind[at + 0u] = groups_ab;
            ind[at + 3u] = groups_ba;
            // Pass 0, when it runs, is the first and reads the keys the histogram counted:
            // the histogram may have left its tile offsets already.
            const bool counted = p == 0u && st[ST_PASS0_OFFSETS] == 1u;
            const uint up_groups = sweep && !counted ? partitions : 0u;
            ind[up + 0u] = groups_ab != 0u ? up_groups : 0u;
            ind[up + 3u] = groups_ba != 0u ? up_groups : 0u;
            ind[scan] = sweep && s_trivial[p] == 0u ? RADIX : 0u;
            for (uint y = 1u; y < 3u; y++) {
                ind[at + y] = 1u;
                ind[at + 3u + y] = 1u;
                ind[up + y] = 1u;
                ind[up + 3u + y] = 1u;
                ind[scan + y] = 1u;
            }
        }
        uint copy_groups = (running & 1u) != 0u ? min((n + COPY_WG - 1u) / COPY_WG, 65535u) : 0u;
        ind[IND_COPY + 0u] = copy_groups;
        ind[IND_COPY + 1u] = 1u;
        ind[IND_COPY + 2u] = 1u;
    }
}
