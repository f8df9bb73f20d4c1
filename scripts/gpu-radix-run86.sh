#!/bin/sh
# Session 11, run 86: the histogram without the identity key map for unsigned keys
# (grb_hist) against 6b36fef (grb_map, run 85's change alone) and fb43571
# (gpu_radix_bench); then the scan in the pass at 2^26 (SORTNET_RADIX_SCAN_IN_PASS=1)
# against the default (its own dispatch there); CUB in the same call.
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "old $(./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "map $(./grb_map $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "hist $(./grb_hist $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
  for v in k32 k64 p32; do
    echo "hist in-pass $(SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_hist 26 --reps 5 --only $v 2>&1 | grep "$v:")"
  done
done
./grb_hist 24 --reps 5 --only k32,k64,p32 2>&1 | grep phases
python3 gpu-radix-cub.py 24 26 28
