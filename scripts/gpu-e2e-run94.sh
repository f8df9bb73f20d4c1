#!/bin/sh
# Session 11, run 94: u32 keys end to end from a HostBuffer (no staging) against the
# staged paths and the streamed copy alone, same process; two rounds.
for r in 1 2; do
  GPU_BENCH_E2E_ROWS=HostBuffer,whole,streamed,grouped ./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-keys-only 2>&1 | grep "^|"
done
