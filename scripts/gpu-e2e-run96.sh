#!/bin/sh
# Session 11, run 96: the sort recorded while the upload runs (gpu_bench) against recording
# before submitting (gpu_bench_95, run 95's binary), u32 keys from a HostBuffer and staged
# (whole sort); alternating, two rounds each.
for r in 1 2; do
  for b in gpu_bench_95 gpu_bench; do
    echo "$b"
    GPU_BENCH_E2E_ROWS=HostBuffer,whole ./$b --full --only e2e --e2e-sizes 24,26,28 --e2e-keys-only 2>&1 | grep "^| u32"
  done
done
