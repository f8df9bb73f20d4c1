// Reduce-then-scan, step 2 of a pass: turns the partitions' digit counts (left in the first
// status slot by radix_upsweep.comp or radix_histogram.comp) into the output index of each
// partition's first key of each digit: the digit's bucket offset plus the keys with the
// digit in all earlier partitions. SCAN_GROUPS workgroups share the work, each taking
// SCAN_DIGITS consecutive digits; they run either as the first workgroups of the pass's
// scatter (radix_scatter.comp), whose tiles wait for their offsets' OFFSET_READY, or as a
// dispatch of their own (radix_scan.comp).
//
// The offsets go to rows of their own (partition_offset_index in radix_common.glsl), not over
// the counts: a scatter tile that gives up waiting computes its offsets from the counts
// (direct_partition_offset), which must still be there.
//
// Included after radix_common.glsl and the declarations of st[] (the state) and of PARTITIONS
// (the plan's most partitions), with SCAN_SHARED naming a shared uint array of at least
// 2 * gl_NumSubgroups + SCAN_DIGITS words.

const uint SCAN_DIGITS = RADIX / SCAN_GROUPS;
// Invocations per digit (workgroups have at least SCAN_DIGITS invocations; the default size
// of 1, before specialization, must not divide by zero), and the most partitions each of
// them scans: a fixed run, so its loads are unrolled and in flight together, and the counts
// wait in registers for the second half.
const uint SCAN_LANES = gl_WorkGroupSize.x > SCAN_DIGITS ? gl_WorkGroupSize.x / SCAN_DIGITS : 1u;
const uint SCAN_PER = (PARTITIONS + SCAN_LANES - 1u) / SCAN_LANES;

// The first output index of digit d in pass `pass`: the host's, or the keys of smaller
// digits (the pass's counts in ST_HIST, complete before the pass: the upsweeps or the
// histogram added them up).
uint bucket_offset(uint pass, uint d) {
    if (st[ST_BUCKETS_GIVEN] == 1u) return st[ST_BUCKET + pass * RADIX + d];
    uint below = 0u;
    for (uint e = 0u; e < d; e++) below += st[ST_HIST + pass * RADIX + e];
    return below;
}

// What the scan leaves for partition p and digit d, computed alone from the counts.
uint direct_partition_offset(uint pass, uint p, uint d) {
    uint at = bucket_offset(pass, d);
    for (uint q = 0u; q < p; q++) at += st[ST_STATUS + q * RADIX + d];
    return at;
}

// The scan of digits [group * SCAN_DIGITS, +SCAN_DIGITS) for the step's pass. Invocations
// take the group's digits in order, SCAN_LANES each, and each of those a run of
// consecutive partitions, so that one exclusive scan across the workgroup, in invocation
// order, passes every digit's partitions in order: at invocation i it is the count of the
// group's smaller digits plus the digit's keys in earlier partitions; the keys of the digits
// below the group's come from ST_HIST. Called in uniform control flow.
void scan_partitions(uint group, uint step) {
    const uint tid = gl_LocalInvocationIndex;
    const uint pass = STEP_PASS(st[ST_FLAGS + step]);
    const uint partitions = st[ST_PARTITION + 1u];
    const uint first_digit = group * SCAN_DIGITS;
    const uint digit_in_group = min(tid / SCAN_LANES, SCAN_DIGITS - 1u);
    const uint d = first_digit + digit_in_group;
    const uint lane = tid / SCAN_LANES < SCAN_DIGITS ? tid % SCAN_LANES : SCAN_LANES;
    const uint per = (partitions + SCAN_LANES - 1u) / SCAN_LANES;
    // The keys of the digits below the group's, summed across the workgroup.
    uint below_group = 0u;
    for (uint e = tid; e < first_digit; e += gl_WorkGroupSize.x) {
        below_group += st[ST_HIST + pass * RADIX + e];
    }
    const bool given = st[ST_BUCKETS_GIVEN] == 1u;
    const uint given_bucket = st[ST_BUCKET + pass * RADIX + d];
    uint counts[SCAN_PER];
    uint total = 0u;
    [[unroll]] for (uint j = 0u; j < SCAN_PER; j++) {
        const uint q = lane * per + j;
        counts[j] = j < per && q < partitions ? st[ST_STATUS + q * RADIX + d] : 0u;
        total += counts[j];
    }
    const uint before = subgroupExclusiveAdd(total);
    const uint sg_total = subgroupAdd(total);
    const uint sg_below = subgroupAdd(below_group);
    if (subgroupElect()) {
        SCAN_SHARED[gl_SubgroupID] = sg_total;
        SCAN_SHARED[gl_NumSubgroups + gl_SubgroupID] = sg_below;
    }
    barrier();
    uint run = before;
    for (uint s = 0u; s < gl_SubgroupID; s++) run += SCAN_SHARED[s];
    if (given) {
        // The host's bucket offset in place of the keys of the group's smaller digits, which
        // the scan holds at the digit's first invocation. (ST_HIST may not hold the pass's
        // counts: where the host gives the offsets, it read every pass's counts from a
        // histogram to which the upsweep then added its own.)
        if (lane == 0u) SCAN_SHARED[2u * gl_NumSubgroups + digit_in_group] = run;
        barrier();
        run += given_bucket - SCAN_SHARED[2u * gl_NumSubgroups + digit_in_group];
    } else {
        for (uint s = 0u; s < gl_NumSubgroups; s++) run += SCAN_SHARED[gl_NumSubgroups + s];
    }
    [[unroll]] for (uint j = 0u; j < SCAN_PER; j++) {
        const uint q = lane * per + j;
        if (j < per && q < partitions) {
            // Read by waiting tiles with relaxed atomic loads: the flag is in the word itself.
            atomicStore(st[partition_offset_index(step, q, d)], OFFSET_READY | run,
                        gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        }
        run += counts[j];
    }
}
