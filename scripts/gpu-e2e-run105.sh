#!/bin/sh
# Session 12, run 105: the committed host paths (gpu_bench_final: round trips poll their
# fence, streamed paths wait blocking) against e3efe28 (gpu_bench: streamed paths polling
# too), HostBuffer and Vec rows, alternating, two rounds.
rows=HostBuffer,radix,streamed
for r in 1 2; do
  for b in gpu_bench_final gpu_bench; do
    echo "$b"
    GPU_BENCH_E2E_ROWS=$rows ./$b --full --only e2e --e2e-sizes 24,26,28 2>&1 | grep "^| [un]"
  done
done
