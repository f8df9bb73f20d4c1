// Included by radix_histogram.comp: the plan, run by the histogram's last workgroup to
// finish (an atomic ticket) rather than as a dispatch of its own, since a dispatch between
// barriers cost 4-7 us even when empty on an H200 and the plan's own took 11 us at 2^16.
//
// Decides on the GPU, without a round trip to the host, which passes to run: a pass whose
// digit is the same for all n keys would only copy, so it is skipped. The passes that run
// become the steps, which alternate between A->B and B->A (radix_common.glsl). An even
// number of steps ends in A: when an odd number of passes would run and a skipped pass is in
// the mask, that pass runs too (a stable copy that ends in A), so the host records the final
// B->A copy only where the mask holds an odd number of passes. The first pass that runs
// applies the key map on read and the last undoes it on write; when none runs (all keys
// equal, or n < 2) the keys are never touched. For the look-back it also turns the counts
// into bucket offsets (exclusive prefix sums).
//
// By reduce-then-scan (TILE_OFFSETS) it also cuts the tiles into partitions and sizes each
// step's upsweep (none for pass 0, whose tiles the histogram counted) and scan (or adds the
// scan's workgroups to the scatter's, SCAN_IN_PASS).
//
// The plan takes, in the push constants' step, the mask of the passes it may run (bit p:
// pass p); the others count as trivial. Expects the includer's s_hist (at least RADIX
// words), MAX_SUBGROUPS, SCAN_IN_PASS, TILE_OFFSETS and PARTITIONS, and the indirect buffer
// ind[]. Reads what other workgroups wrote by atomics (no plain load is promised to see it).

shared uint s_trivial[PASSES];
shared uint s_sg_sum[PASSES * MAX_SUBGROUPS];
shared uint s_carry[PASSES];

void plan(uint n) {
    const uint tid = gl_LocalInvocationIndex;
    const uint wg = gl_WorkGroupSize.x;
    // The first RADIX digits' counts of every pass, loaded now beside the keys' bits below
    // (those of passes found trivial are dropped), so that the plan waits for one round of
    // loads before its first barrier, not two.
    uint first_c[PASSES];
    [[unroll]] for (uint p = 0u; p < PASSES; p++) {
        first_c[p] = TILE_OFFSETS == 0u && tid < RADIX ? atomicOr(st[ST_HIST + p * RADIX + tid], 0u) : 0u;
    }
    // A pass is trivial where its digit is the same in every key: the histogram's OR of the
    // keys and OR of their complements are both ones in none of its bits.
    if (tid < PASSES) {
        const uint shift = tid * 8u;
        const uint w = shift / 32u;
        const uint varies =
            (atomicOr(st[ST_KEYS_OR + w], 0u) & atomicOr(st[ST_KEYS_NAND + w], 0u)) >> (shift % 32u);
        const bool trivial = n < 2u || (varies & digit_mask(shift)) == 0u || ((params.step >> tid) & 1u) == 0u;
        s_trivial[tid] = trivial ? 1u : 0u;
    }
    barrier();
    if (tid == 0u) {
        uint running = 0u;
        for (uint p = 0u; p < PASSES; p++) running += 1u - s_trivial[p];
        // An odd number of steps would end in B: run one skipped pass of the mask as well.
        for (uint p = 0u; (running & 1u) != 0u && p < PASSES; p++) {
            if (s_trivial[p] == 1u && n >= 2u && ((params.step >> p) & 1u) == 1u) {
                s_trivial[p] = 0u;
                running++;
            }
        }
    }
    barrier();
    // Bucket offsets for the look-back (reduce-then-scan's scans find their own), RADIX
    // digits at a time of whatever the workgroup's size, every pass at once: each invocation
    // reads its digit's count of every pass that runs (independent loads), so the tail waits
    // for one round of loads, not one per pass.
    if (tid < PASSES) s_carry[tid] = 0u;
    for (uint base = 0u; TILE_OFFSETS == 0u && base < RADIX; base += wg) {
        const uint d = base + tid;
        uint c[PASSES];
        [[unroll]] for (uint p = 0u; p < PASSES; p++) {
            const uint count = base == 0u ? first_c[p] : d < RADIX ? atomicOr(st[ST_HIST + p * RADIX + d], 0u) : 0u;
            c[p] = s_trivial[p] == 0u ? count : 0u;
        }
        uint before[PASSES];
        [[unroll]] for (uint p = 0u; p < PASSES; p++) {
            before[p] = subgroupExclusiveAdd(c[p]);
            const uint total = subgroupAdd(c[p]);
            if (subgroupElect()) s_sg_sum[p * MAX_SUBGROUPS + gl_SubgroupID] = total;
        }
        barrier();
        // One invocation a pass turns the subgroups' totals into their offsets.
        if (tid < PASSES) {
            uint run = s_carry[tid];
            for (uint s = 0u; s < gl_NumSubgroups; s++) {
                const uint t = s_sg_sum[tid * MAX_SUBGROUPS + s];
                s_sg_sum[tid * MAX_SUBGROUPS + s] = run;
                run += t;
            }
            s_carry[tid] = run;
        }
        barrier();
        [[unroll]] for (uint p = 0u; p < PASSES; p++) {
            if (d < RADIX && s_trivial[p] == 0u) {
                st[ST_BUCKET + p * RADIX + d] = s_sg_sum[p * MAX_SUBGROUPS + gl_SubgroupID] + before[p];
            }
        }
        barrier();
    }
    // What the histogram accumulates starts the next sort at zero, so that no dispatch
    // clears it first: by look-back here, once read (the bucket offsets are elsewhere); by
    // reduce-then-scan, whose scans read the counts, a clear ends the sort (record.rs).
    for (uint i = tid; TILE_OFFSETS == 0u && i < PASSES * RADIX; i += wg) st[ST_HIST + i] = 0u;
    if (tid < 2u * KEY_WORDS) st[tid < KEY_WORDS ? ST_KEYS_OR + tid : ST_KEYS_NAND + tid - KEY_WORDS] = 0u;
    if (tid == 0u) {
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
                st[ST_FLAGS + next] = (p << 8) | FLAG_RUNS | ((next & 1u) << 2) | ends;
                next++;
            }
        }
        for (; next < PASSES; next++) st[ST_FLAGS + next] = 0u;
        // The first step reads the keys the histogram counted: when it sorts by pass 0 (pass
        // 0 runs), the histogram left its tile offsets already.
        const bool counted = TILE_OFFSETS == 1u && s_trivial[0] == 0u;
        for (uint k = 0u; k < PASSES; k++) {
            const bool runs = k < running;
            const bool sweep = TILE_OFFSETS == 1u && runs;
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
        // The copy's workgroups are as many invocations as the histogram's.
        const uint copy_groups = (running & 1u) != 0u ? min((n + wg - 1u) / wg, 65535u) : 0u;
        ind[IND_COPY + 0u] = copy_groups;
        ind[IND_COPY + 1u] = 1u;
        ind[IND_COPY + 2u] = 1u;
        st[ST_TICKET] = 0u;
    }
}
