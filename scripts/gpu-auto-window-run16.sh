#!/bin/sh
# Session 6, run 16: auto's GPU window end to end (host slices), CPU radix on the 16-core
# host against vulkan-radix, u32 / u64 / u32 pairs / f32, 2^20 to 2^28.
nproc
./sortnet bench --workload u64,pairs,u32,f32 --sizes 1048576,2097152,4194304,16777216,67108864,268435456 \
    --backends radix,vulkan-radix,auto --stat best --seconds 0.3 2>&1
