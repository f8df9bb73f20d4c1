#!/bin/sh
# Session 6, run 21: what the look-back still costs with workgroup-id tiles (timing-only
# SORTNET_RADIX_NO_WAIT=1, wrong output) and the histogram phase, u32 / u64 keys at 2^26.
B=./gpu_radix_bench
for v in k32 k64 p32; do
  for w in 0 1 0 1; do
    SORTNET_RADIX_NO_WAIT=$w $B 26 --reps 4 --only $v 2>&1 | grep "$v:\|$v phases" | sed "s/^/[no-wait $w] /"
  done
done
