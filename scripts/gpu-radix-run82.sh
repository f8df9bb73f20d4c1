#!/bin/sh
# Session 11, run 82: baseline (fb43571) phases of every variant and size, CUB in the same call.
for l in 24 26 28; do
  for v in k32 k64 p32; do
    ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v"
  done
done
python3 gpu-radix-cub.py 24 26 28
