#!/bin/sh
# Session 12, run 103: every wait of the host paths by polling and the upload submitted with
# no fence of its own (gpu_bench) against run 102's binary (gpu_bench_102: polling in the
# two round-trip submits only) and against the same binary waiting blocking
# (SORTNET_GPU_BLOCKING_WAIT=1), rows from Vecs and HostBuffers, two rounds; then 2^28 once.
rows=HostBuffer,radix,streamed
for r in 1 2; do
  for b in gpu_bench gpu_bench_102 blocking; do
    echo "$b"
    if [ $b = blocking ]; then
      SORTNET_GPU_BLOCKING_WAIT=1 GPU_BENCH_E2E_ROWS=$rows ./gpu_bench --full --only e2e --e2e-sizes 24,26 2>&1 | grep "^| [un]"
    else
      GPU_BENCH_E2E_ROWS=$rows ./$b --full --only e2e --e2e-sizes 24,26 2>&1 | grep "^| [un]"
    fi
  done
done
echo "gpu_bench 2^28"
GPU_BENCH_E2E_ROWS=$rows ./gpu_bench --full --only e2e --e2e-sizes 28 2>&1 | grep "^| [un]"
