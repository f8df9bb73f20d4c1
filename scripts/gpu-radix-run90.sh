#!/bin/sh
# Session 11, run 90: the look-back against reduce-then-scan again at 2^23-2^25
# (SORTNET_RADIX_REDUCE_SCAN=0 / default), committed code (grb_hist).
for r in 1 2; do
  for l in 23 24 25; do
    for v in k32 k64 p32; do
      echo "rts $(./grb_hist $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "lookback $(SORTNET_RADIX_REDUCE_SCAN=0 ./grb_hist $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
done
SORTNET_RADIX_REDUCE_SCAN=0 ./grb_hist 24 --reps 5 --only k64 2>&1 | grep phases
