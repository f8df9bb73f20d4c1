#!/bin/sh
# Session 7, run 37: the grouped host path's timeline at 2^28 u32 keys
# (SORTNET_GPU_STREAM_TRACE=1), now that its group sorts (2^25 keys each) go by
# reduce-then-scan, and the same with the look-back (SORTNET_RADIX_REDUCE_SCAN=0).
for r in 1 0; do
  echo "== SORTNET_RADIX_REDUCE_SCAN default/0: $r"
  if [ $r = 1 ]; then
    SORTNET_GPU_STREAM_TRACE=1 GPU_BENCH_E2E_ROWS=grouped ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep -i "group\|2^28\|scatter\|count" | tail -30
  else
    SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_GPU_STREAM_TRACE=1 GPU_BENCH_E2E_ROWS=grouped ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep -i "group\|2^28\|scatter\|count" | tail -30
  fi
done
