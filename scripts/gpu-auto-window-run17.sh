#!/bin/sh
# Session 6, run 17: auto's GPU window, the small end and 64-bit pairs: CPU radix on the
# 16-core host against vulkan-radix end to end from host slices.
./sortnet bench --workload u32,u64,pairs,pairs64,f64 --sizes 65536,131072,262144,524288,1048576 \
    --backends radix,vulkan-radix,auto --stat best --seconds 0.3 2>&1
./sortnet bench --workload pairs64,f64 --sizes 2097152,4194304,16777216,67108864,268435456 \
    --backends radix,vulkan-radix,auto --stat best --seconds 0.3 2>&1
