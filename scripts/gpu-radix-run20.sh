#!/bin/sh
# Session 6, run 20: the final code (workgroup-id tiles, two look-back lanes, packed ranks,
# 64-bit variants at 1024 x 5): every variant at 2^24 / 2^26 / 2^28 with CUB in the same
# call, then end to end from host slices (the whole table, then the grouped path at 2^28
# twice).
B=./gpu_radix_bench
for l in 24 26 28; do
  $B $l --reps 5 --only k32,k64,p32,p64 2>&1 | grep "k32:\|k64:\|p32:\|p64:"
done
python3 gpu-radix-cub.py 24 26 28 2>&1
./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26 2>&1 | grep "^|"
for r in 1 2; do
  GPU_BENCH_E2E_ROWS=grouped,streamed ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep "2^28"
done
