#!/bin/sh
# Session 6, run 18: auto with the new GPU window (2^18 to 2^29 elements), against the
# CPU radix and vulkan-radix by name, end to end from host slices; f64 at 2^21-2^22 again.
./sortnet bench --workload f64,u64,pairs,pairs64,u32 --sizes 131072,262144,2097152,4194304,67108864 \
    --backends radix,vulkan-radix,auto --stat best --seconds 0.3 2>&1
