#!/bin/sh
# Session 11, run 85: no key-map flags for unsigned keys (grb_map) against fb43571
# (gpu_radix_bench), two alternating rounds, then phases, CUB in the same call.
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "old $(./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "map $(./grb_map $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
done
./grb_map 24 --reps 5 --only k32,k64,p32 2>&1 | grep phases
./grb_map 28 --reps 5 --only k32 2>&1 | grep phases
python3 gpu-radix-cub.py 24 26 28
