#!/bin/sh
# Session 8, run 57: the histogram and upsweeps of reduce-then-scan load each step's keys
# while the step before is counted (radix_count.glsl), instead of waiting for memory once per
# tile. Before = run 56's binary (../lead15); one process per row, two rounds, best of 5.
N=./gpu_radix_bench
O=../lead15/gpu_radix_bench
for l in 24 26 28; do
  for v in k32 k64 p32; do
    for r in 1 2; do
      $O $l --reps 5 --only $v 2>&1 | grep "$v:" | sed 's/^/before /'
      $N $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases" | sed 's/^/after  /'
    done
  done
done
