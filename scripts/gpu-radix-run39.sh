#!/bin/sh
# Session 7, run 39: partition counts at 2^24 and 2^28 (u32 keys) and 2^26 (u64 keys), one
# process per row.
B=./gpu_radix_bench
for l in 24 28; do
  for p in 256 512 1024 2048 4096; do
    SORTNET_RADIX_PARTITIONS=$p $B $l --reps 4 --only k32 2>&1 | grep "k32:" | sed "s/^/[partitions $p] /"
  done
done
for p in 512 1024 2048 4096; do
  SORTNET_RADIX_PARTITIONS=$p $B 26 --reps 4 --only k64 2>&1 | grep "k64:" | sed "s/^/[partitions $p] /"
done
