#!/bin/sh
# Session 8, run 58: partition counts again with run 56's tiles (SORTNET_RADIX_PARTITIONS,
# default radix_plan::PARTITIONS = 1024), u32 and u64 keys, one process per row, best of 5.
N=./gpu_radix_bench
for l in 24 26; do
  for v in k32 k64; do
    for p in 1024 512 2048 256; do
      SORTNET_RADIX_PARTITIONS=$p $N $l --reps 5 --only $v 2>&1 | grep "$v:" | sed "s/^/partitions $p /"
    done
  done
done
