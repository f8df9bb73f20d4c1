#!/bin/sh
# Session 10, run 77: is it the chunk prefetch or the 512 partitions? The binary before the
# prefetch (gpu_radix_bench_old, 6db6e05) and the one with it, both at 512 and 1024
# partitions, two rounds, best of 5.
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      for p in 512 1024; do
        echo "old partitions $p"; SORTNET_RADIX_PARTITIONS=$p ./gpu_radix_bench_old $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
        echo "new partitions $p"; SORTNET_RADIX_PARTITIONS=$p ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
      done
    done
  done
done
