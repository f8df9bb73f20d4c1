#!/bin/sh
# Session 9, run 70 (3f85710, the review's plan that writes each step's flags once): the
# committed code once more at 2^24 and 2^26, best of 5, CUB in the same call.
for l in 24 26; do
  for v in k32 k64 p32; do
    ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:"
  done
done
python3 gpu-radix-cub.py 24 26
