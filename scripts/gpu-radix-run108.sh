#!/bin/sh
# Session 12, run 108: the partition scan's counts in a fixed array of 32 instead of one
# sized by the specialization constant SCAN_PER (grb_fixed, otherwise grb_spec): do u32
# pairs with the scan in the pass and the unsigned map build sort right now? And the cost.
for i in 1 2 3; do
  for l in 24 25; do
    echo "fixed unsigned in-pass p32 2^$l #$i $(SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_fixed $l --reps 2 --only p32 2>&1 | grep "p32:")"
  done
done
echo "spec unsigned in-pass p32 2^24 $(SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_spec 24 --reps 2 --only p32 2>&1 | grep "p32:")"
for l in 24 26; do
  for v in k32 k64 p32; do
    echo "head $(./grb_head $l --reps 5 --only $v 2>&1 | grep "$v:")"
    echo "fixed runtime $(./grb_fixed $l --reps 5 --only $v 2>&1 | grep "$v:")"
    echo "fixed unsigned $(SORTNET_RADIX_MAP_SPEC=0 ./grb_fixed $l --reps 5 --only $v 2>&1 | grep "$v:")"
  done
done
echo "fixed unsigned in-pass p32 2^24 (timing) $(SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_fixed 24 --reps 5 --only p32 2>&1 | grep "p32:")"
