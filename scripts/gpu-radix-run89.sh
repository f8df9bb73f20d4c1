#!/bin/sh
# Session 11, run 89: pinning in place (pin.py); the committed code (6f2fdcc kernels,
# grb_hist) against CUB, two rounds; end to end from host slices (gpu_bench of 7713619).
python3 pin.py
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      ./grb_hist $l --reps 5 --only $v 2>&1 | grep "$v:"
    done
  done
  python3 gpu-radix-cub.py 24 26 28
done
./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26 2>&1 | grep -v "^$"
