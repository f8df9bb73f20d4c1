#!/bin/sh
# Session 13, run 111: the radix round trip taking its scratch from the buffer pool after the
# upload's submission (gpu_bench_new) against 19efea7 (gpu_bench_head), u32 keys from a
# HostBuffer, alternating, two rounds, then both traces at 2^24 and the new build's full
# HostBuffer rows; then, for the next session, the phases of u32 keys at 2^24 by
# reduce-then-scan and by look-back, and the look-back with its reads skipped (timing only).
for r in 1 2; do
  for b in gpu_bench_head gpu_bench_new; do
    echo "$b"
    GPU_BENCH_E2E_ROWS=HostBuffer ./$b --full --only e2e --e2e-sizes 24,26 --e2e-keys-only 2>&1 | grep "^| u32 keys | vulkan"
  done
done
for b in gpu_bench_head gpu_bench_new; do
  echo "$b"
  SORTNET_GPU_HOST_TRACE=1 GPU_BENCH_E2E_ROWS=HostBuffer ./$b --full --only e2e --e2e-sizes 24 --e2e-keys-only 2>&1 | grep "^radix\|^| u32 keys | vulkan"
done
GPU_BENCH_E2E_ROWS=HostBuffer ./gpu_bench_new --full --only e2e --e2e-sizes 24,26,28 2>&1 | grep "^| [un]"
echo "reduce-then-scan"; ./gpu_radix_bench_head 24 --reps 5 --only k32 2>&1 | grep "k32"
echo "look-back"; SORTNET_RADIX_REDUCE_SCAN=0 ./gpu_radix_bench_head 24 --reps 5 --only k32 2>&1 | grep "k32"
echo "look-back, no reads"; SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_NO_WAIT=1 ./gpu_radix_bench_head 24 --reps 5 --only k32 2>&1 | grep "k32"
