#version 450
// variants: radix_histogram_k32:-DKEY64=0 radix_histogram_k64:-DKEY64=1
//
// The upfront pass: counts the keys per digit value for every pass at once (Onesweep's
// global histogram), so each later pass reads its digit's bucket offsets instead of making a
// counting sweep of its own. Counts go to shared memory first, then once per workgroup and
// digit into the state buffer. The key map is applied in registers: digits are those of the
// order-preserving image. Also ORs the keys and their complements together, which tells the
// plan the digits that are the same in every key. Its last workgroup to finish plans the
// passes (radix_plan.glsl).
//
// With TILE_OFFSETS (sorts by reduce-then-scan) it counts only pass 0's digit, as
// radix_upsweep.comp would for pass 0 (pass 0, when it runs, is the first and reads these
// very keys): each workgroup counts one partition, a tile at a time, leaving each tile's
// offset in its partition and the partition's counts. The plan then skips pass 0's upsweep;
// every other pass's digit counts come from its own upsweep. (Counting all four digits of
// u32 keys here took twice an upsweep's time on an H200, the shared-memory atomics of the
// other three digits: BENCHMARKS.md, "GPU radix tiles".)
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BATCH = 8;         // keys per invocation loaded before counting
layout(constant_id = 2) const uint TILE_OFFSETS = 0;  // 1: one workgroup per partition, pass 0's tile offsets too
layout(constant_id = 3) const uint PARTITIONS = 1024; // with TILE_OFFSETS: the plan's PARTITIONS
layout(constant_id = 4) const uint MAX_SUBGROUPS = 64; // subgroups a workgroup may have
layout(constant_id = 5) const uint SCAN_IN_PASS = 1;   // with TILE_OFFSETS: 1: the scatter's first workgroups scan (radix_scatter.comp)

layout(std430, binding = 0) readonly buffer SrcKeys { KEY src_keys[]; };
layout(std430, binding = 4) buffer State { uint st[]; };
layout(std430, binding = 5) writeonly buffer Indirect { uint ind[]; };

const uint DIGITS = TILE_OFFSETS == 1u ? 1u : PASSES;
shared uint s_hist[DIGITS * RADIX];
#include "radix_count.glsl"
#include "radix_plan.glsl"

#if KEY64
#define KEY_AT(k, w) (w == 0u ? k.x : k.y)
#else
#define KEY_AT(k, w) k
#endif

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    for (uint i = tid; i < DIGITS * RADIX; i += wg) s_hist[i] = 0u;
    barrier();
    const uint n = KEY_COUNT();
    // Unsigned keys map to themselves: applying the identity map cost time.
    const bool encode = KEY_MAP != MAP_UNSIGNED;
    if (TILE_OFFSETS == 1u) {
        const uint tiles = (n + params.tile_keys - 1u) / params.tile_keys;
        count_partition(n, partition_tiles(tiles, PARTITIONS), encode, 0u, 0u);
    } else {
        // The first step's look-back slot starts empty (each step empties the next one's).
        const uint slot_end = ST_STATUS + (n + params.tile_keys - 1u) / params.tile_keys * RADIX;
        const uint all = gl_NumWorkGroups.x * wg;
        for (uint i = ST_STATUS + gl_WorkGroupID.x * wg + tid; i < slot_end; i += all) st[i] = 0u;
        const uint block = wg * BATCH;
        count_digits(gl_WorkGroupID.x * block, n, gl_NumWorkGroups.x * block, encode, 0u);
        barrier();
        // Only the digits below the end bit were counted.
        const uint rows = MASKED == 0u ? PASSES : min((END_BIT + 7u) / 8u, PASSES);
        for (uint i = tid; i < rows * RADIX; i += wg) {
            uint c = s_hist[i];
            if (c != 0u) atomicAdd(st[ST_HIST + i], c);
        }
    }
    // One atomic per subgroup and word for the bits.
    for (uint w = 0u; w < KEY_WORDS; w++) {
        const uint any_one = subgroupOr(KEY_AT(g_keys_or, w));
        const uint any_zero = subgroupOr(KEY_AT(g_keys_nand, w));
        if (subgroupElect()) {
            if (any_one != 0u) atomicOr(st[ST_KEYS_OR + w], any_one);
            if (any_zero != 0u) atomicOr(st[ST_KEYS_NAND + w], any_zero);
        }
    }
    // The last workgroup to finish plans: every other one's counts are in by then.
    memoryBarrierBuffer();
    barrier();
    if (tid == 0u) s_hist[0] = atomicAdd(st[ST_TICKET], 1u);
    barrier();
    const bool last = s_hist[0] == gl_NumWorkGroups.x - 1u;
    barrier();
    if (last) {
        memoryBarrierBuffer();
        plan(n);
    }
}
