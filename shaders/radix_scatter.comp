#version 450
// variants: radix_scatter_k32:-DKEY64=0,-DPAIRS=0 radix_scatter_k64:-DKEY64=1,-DPAIRS=0 radix_scatter_p32:-DKEY64=0,-DPAIRS=1 radix_scatter_p64:-DKEY64=1,-DPAIRS=1
//
// One radix pass over one 8-bit digit, Onesweep style (Adinets & Merrill, 2022): each
// workgroup (its id is its tile) ranks its keys inside the tile, publishes its per-digit
// counts, finds the keys of earlier tiles with the same digit by decoupled look-back, and
// writes its keys (and values) to their places. The look-back words are a 2-bit flag and a
// 30-bit count in one word, read with relaxed atomic loads and published with relaxed
// atomic stores. LB_LANES lanes walk each digit together,
// each reading LOOKAHEAD earlier tiles per step, so a step covers LB_LANES * LOOKAHEAD tiles
// (a tile's walk reaches about 25 tiles back on an H200: BENCHMARKS.md, "GPU radix tiles").
//
// Vulkan promises no forward progress between workgroups, so the look-back never waits
// unboundedly: a digit that sees no word from tile j after SPIN_LIMIT reads gives up, and the
// whole workgroup counts tile j's keys itself (they are in the source buffer, which nobody
// writes during the pass). The result is the same either way; only the time differs.
//
// Reduce-then-scan (REDUCE_SCAN = 1): each tile's offsets inside its partition were counted
// before the pass (radix_upsweep.comp or radix_histogram.comp), and its partition's offsets
// come from the scan of the partitions' counts (radix_partition_scan.glsl: by this
// dispatch's first workgroups with SCAN_IN_PASS, else by radix_scan.comp before it), so the
// tile reads them instead of looking back, and no tile waits for another.
//
// Split (SPLIT = 1, the short path of small sorts: radix_small.comp finishes it): no bucket
// offsets and no look-back; each tile ranks its keys by a bucket of 256, writes them in that
// order over its own place in the destination, and leaves each bucket's first index and
// count inside the tile in one status word (index low, count high), from which each
// bucket's workgroup finds its keys' runs. The buckets come from a sample of the keys that
// every workgroup draws alike (choose_split): the top digit below the end bit where the
// sample finds it spread, else 255 splitters from the sorted sample, so that keys sharing a
// top digit (depths of one narrow float range) or a few values do not fill one bucket.
//
// Stability: a subgroup owns a contiguous run of the tile and takes its keys in index
// order (round k, lane l -> index k*S + l); ranks count equal digits in earlier rounds
// (per-subgroup counters), earlier lanes (ballot match) and earlier subgroups (prefix over
// the subgroup counters), so equal digits keep their input order. Nothing assumes a
// subgroup size: the match uses all four words of a ballot and every count loops over
// gl_NumSubgroups. (subgroupPartitionNV in place of the eight ballots made a u32 sort 28%
// slower on an H200: BENCHMARKS.md, "GPU radix tiles".)
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require

#include "radix_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint KPT = 8;            // keys per invocation
layout(constant_id = 2) const uint MAX_SUBGROUPS = 8;  // WG / the smallest subgroup size
layout(constant_id = 3) const uint SPIN_LIMIT = 8192;  // reads of a missing look-back word before the fallback
layout(constant_id = 4) const uint BALLOT_WORDS = 4;   // ballot words in use: 1 when subgroups have at most 32 lanes
layout(constant_id = 10) const uint LOOKAHEAD = 4;     // earlier tiles whose words one look-back step reads
layout(constant_id = 18) const uint LB_LANES_WANTED = 2; // invocations that walk one digit's look-back together (a power of two)
layout(constant_id = 21) const uint REDUCE_SCAN = 0;   // 1: reduce-then-scan, no look-back (see main)
layout(constant_id = 22) const uint HALF_KEYS = 0;     // 64-bit keys: 1 reorders one 32-bit half of the keys at a time
layout(constant_id = 23) const uint SCAN_IN_PASS = 1;  // reduce-then-scan: 1: the first SCAN_GROUPS workgroups scan (see main)
layout(constant_id = 24) const uint PARTITIONS = 1024; // reduce-then-scan: the plan's most partitions
layout(constant_id = 25) const uint SPLIT = 0;         // 1: split into 256 buckets, no look-back (see the top)
layout(constant_id = 26) const uint BUCKET_KEYS = 2048; // split: the most keys a bucket sorts in shared memory

const uint WG = gl_WorkGroupSize.x;
// Lanes per digit in the look-back: as wanted, but no more than the smallest subgroup (the
// lanes of a digit share one subgroup). With fewer than RADIX * LB_LANES invocations the
// lane groups take several digits each.
const uint MIN_SUBGROUP = WG / MAX_SUBGROUPS;
const uint LB_LANES_MAX = MIN_SUBGROUP < LB_LANES_WANTED ? MIN_SUBGROUP : LB_LANES_WANTED;
const uint LB_LANES = LB_LANES_MAX > 1u ? LB_LANES_MAX : 1u;
const uint STOP_PREFIX = 0x100u;  // look-back share: the walk ended on a prefix (LOOKAHEAD < 256)
// Ranks in a tile are below TILE <= 65536 (radix::plan::choose_shape), so two share a
// register: fewer registers let u64 keys take 5 keys per invocation at 64 registers
// (BENCHMARKS.md, "GPU radix tiles").
const uint RANK_WORDS = (KPT + 1u) / 2u;
#define RANK_GET(k) bitfieldExtract(rank[(k) / 2u], int(16u * ((k) % 2u)), 16)
#define RANK_SET(k, v) rank[(k) / 2u] = bitfieldInsert(rank[(k) / 2u], (v), int(16u * ((k) % 2u)), 16)
const uint TILE = WG * KPT;
const uint HIST_WORDS = MAX_SUBGROUPS * RADIX;
// HALF_KEYS halves the sorted tile of 64-bit keys: the half that holds the pass's digit goes
// through shared memory first (it tells where each key goes), then the other half. Shared
// memory, not registers, decides how many workgroups share a multiprocessor.
const uint TILE_WORDS = TILE * (HALF_KEYS == 1u ? 1u : KEY_WORDS);
// The sorted tile reuses the counters' words. (Giving it words of its own saves the barrier
// between reading the counters and writing the keys, but the larger footprint kept the
// second workgroup off each multiprocessor of an H200: 3.07 against 2.07 ms for 2^26 u32
// keys, BENCHMARKS.md, "GPU radix tiles".)
// (The scan's workgroups use them too: radix_partition_scan.glsl.)
const uint SORT_WORDS = HIST_WORDS > TILE_WORDS ? HIST_WORDS : TILE_WORDS;
const uint SCAN_WORDS = 2u * MAX_SUBGROUPS + RADIX / SCAN_GROUPS;
const uint SMEM_WORDS = SORT_WORDS > SCAN_WORDS ? SORT_WORDS : SCAN_WORDS;

layout(std430, binding = 0) readonly buffer SrcKeys { KEY src_keys[]; };
layout(std430, binding = 1) writeonly buffer DstKeys { KEY dst_keys[]; };
#if PAIRS
layout(std430, binding = 2) readonly buffer SrcVals { uint src_vals[]; };
layout(std430, binding = 3) writeonly buffer DstVals { uint dst_vals[]; };
#endif
// Coherent, not volatile: plain reads of the state (count, flags, bucket offsets) may be
// scheduled early; the look-back words are read with atomics so each read sees the latest.
layout(std430, binding = 4) coherent buffer State { uint st[]; };

// Per-subgroup digit counters during ranking, then the tile's keys (and values) in their
// sorted order inside the tile.
shared uint s_mem[SMEM_WORDS];
shared uint s_out[RADIX];       // output index of tile-local index 0 of each digit
// The look-back keeps no per-digit arrays in shared memory: each walk's state lives in the
// registers of the lanes that walk the digit, the tile's counts and first indices in the
// registers of the invocations that own the digits, and s_out carries a walk's result to its
// owner (and serves the fallback's recount). On an H200 a multiprocessor gives a compute
// pipeline 48 KiB of shared memory in all, so per-digit arrays here (5 KiB) would cost the
// larger tile: 512 x 11 keys fit two workgroups per multiprocessor (BENCHMARKS.md, "GPU radix tiles").
shared uint s_sg_sum[MAX_SUBGROUPS];
shared uint s_pending;
shared uint s_stalled;

#define SCAN_SHARED s_mem
#include "radix_partition_scan.glsl"

uint status_index(uint slot, uint tile, uint digit) {
    return ST_STATUS + slot * params.slot_words + tile * RADIX + digit;
}

// One look-back word, read so that it sees the latest store (the loop around it spins).
uint read_status(uint at) {
    return atomicLoad(st[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Publishes a look-back word. Other tiles read only the word itself, so no ordering with
// other memory is needed: a relaxed store (a plain store to L2, as CUB's volatile store),
// which measured 3-5% faster per sort than atomicExchange (BENCHMARKS.md, "GPU radix tiles").
void publish_status(uint at, uint word) {
    atomicStore(st[at], word, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Digits per invocation in the per-digit phases (at most 4: workgroups have at least 64
// invocations); invocation t owns digits t * PER .. t * PER + PER - 1.
const uint PER = (RADIX + WG - 1u) / WG;
// Rounds of the look-back: LB_LANES lanes per digit, WG lanes per round.
const uint LB_ROUNDS = (RADIX * LB_LANES + WG - 1u) / WG;

// Decoupled look-back with a bounded spin and the recount fallback: leaves in s_out the output
// index of tile-local index 0 of each digit, and publishes this tile's inclusive prefix.
// `counts` and `excl` are the tile's count and first index of each digit the invocation owns.
// Called in uniform control flow, with s_pending and s_stalled zero.
void look_back(uint tile, uint slot, uint n, bool encode, uint shift, uint bucket_first,
               uint counts[4], uint excl[4]) {
    const uint tid = gl_LocalInvocationIndex;
    // LB_LANES consecutive lanes of one subgroup walk each digit together (numbered by
    // subgroup and lane, which need not follow gl_LocalInvocationIndex), each round of WG
    // lanes a run of digits. Every lane of a digit keeps the walk's state (the next tile to
    // read, 0 when done, and the keys found so far) in its registers across the fallback's
    // rounds. The loops are uniform in each subgroup, so the shuffles that join the lanes'
    // shares never run in divergent control flow: a lane whose walk has ended, or that has
    // no digit, steps along idle.
    const uint lane_index = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    const uint part = gl_SubgroupInvocationID % LB_LANES;
    const uint first_lane = gl_SubgroupInvocationID - part;
    uint lb_next[LB_ROUNDS];
    uint lb_sum[LB_ROUNDS];
    [[unroll]] for (uint r = 0u; r < LB_ROUNDS; r++) {
        lb_next[r] = tile;
        lb_sum[r] = 0u;
    }
    for (;;) {
        [[unroll]] for (uint r = 0u; r < LB_ROUNDS; r++) {
            const uint d = (r * WG + lane_index) / LB_LANES;
            const bool has_digit = d < RADIX;
            uint next = has_digit ? lb_next[r] : 0u;
            uint sum = lb_sum[r];
            uint spins = 0u;
            while (subgroupBallot(next > 0u && spins < SPIN_LIMIT) != uvec4(0u)) {
                const bool walking_digit = next > 0u && spins < SPIN_LIMIT;
                // This lane's share of the step: LOOKAHEAD earlier tiles at once
                // (independent loads), walked in order while they hold counts. `stop` is
                // where the walk ended (LOOKAHEAD: every word held an aggregate), with
                // STOP_PREFIX set when it ended on a prefix.
                const uint start = next;
                const uint skip = part * LOOKAHEAD;
                uint words[LOOKAHEAD];
                [[unroll]] for (uint i = 0u; i < LOOKAHEAD; i++) {
                    words[i] = 0u;
                    if (walking_digit && start > skip + i) {
                        words[i] = read_status(status_index(slot, start - 1u - skip - i, d));
                    }
                }
                uint stop = LOOKAHEAD;
                uint part_sum = 0u;
                bool open_share = true;
                [[unroll]] for (uint i = 0u; i < LOOKAHEAD; i++) {
                    uint flag = words[i] & ~VALUE_MASK;
                    if (open_share) {
                        if (flag == 0u) {
                            stop = i;
                            open_share = false;
                        } else {
                            part_sum += words[i] & VALUE_MASK;
                            if (flag == FLAG_PREFIX) {
                                stop = i | STOP_PREFIX;
                                open_share = false;
                            }
                        }
                    }
                }
                // The shares in order: every share up to the first that ended counts.
                bool more = walking_digit;
                [[unroll]] for (uint j = 0u; j < LB_LANES; j++) {
                    uint share_sum = part_sum;
                    uint share_stop = stop;
                    if (LB_LANES > 1u) {
                        share_sum = subgroupShuffle(part_sum, first_lane + j);
                        share_stop = subgroupShuffle(stop, first_lane + j);
                    }
                    if (more) {
                        sum += share_sum;
                        if ((share_stop & STOP_PREFIX) != 0u) {
                            next = 0u;
                            more = false;
                        } else {
                            // Tile 0 always ends a walk (its word is a prefix or unpublished),
                            // so the walk never passes it.
                            next = start - (j * LOOKAHEAD + share_stop);
                            more = share_stop == LOOKAHEAD;
                        }
                    }
                }
                if (walking_digit) spins = next == start ? spins + 1u : 0u;
            }
            lb_next[r] = next;
            lb_sum[r] = sum;
            if (has_digit && part == 0u && next > 0u) {
                atomicAdd(s_pending, 1u);
                atomicMax(s_stalled, next);
            }
        }
        barrier();
        if (s_pending == 0u) break;
        // Recount the highest tile some digit is stuck on, in s_out.
        const uint stuck = s_stalled - 1u;
        for (uint d = tid; d < RADIX; d += WG) s_out[d] = 0u;
        barrier();
        // Every invocation has read s_pending and s_stalled by now.
        if (tid == 0u) {
            s_pending = 0u;
            s_stalled = 0u;
        }
        const uint stuck_base = stuck * TILE;
        const uint stuck_n = min(TILE, n - stuck_base);
        for (uint i = tid; i < stuck_n; i += WG) {
            KEY key = src_keys[stuck_base + i];
            if (encode) key = encode_key(key, KEY_MAP);
            atomicAdd(s_out[digit_of(key, shift)], 1u);
        }
        barrier();
        [[unroll]] for (uint r = 0u; r < LB_ROUNDS; r++) {
            const uint d = (r * WG + lane_index) / LB_LANES;
            if (d < RADIX && lb_next[r] == stuck + 1u) {
                lb_sum[r] += s_out[d];
                lb_next[r] = stuck;
            }
        }
        barrier();
    }

    // Each walk's result to the digit's owner, through s_out.
    [[unroll]] for (uint r = 0u; r < LB_ROUNDS; r++) {
        const uint d = (r * WG + lane_index) / LB_LANES;
        if (d < RADIX && part == 0u) s_out[d] = lb_sum[r];
    }
    barrier();
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        const uint d = tid * PER + j;
        if (j >= PER || d >= RADIX) continue;
        const uint earlier = s_out[d];
        if (tile != 0u) {
            publish_status(status_index(slot, tile, d), FLAG_PREFIX | (earlier + counts[j]));
        }
        const uint bucket = d == tid ? bucket_first : st[ST_BUCKET + (shift / 8u) * RADIX + d];
        s_out[d] = bucket + earlier - excl[j];
    }
}

// Reduce-then-scan: the partition's offset of digit d as the scan left it (OFFSET_READY set),
// or zero while the scan has not reached it.
uint partition_offset_word(uint tile, uint d) {
    return atomicLoad(st[partition_offset_index(params.step, tile / st[ST_PARTITION], d)],
                      gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Reduce-then-scan: the tile's offset of digit d inside its partition (from
// radix_upsweep.comp or radix_histogram.comp, known before the pass).
uint offset_in_partition(uint tile, uint d) {
    return st[ST_STATUS + params.slot_words + tile * RADIX + d];
}

// Reduce-then-scan: the output index of this tile's first key of digit d, its partition's
// offset (radix_partition_scan.glsl) plus its offset inside the partition, waiting for the
// scan with a bounded spin (Vulkan promises no forward progress between workgroups), then
// computing the partition's offset from the counts instead (always with SPIN_LIMIT 0, which
// tests that way).
uint tile_offset(uint tile, uint d, uint pass) {
    for (uint spins = 0u;; spins++) {
        const uint word = SPIN_LIMIT == 0u ? 0u : partition_offset_word(tile, d);
        if ((word & OFFSET_READY) != 0u) return (word & ~OFFSET_READY) + offset_in_partition(tile, d);
        if (spins >= SPIN_LIMIT) {
            return direct_partition_offset(pass, tile / st[ST_PARTITION], d) +
                   offset_in_partition(tile, d);
        }
    }
    return 0u;
}

// `first` for a tile whose offset of digit tid is not fetched yet.
const uint OFFSET_LATER = ~0u;

#if !KEY64
// ---- split: choosing the buckets ----------------------------------------------------------
// Sampled keys: a power of two, at least RADIX, that s_mem holds (it is free before the tile).
const uint SAMPLE = SMEM_WORDS >= 2048u ? 2048u : (SMEM_WORDS >= 1024u ? 1024u : (SMEM_WORDS >= 512u ? 512u : 256u));

// The bits a sort compares: those below the end bit (of the mapped key).
uint sort_word(uint k) {
    return END_BIT >= 32u ? k : k & ((1u << END_BIT) - 1u);
}

// Where sample i lies: one in each of SAMPLE equal strata of the count, at a place in it
// drawn by a hash of i (the same in every workgroup), so that a sorted or periodic input
// is sampled as well as a shuffled one.
uint sample_position(uint i, uint n) {
    uint h = i * 0x9e3779b9u;
    h ^= h >> 15;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    // Stratum i: [i * n / SAMPLE, (i + 1) * n / SAMPLE), below 2^31 as n <= 2^20.
    const uint first = (i * n) / SAMPLE;
    return first + h % max(((i + 1u) * n) / SAMPLE - first, 1u);
}

// Chooses the split's buckets from SAMPLE keys, alike in every workgroup, and says which way
// (uniform): false, by the top digit below the end bit, where no digit holds more than 3/8
// of what a bucket's workgroup sorts in shared memory in the sample's estimate (random
// keys to 2^16: no sort of the sample, and even buckets); true, by the 255
// splitters it leaves in s_out, the sample's quantiles, where a digit holds more (keys of
// one narrow range, few distinct values). Ends with a barrier.
bool choose_split(uint n, bool encode) {
    const uint tid = gl_LocalInvocationIndex;
    const uint shift = ((END_BIT - 1u) / 8u) * 8u;
    for (uint d = tid; d < RADIX; d += WG) s_out[d] = 0u;
    if (tid == 0u) s_stalled = 0u;
    for (uint i = tid; i < SAMPLE; i += WG) {
        uint k = src_keys[sample_position(i, n)];
        if (encode) k = encode_key(k, KEY_MAP);
        s_mem[i] = sort_word(k);
    }
    barrier();
    for (uint i = tid; i < SAMPLE; i += WG) atomicAdd(s_out[(s_mem[i] >> shift) & 255u], 1u);
    barrier();
    for (uint d = tid; d < RADIX; d += WG) atomicMax(s_stalled, s_out[d]);
    barrier();
    // most / SAMPLE of the n keys in one digit, against 3/8 of BUCKET_KEYS (the short path
    // takes at most 64 x BUCKET_KEYS keys, 2^17: no overflow).
    if (s_stalled * n * 8u <= SAMPLE * BUCKET_KEYS * 3u) return false;
    // Up to 2^16 keys every other sample is sorted, 1024 strata of the count (on an H200 the
    // sort of 2048 took 12 us; 1024 leave the largest bucket of keys of one top digit at 805
    // of 2048, by the rule in Python): `sorted` of them.
    uint sorted = SAMPLE;
    if (SAMPLE >= 2048u && n <= 65536u) {
        sorted = SAMPLE / 2u;
        uint kept[(SAMPLE / 2u + WG - 1u) / WG];
        [[unroll]] for (uint r = 0u; r * WG < SAMPLE / 2u; r++) {
            kept[r] = r * WG + tid < sorted ? s_mem[2u * (r * WG + tid)] : 0u;
        }
        barrier();
        [[unroll]] for (uint r = 0u; r * WG < SAMPLE / 2u; r++) {
            if (r * WG + tid < sorted) s_mem[r * WG + tid] = kept[r];
        }
        barrier();
    }
    // The sample's bitonic sort: sorted / 2 compare-exchanges a step.
    for (uint k = 2u; k <= sorted; k <<= 1u) {
        for (uint j = k >> 1u; j > 0u; j >>= 1u) {
            for (uint p = tid; p < sorted / 2u; p += WG) {
                const uint i = ((p & ~(j - 1u)) << 1u) | (p & (j - 1u));
                const uint a = s_mem[i];
                const uint b = s_mem[i | j];
                if ((a > b) == ((i & k) == 0u)) {
                    s_mem[i] = b;
                    s_mem[i | j] = a;
                }
            }
            barrier();
        }
    }
    // Bucket b holds the words in (splitter b - 1, splitter b]: sorted / RADIX samples each.
    const uint step = sorted / RADIX;
    for (uint j = tid; j < RADIX - 1u; j += WG) s_out[j] = s_mem[(j + 1u) * step - 1u];
    barrier();
    return true;
}

// The bucket of sort word w at input position pos of n, by the splitters in s_out: the
// splitters below w. A word equal to splitters lo..hi-1 (a value frequent enough to fill
// several buckets) may go to any of buckets lo..hi-1 (those above lo hold only that word), so
// such keys spread over them by position, which keeps equal keys in input order.
uint splitter_bucket(uint w, uint pos, uint n) {
    uint lo = 0u;
    uint hi = 0u;
    [[unroll]] for (uint step = 128u; step > 0u; step >>= 1u) {
        if (s_out[lo + step - 1u] < w) lo += step;
        if (s_out[hi + step - 1u] <= w) hi += step;
    }
    return hi > lo ? lo + (pos * (hi - lo)) / n : lo;
}
#endif

// Ranks one tile, finds where its keys go (by look-back or from the offsets the upsweep and
// scan left), and writes them there. `first` is the bucket offset (look-back) or the tile's
// offset (reduce-then-scan; OFFSET_LATER when the scan was not done yet) of digit tid;
// Called in uniform control flow.
void sort_tile(const uint tile, const uint n, const uint flags, const uint first) {
    const uint tid = gl_LocalInvocationIndex;
    const bool encode = (flags & 1u) != 0u;
    const bool decode = (flags & 2u) != 0u;
    const uint slot = (flags >> 2) & 1u;
    const uint shift = STEP_PASS(flags) * 8u;
    const uint base = tile * TILE;

    const uint sg = gl_SubgroupID;
    const uint lane = gl_SubgroupInvocationID;
    const uint sg_first = sg * gl_SubgroupSize * KPT;

    // The loads are bounded by the buffers' capacity, not by the count, so they need not wait
    // for the count's load: keys past the count are read but never used.
    KEY keys[KPT];
    uint rank[RANK_WORDS];
    [[unroll]] for (uint w = 0u; w < RANK_WORDS; w++) rank[w] = 0u;
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        uint idx = sg_first + k * gl_SubgroupSize + lane;
        keys[k] = KEY_ZERO;
        if (base + idx < params.capacity) keys[k] = src_keys[base + idx];
    }
    // The split's buckets, chosen while the tile's loads are in flight (s_mem is free yet):
    // by the splitters in s_out, or by the top digit.
#if KEY64
    const bool splitters = false;
#else
    bool splitters = false;
    if (SPLIT == 1u) splitters = choose_split(n, encode);
#endif
    // Each subgroup clears its own counters: only its own lanes count into them, so a
    // subgroup barrier (below) orders the clear before the ranking, not a workgroup one.
    for (uint i = lane; i < RADIX; i += gl_SubgroupSize) s_mem[sg * RADIX + i] = 0u;
    const uint tile_n = min(TILE, n - base);
    if (encode) {
        [[unroll]] for (uint k = 0u; k < KPT; k++) keys[k] = encode_key(keys[k], KEY_MAP);
    }
    // Places past the count (in the last tile) hold all-ones keys: digit 255 in every pass
    // and later in the tile than every real key, so they rank after all of them and the
    // tile's first tile_n sorted places hold exactly its real keys. The ranking then needs
    // no test of which lanes hold keys.
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        if (sg_first + k * gl_SubgroupSize + lane >= tile_n) keys[k] = KEY_ONES;
    }
    // The split's bucket of each key (places past the count: the last bucket, after its
    // real keys); otherwise the pass's digit.
#if KEY64
#define KEY_DIGIT(k) digit_of(keys[k], shift)
#else
    uint split_digit[KPT];
    if (SPLIT == 1u) {
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            const uint idx = sg_first + k * gl_SubgroupSize + lane;
            split_digit[k] = idx >= tile_n ? RADIX - 1u
                : splitters ? splitter_bucket(sort_word(keys[k]), base + idx, n)
                : digit_of(keys[k], shift);
        }
    }
#define KEY_DIGIT(k) (SPLIT == 1u ? split_digit[k] : digit_of(keys[k], shift))
#endif
    const uvec4 lanes_in = subgroupBallot(true);
    subgroupBarrier();
    const uint other_slot = slot ^ 1u;

    // Rank within the subgroup: peers = lanes of this round with the same digit. With at
    // most 32 lanes (BALLOT_WORDS == 1) the match works on one word; the general path works
    // on all four.
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        uint d = KEY_DIGIT(k);
        uint below;
        uint count;
        uint leader;
        if (BALLOT_WORDS == 1u) {
            uint peers = lanes_in.x;
            [[unroll]] for (uint b = 0u; b < 8u; b++) {
                bool bit = ((d >> b) & 1u) != 0u;
                uint m = subgroupBallot(bit).x;
                peers &= bit ? m : ~m;
            }
            below = bitCount(peers & gl_SubgroupLtMask.x);
            count = bitCount(peers);
            leader = uint(findLSB(peers));
        } else {
            uvec4 peers = lanes_in;
            [[unroll]] for (uint b = 0u; b < 8u; b++) {
                bool bit = ((d >> b) & 1u) != 0u;
                uvec4 m = subgroupBallot(bit);
                peers &= bit ? m : ~m;
            }
            below = subgroupBallotExclusiveBitCount(peers);
            count = subgroupBallotBitCount(peers);
            leader = subgroupBallotFindLSB(peers);
        }
        uint before = 0u;
        if (lane == leader) {
            before = atomicAdd(s_mem[sg * RADIX + d], count);
        }
        RANK_SET(k, subgroupShuffle(before, leader) + below);
    }
    barrier();

    // Per digit, each invocation a run of PER consecutive digits (at most 4, as workgroups
    // have at least 64 invocations): the tile's count, each subgroup's counter turned into
    // its exclusive prefix over the subgroups before it, the count published at once for
    // later tiles; then the exclusive scan of the counts over the digits, added into every
    // subgroup's counter (so that a key's counter is its digit's first index in the sorted
    // tile), for any workgroup and subgroup size.
    uint run_total = 0u;
    uint counts[4];
    uint excl[4];
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        const uint d = tid * PER + j;
        counts[j] = 0u;
        excl[j] = 0u;
        if (j >= PER || d >= RADIX) continue;
        uint sum = 0u;
        // (Loading all the subgroup counters first, unrolled to MAX_SUBGROUPS, measured no
        // faster.)
        for (uint s = 0u; s < gl_NumSubgroups; s++) {
            uint t = s_mem[s * RADIX + d];
            s_mem[s * RADIX + d] = sum;
            sum += t;
        }
        counts[j] = sum;
        if (REDUCE_SCAN == 0u && SPLIT == 0u) {
            publish_status(status_index(slot, tile, d),
                           (tile == 0u ? FLAG_PREFIX : FLAG_AGGREGATE) | sum);
            // The other slot served the previous pass and serves the next one: clear it now.
            st[status_index(other_slot, tile, d)] = 0u;
        }
        run_total += sum;
    }
    if (tid == 0u) {
        s_pending = 0u;
        s_stalled = 0u;
    }
    const uint run_before = subgroupExclusiveAdd(run_total);
    const uint sg_total = subgroupAdd(run_total);
    if (subgroupElect()) s_sg_sum[gl_SubgroupID] = sg_total;
    barrier();
    // Each invocation adds the totals of the subgroups before its own (a few broadcast
    // reads), which saves the barrier a scan of the totals in place would need.
    uint digit_at = run_before;
    if (tid * PER < RADIX) {
        for (uint s = 0u; s < gl_SubgroupID; s++) digit_at += s_sg_sum[s];
    }
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        const uint d = tid * PER + j;
        if (j >= PER || d >= RADIX) continue;
        for (uint s = 0u; s < gl_NumSubgroups; s++) s_mem[s * RADIX + d] += digit_at;
        if (SPLIT == 1u) {
            // Places past the count, ranked after the real keys of the last bucket, are not
            // the bucket's.
            const uint pad = d == RADIX - 1u ? TILE - tile_n : 0u;
            st[ST_STATUS + tile * RADIX + d] = digit_at | ((counts[j] - pad) << 16);
            s_out[d] = base;
        } else if (REDUCE_SCAN == 1u) {
            const bool fetched = d == tid && first != OFFSET_LATER;
            s_out[d] = (fetched ? first : tile_offset(tile, d, STEP_PASS(flags))) - digit_at;
        } else {
            excl[j] = digit_at;
        }
        digit_at += counts[j];
    }
    barrier();

    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        RANK_SET(k, RANK_GET(k) + s_mem[sg * RADIX + KEY_DIGIT(k)]);
    }
    barrier();
#if KEY64
    const bool digit_high = shift >= 32u;
#endif
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
#if KEY64
        if (HALF_KEYS == 1u) {
            s_mem[RANK_GET(k)] = digit_high ? keys[k].y : keys[k].x;
        } else {
            s_mem[RANK_GET(k)] = keys[k].x;
            s_mem[TILE + RANK_GET(k)] = keys[k].y;
        }
#else
        s_mem[RANK_GET(k)] = keys[k];
#endif
    }

    if (REDUCE_SCAN == 0u && SPLIT == 0u) {
        look_back(tile, slot, n, encode, shift, first, counts, excl);
    }
    barrier();

    uint out_index[KPT];
#if KEY64
    if (HALF_KEYS == 1u) {
        // The digit's half first: where each key goes. It waits in registers while the
        // other half takes its turn in shared memory; then the whole key is written (each
        // half written as its own 32-bit word was far slower).
        uint digit_half[KPT];
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            uint i = k * WG + tid;
            digit_half[k] = s_mem[i];
            out_index[k] = s_out[(digit_half[k] >> (shift & 31u)) & digit_mask(shift)] + i;
        }
        barrier();
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            s_mem[RANK_GET(k)] = digit_high ? keys[k].x : keys[k].y;
        }
        barrier();
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            uint i = k * WG + tid;
            if (i < tile_n) {
                uint other = s_mem[i];
                KEY key = digit_high ? uvec2(other, digit_half[k]) : uvec2(digit_half[k], other);
                if (decode) key = decode_key(key, KEY_MAP);
                dst_keys[out_index[k]] = key;
            }
        }
    } else
#endif
    {
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            uint i = k * WG + tid;
            if (i < tile_n) {
#if KEY64
                KEY key = uvec2(s_mem[i], s_mem[TILE + i]);
#else
                KEY key = s_mem[i];
#endif
                uint out_i = s_out[digit_of(key, shift)] + i;
                if (decode) key = decode_key(key, KEY_MAP);
                dst_keys[out_i] = key;
                out_index[k] = out_i;
            }
        }
    }
#if PAIRS
    barrier();
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        uint idx = sg_first + k * gl_SubgroupSize + lane;
        if (idx < tile_n) s_mem[RANK_GET(k)] = src_vals[base + idx];
    }
    barrier();
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        uint i = k * WG + tid;
        if (i < tile_n) dst_vals[out_index[k]] = s_mem[i];
    }
#endif
}

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint flags = st[ST_FLAGS + params.step];
    const uint n = KEY_COUNT();
    if (SPLIT == 1u) {
        // Tiles past a count the GPU holds have nothing to split. The buckets: the top digit
        // below the end bit or the sample's splitters; the key map applied on read, and not
        // undone (radix_small.comp does).
        if (gl_WorkGroupID.x * TILE >= n) return;
        const uint top = (END_BIT - 1u) / 8u;
        const uint encode = KEY_MAP != MAP_UNSIGNED ? 1u : 0u;
        sort_tile(gl_WorkGroupID.x, n, (top << 8) | encode, 0u);
        return;
    }
    if (REDUCE_SCAN == 1u) {
        // Reduce-then-scan. With SCAN_IN_PASS the first SCAN_GROUPS workgroups scan the
        // partitions' counts (saving a dispatch and its drain: BENCHMARKS.md, "GPU radix tiles") and
        // the tiles follow them; a tile waits for the scan only where it needs the offsets,
        // after the ranking, and only the first tiles to start find it unfinished.
        if (SCAN_IN_PASS == 1u && gl_WorkGroupID.x < SCAN_GROUPS) {
            scan_partitions(gl_WorkGroupID.x, params.step);
            return;
        }
        const uint tile = gl_WorkGroupID.x - (SCAN_IN_PASS == 1u ? SCAN_GROUPS : 0u);
        // The offset of digit tid, fetched now (where the scan has written it), so that its
        // latency hides behind the ranking.
        uint first = OFFSET_LATER;
        if (tid < RADIX && SPIN_LIMIT > 0u) {
            const uint word = partition_offset_word(tile, tid);
            const uint inside = offset_in_partition(tile, tid);
            if ((word & OFFSET_READY) != 0u) first = (word & ~OFFSET_READY) + inside;
        }
        sort_tile(tile, n, flags, first);
        return;
    }
    // A step dispatched directly that the plan left out (radix_common.glsl: FLAG_RUNS), or
    // a tile past a count the GPU holds (a dispatch sized for the capacity).
    if ((flags & FLAG_RUNS) == 0u || gl_WorkGroupID.x * TILE >= n) return;
    // Bucket offset of this invocation's first digit, fetched now so its latency hides behind
    // the ranking (it is needed only at the end).
    const uint bucket_first = tid < RADIX ? st[ST_BUCKET + STEP_PASS(flags) * RADIX + tid] : 0u;
    // The tile is the workgroup id (one dispatch per pass covers every tile). A look-back may
    // then wait for a workgroup that has not started; the bounded spin and the recount
    // cover that.
    sort_tile(gl_WorkGroupID.x, n, flags, bucket_first);
}
