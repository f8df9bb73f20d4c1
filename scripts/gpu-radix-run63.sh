#!/bin/sh
# Session 9, run 63: why the reduce-then-scan histogram (one digit, like an upsweep) takes
# 0.049 ms at 2^24 where an upsweep takes 0.027: the phases of u32 sorts at 2^24 by the
# look-back (its histogram counts every digit with many workgroups), with more partitions,
# and with half a tile per load step; cf8faed.
N=./gpu_radix_bench
for e in "X=0" "SORTNET_RADIX_REDUCE_SCAN=0" "SORTNET_RADIX_PARTITIONS=2048" "SORTNET_RADIX_PARTITIONS=4096" "SORTNET_RADIX_HIST_BATCH=5"; do
  env $e $N 24 --reps 5 --only k32 2>&1 | grep "k32" | sed "s/^/$e /"
done
