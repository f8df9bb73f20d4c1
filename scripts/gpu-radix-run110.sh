#!/bin/sh
# Session 13, run 110: the committed code (19efea7, gpu_radix_bench_head) against CUB, two rounds, with
# CUB's in-place sort timed alone beside cupy.sort (which copies the keys first); then u32
# keys and nibbles end to end from HostBuffers, and the round-trip trace at 2^24.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "head $(./gpu_radix_bench_head $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
  python3 gpu-radix-cub.py 24 26 28
done
GPU_BENCH_E2E_ROWS=HostBuffer ./gpu_bench_head --full --only e2e --e2e-sizes 24,26,28 2>&1 | grep "^| [un]"
SORTNET_GPU_HOST_TRACE=1 GPU_BENCH_E2E_ROWS=HostBuffer ./gpu_bench_head --full --only e2e --e2e-sizes 24 --e2e-keys-only 2>&1 | grep "^radix\|^| u32"
