#!/bin/sh
# Session 11, run 88: run 87 with the digit counts' row fixed (grb_wplain: word loads with
# no key map, right for unsigned keys), against grb_hist (6f2fdcc).
for r in 1 2; do
  for l in 24 26 28; do
    echo "hist $(./grb_hist $l --reps 5 --only k64 2>&1 | grep "k64:")"
    echo "wplain $(./grb_wplain $l --reps 5 --only k64 2>&1 | grep "k64:")"
    echo "wplain b8 $(SORTNET_RADIX_UPSWEEP_BATCH=8 ./grb_wplain $l --reps 5 --only k64 2>&1 | grep "k64:")"
  done
done
./grb_wplain 24 --reps 5 --only k64 2>&1 | grep phases
./grb_hist 24 --reps 5 --only k64 2>&1 | grep phases
python3 gpu-radix-cub.py 24 26 28
