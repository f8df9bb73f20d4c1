#!/bin/sh
# Session 12, run 102: waiting for a round trip by polling its fence (the default of this
# gpu_bench) against a blocking wait (SORTNET_GPU_BLOCKING_WAIT=1), u32 keys and nibbles
# from HostBuffers, alternating, two rounds; then the trace of 2^24 u32 keys with polling.
for r in 1 2; do
  for w in polling blocking; do
    echo "$w"
    if [ $w = blocking ]; then export SORTNET_GPU_BLOCKING_WAIT=1; else unset SORTNET_GPU_BLOCKING_WAIT; fi
    GPU_BENCH_E2E_ROWS=HostBuffer ./gpu_bench --full --only e2e --e2e-sizes 24,26,28 2>&1 | grep "^| [un]"
  done
done
unset SORTNET_GPU_BLOCKING_WAIT
SORTNET_GPU_HOST_TRACE=1 GPU_BENCH_E2E_ROWS=HostBuffer ./gpu_bench --full --only e2e --e2e-sizes 24 --e2e-keys-only 2>&1 | grep "^radix\|^| u32"
