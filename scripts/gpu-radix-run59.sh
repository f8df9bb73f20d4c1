#!/bin/sh
# Session 8, run 59: histogram/upsweep batch for 64-bit keys with the 256 x 14 tile (3584
# keys: batch 14 loads a tile per step, 8 in two steps, 7 in two). Run 56's binary, one
# process per row, two rounds, best of 5.
N=./gpu_radix_bench
for l in 24 26 28; do
  for r in 1 2; do
    for b in 8 14 7; do
      SORTNET_RADIX_HIST_BATCH=$b $N $l --reps 5 --only k64 2>&1 | grep "k64:" | sed "s/^/batch $b /"
    done
  done
done
