#!/bin/sh
# Session 10, run 80: step 0's upsweep in the plan's dispatch (a workgroup per partition
# after the plan's, returning at once where the histogram counted pass 0) against the binary
# before it (gpu_radix_bench_old: the commit f1aee59 with its separate, mostly empty step-0
# upsweep dispatch); two rounds, best of 5. Keys whose low byte is constant, where step 0 is
# pass 1 (covered by the lavapipe suites, not timed here).
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "old"; ./gpu_radix_bench_old $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
      echo "new"; ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
    done
  done
done
python3 gpu-radix-cub.py 24 26 28
