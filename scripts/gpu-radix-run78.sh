#!/bin/sh
# Session 10, run 78: the committed code (scan in the pass below 2^25 keys, 512 partitions,
# chunk prefetch in the upsweep): the final table, one process per variant and size, best of
# 5, CUB in the same call; end to end from host slices.
N=./gpu_radix_bench
for l in 24 26 28; do
  for v in k32 k64 p32 p64; do
    $N $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
  done
done
python3 gpu-radix-cub.py 24 26 28
for l in 24 26; do
  for v in k32 k64; do
    $N $l --reps 5 --only $v 2>&1 | grep "$v:"
  done
done
python3 gpu-radix-cub.py 24 26
./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26
