#!/bin/sh
# Session 12, run 100: reduce-then-scan's partition walks (pass 0's histogram and the
# upsweeps) with larger workgroups (SORTNET_RADIX_SWEEP_WG) and batches
# (SORTNET_RADIX_HIST_BATCH) so that each walk takes fewer, larger steps (grb_sweep, built
# from 63fff3f plus the knob), two rounds, CUB in the same call.
for r in 1 2; do
  for l in 24 26 28; do
    for c in k64:256:8 k64:512:7 k64:512:4 k64:512:8 k64:1024:4 k64:1024:2 \
             k32:256:10 k32:512:5 k32:1024:3 k32:1024:2 k32:512:10 \
             p32:256:8 p32:512:11 p32:1024:6; do
      v=${c%%:*}; rest=${c#*:}; wg=${rest%%:*}; b=${rest#*:}
      echo "wg $wg batch $b $(SORTNET_RADIX_SWEEP_WG=$wg SORTNET_RADIX_HIST_BATCH=$b ./grb_sweep $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
  python3 gpu-radix-cub.py 24 26 28
done
