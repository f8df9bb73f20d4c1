#!/bin/sh
# Session 10, run 81: after the review's mend (one load/count pair in radix_count.glsl for
# the grid-stride histogram and the partition walk; same operations), the committed code
# once more, best of 5, CUB in the same call.
for l in 24 26 28; do
  for v in k32 k64 p32; do
    ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:"
  done
done
python3 gpu-radix-cub.py 24 26 28
