#!/bin/sh
# Session 7, run 41: after the review's shared counting code (radix_count.glsl: the upsweep
# now counts a partition as the histogram does, without clearing per tile), the defaults
# again, one process per row.
B=./gpu_radix_bench
for l in 24 26 28; do
  for v in k32 k64 p32; do
    $B $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
  done
done
