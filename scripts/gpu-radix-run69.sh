#!/bin/sh
# Session 9, run 69 (6ca6037): the grouped host path against the whole sort for u32 keys at
# 2^28 and 2^29, three rounds in one call, to see whether GROUPED_MIN_BYTES (512 MiB) still
# holds now that the sorts are faster; the streamed copy alone as the instance's ceiling.
for round in 1 2 3; do
  echo "round $round"
  GPU_BENCH_E2E_ROWS=grouped,whole,streamed ./gpu_bench --full --only e2e --e2e-sizes 28,29 --e2e-keys-only 2>&1 | grep "^| u32"
done
