// Included after `shared uint s_sg_sum[MAX_SUBGROUPS];` by the radix shaders that scan one
// value per invocation across a workgroup: each subgroup leaves its total in s_sg_sum, then
// this turns the totals into their exclusive prefix in place, for any subgroup size (the
// first subgroup scans them a subgroup's width at a time). Called in uniform control flow,
// between barriers.
void scan_subgroup_sums() {
    if (gl_SubgroupID == 0u) {
        uint carry = 0u;
        for (uint at = 0u; at < gl_NumSubgroups; at += gl_SubgroupSize) {
            uint i = at + gl_SubgroupInvocationID;
            uint v = i < gl_NumSubgroups ? s_sg_sum[i] : 0u;
            uint excl = subgroupExclusiveAdd(v) + carry;
            carry += subgroupAdd(v);
            if (i < gl_NumSubgroups) s_sg_sum[i] = excl;
        }
    }
}
