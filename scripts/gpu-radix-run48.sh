#!/bin/sh
# Session 8, run 48: the committed defaults (runs 42-47). Where reduce-then-scan overtakes the
# look-back now; the final table, one process per variant and size, best of 5, with CUB in
# the same call; the phases of a u32 sort; end to end from host slices.
N=./gpu_radix_bench
for v in k32 p32 k64; do
  for l in 21 22 23 24; do
    SORTNET_RADIX_REDUCE_SCAN=0 $N $l --reps 5 --only $v 2>&1 | grep "$v:" | sed 's/^/look-back       /'
    SORTNET_RADIX_REDUCE_SCAN=1 $N $l --reps 5 --only $v 2>&1 | grep "$v:" | sed 's/^/reduce-then-scan /'
  done
done
for l in 24 26 28; do
  for v in k32 k64 p32 p64; do
    $N $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
  done
done
python3 gpu-radix-cub.py 24 26 28
./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26
