#!/bin/sh
# Session 8, run 52: with sorts ~1.25x faster, does the grouped host path want fewer or
# more groups, and does it still beat the whole sort at 2^28 (run 51: no)? u32 keys, 2^28,
# two rounds, then one trace of the default.
for r in 1 2; do
  for g in 4 8 16; do
    SORTNET_GPU_KEY_GROUPS=$g GPU_BENCH_E2E_ROWS=grouped ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only | grep "2^28" | sed "s/^/groups $g /"
  done
  GPU_BENCH_E2E_ROWS=whole,streamed ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only | grep "2^28"
done
GPU_BENCH_E2E_ROWS=grouped SORTNET_GPU_STREAM_TRACE=1 ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep -i "group\|landed\|submitted\|staging\|start" | tail -40
