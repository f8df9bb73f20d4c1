#!/bin/sh
# Session 11, run 84: the plan in the histogram's last workgroup (grb_new; knob
# SORTNET_RADIX_PLAN_IN_HISTOGRAM=0 gives the plan's own dispatch) against fb43571
# (gpu_radix_bench), and, timing only, the same without the empty step-0 upsweep and final
# copy dispatches (grb_skip with TIMING_SKIP_EMPTY=1; uncommitted).
for r in 1 2; do
  for v in k32 k64 p32; do
    echo "old $(./gpu_radix_bench 24 --reps 5 --only $v 2>&1 | grep "$v:")"
    echo "new $(./grb_new 24 --reps 5 --only $v 2>&1 | grep "$v:")"
    echo "new-knob0 $(SORTNET_RADIX_PLAN_IN_HISTOGRAM=0 ./grb_new 24 --reps 5 --only $v 2>&1 | grep "$v:")"
    echo "skip-empty $(TIMING_SKIP_EMPTY=1 ./grb_skip 24 --reps 5 --only $v 2>&1 | grep "$v:")"
  done
  for l in 26 28; do
    for v in k32 k64 p32; do
      echo "old $(./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "new $(./grb_new $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
done
./grb_new 24 --reps 5 --only k32,k64 2>&1 | grep phases
TIMING_SKIP_EMPTY=1 ./grb_skip 24 --reps 5 --only k32 2>&1 | grep phases
python3 gpu-radix-cub.py 24 26 28
