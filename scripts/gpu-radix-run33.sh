#!/bin/sh
# Session 7, run 33: the final code (reduce-then-scan for 32-bit keys and pairs from 2^24,
# for u64 keys from 2^25 with 256 x 8 tiles) against CUB, one process per variant and size;
# then end to end (u64 keys and the u32 grouped path).
B=./gpu_radix_bench
for v in k64 k32 p32 p64; do
  for l in 24 25 26 28; do
    $B $l --reps 5 --only $v 2>&1 | grep "$v:"
  done
done
python3 gpu-radix-cub.py 24 26 28 2>&1
./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26 2>&1 | grep "^|"
