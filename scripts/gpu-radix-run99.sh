#!/bin/sh
# Session 12, run 99: 64-bit keys split into low and high words between the first and the
# last step (grb_split, default) against the same binary with SORTNET_RADIX_SPLIT_KEYS=0 and
# against 63fff3f (grb_head: pairs scan by a dispatch at every size, first measured here),
# two rounds, CUB in the same call; then u32 pairs with the scan forced into the pass, ten
# processes each at 2^24 and 2^25 (the failure of run 97's build).
for r in 1 2; do
  for l in 24 26 28; do
    for v in k64 p64 k32 p32; do
      echo "head $(./grb_head $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "split $(./grb_split $l --reps 5 --only $v 2>&1 | grep "$v:")"
      if [ $v = k64 ] || [ $v = p64 ]; then
        echo "interleaved $(SORTNET_RADIX_SPLIT_KEYS=0 ./grb_split $l --reps 5 --only $v 2>&1 | grep "$v:")"
      fi
    done
  done
  python3 gpu-radix-cub.py 24 26 28
done
./grb_split 24 --reps 1 --only k64 2>&1 | grep phases
SORTNET_RADIX_SPLIT_KEYS=0 ./grb_split 24 --reps 1 --only k64 2>&1 | grep phases
for i in 1 2 3 4 5 6 7 8 9 10; do
  for l in 24 25; do
    echo "in-pass p32 2^$l #$i $(SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_head $l --reps 2 --only p32 2>&1 | grep "p32:")"
  done
done
