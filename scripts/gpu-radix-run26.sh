#!/bin/sh
# Session 7, run 26: the final code (reduce-then-scan for 32-bit keys and pairs from 2^25,
# pass 0's offsets from the histogram, the scan's loads unrolled) against CUB, one process
# per variant and size (see "The 2x variance" in BENCHMARKS.md); the upsweep's batch.
B=./gpu_radix_bench
for v in k32 p32 k64 p64; do
  for l in 24 25 26 28; do
    $B $l --reps 5 --only $v 2>&1 | grep "$v:"
  done
done
$B 26 --reps 4 --only k32 2>&1 | grep "k32 phases"
for b in 16 8 16; do
  SORTNET_RADIX_HIST_BATCH=$b $B 26 --reps 4 --only k32 2>&1 | grep "k32:\|k32 phases" | sed "s/^/[batch $b] /"
done
python3 gpu-radix-cub.py 24 26 28 2>&1
for r in 1 2; do
  GPU_BENCH_E2E_ROWS=grouped,streamed ./gpu_bench --full --only e2e --e2e-sizes 26,28 --e2e-keys-only 2>&1 | grep "2^2"
done
