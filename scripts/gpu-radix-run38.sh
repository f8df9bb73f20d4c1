#!/bin/sh
# Session 7, run 38: what the empty direction of each pass costs. A bench binary built with
# an extra timestamp after the A->B dispatch of every scatter and upsweep (not committed):
# in every pass one direction is empty, so the interval it spans is a dispatch of zero
# workgroups plus its barrier.
B=./gpu_radix_bench
for l in 24 26; do
  for v in k32 k64; do
    $B $l --reps 4 --only $v 2>&1 | grep "$v phases"
  done
done
