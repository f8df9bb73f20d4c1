#!/bin/sh
# Session 7, run 27: where reduce-then-scan overtakes the look-back now that pass 0 needs no
# upsweep and the scan costs half; one process per row, alternating.
B=./gpu_radix_bench
for l in 21 22 23 24; do
  for r in 0 1 0 1; do
    SORTNET_RADIX_REDUCE_SCAN=$r $B $l --reps 5 --only k32 2>&1 | grep "k32:" | sed "s/^/[reduce $r] /"
    SORTNET_RADIX_REDUCE_SCAN=$r $B $l --reps 5 --only p32 2>&1 | grep "p32:" | sed "s/^/[reduce $r] /"
  done
done
