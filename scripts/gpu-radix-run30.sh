#!/bin/sh
# Session 7, run 30: reduce-then-scan scatter workgroups that take tiles in strides
# (SORTNET_RADIX_SCATTER_GROUPS, 0 = one workgroup per tile), one process per row.
B=./gpu_radix_bench
./gpu_radix_stats k32 512 8 21=1 2>&1 | grep -i "register" | sed "s/^/[k32 512 x 8, strided loop] /"
for v in k32 p32; do
  for g in 0 264 528 792 1056 2112 0; do
    SORTNET_RADIX_SCATTER_GROUPS=$g $B 26 --reps 4 --only $v 2>&1 | grep "$v:" | sed "s/^/[groups $g] /"
  done
done
for g in 0 528 1056; do
  SORTNET_RADIX_SCATTER_GROUPS=$g $B 28 --reps 4 --only k32 2>&1 | grep "k32:" | sed "s/^/[groups $g] /"
done
