#!/bin/sh
# Session 12, run 106: the scatter with the key map as specialization constant 25 again
# (grb_spec; SORTNET_RADIX_MAP_SPEC=0 fixes every scatter pipeline to unsigned keys, whose
# encode and decode code then compiles out; without it the push constant's map, as before)
# against 63fff3f (grb_head), two rounds, CUB in the same call; then u32 pairs with the scan
# forced into the pass (where run 97's build sorted wrong), and keys, with that build.
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "head $(./grb_head $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "spec unsigned $(SORTNET_RADIX_MAP_SPEC=0 ./grb_spec $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "spec runtime $(./grb_spec $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
done
python3 gpu-radix-cub.py 24 26 28
for i in 1 2 3 4 5; do
  for l in 24 25; do
    echo "spec unsigned in-pass p32 2^$l #$i $(SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_spec $l --reps 2 --only p32 2>&1 | grep "p32:")"
  done
done
for l in 23 24 25; do
  for v in k32 k64; do
    echo "spec unsigned $v 2^$l $(SORTNET_RADIX_MAP_SPEC=0 ./grb_spec $l --reps 2 --only $v 2>&1 | grep "$v:")"
  done
done
