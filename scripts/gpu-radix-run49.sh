#!/bin/sh
# Session 8, run 49: the histogram and upsweeps walk each partition a tile at a time, and a
# 256-invocation workgroup loads 8 keys each per step (SORTNET_RADIX_HIST_BATCH, default
# radix_plan::HISTOGRAM_BATCH): a 2560-key tile takes two dependent round trips. Batches that
# cover a tile in one step (u32 keys 256 x 10: 10; u64 keys 256 x 7: 7; u32 pairs 512 x 11:
# 22), one process per row, best of 5, with the phases of u32 sorts.
N=./gpu_radix_bench
for l in 24 26 28; do
  for b in 8 10 5 20; do
    SORTNET_RADIX_HIST_BATCH=$b $N $l --reps 5 --only k32 2>&1 | grep "k32:\|phases" | sed "s/^/batch $b /"
  done
  for b in 8 7 14; do
    SORTNET_RADIX_HIST_BATCH=$b $N $l --reps 5 --only k64 2>&1 | grep "k64:" | sed "s/^/batch $b /"
  done
  for b in 8 11 22; do
    SORTNET_RADIX_HIST_BATCH=$b $N $l --reps 5 --only p32 2>&1 | grep "p32:" | sed "s/^/batch $b /"
  done
done
