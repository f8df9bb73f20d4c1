#!/bin/sh
# Session 12, run 101: where a round trip of u32 keys from a HostBuffer loses its time
# against the transfers' bound: host times and GPU timestamps of each call
# (SORTNET_GPU_HOST_TRACE=1, gpu_bench built with the trace), two rounds.
for r in 1 2; do
  SORTNET_GPU_HOST_TRACE=1 GPU_BENCH_E2E_ROWS=HostBuffer ./gpu_bench --full --only e2e --e2e-sizes 24,26 --e2e-keys-only 2>&1 | grep -v "^$"
done
