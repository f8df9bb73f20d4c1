#!/bin/sh
# Session 11, run 98: u32 pairs at 2^24 failed with grb_spec in run 97; which path?
for v in p32 k32 k64; do
  echo "spec default $v $(SORTNET_RADIX_MAP_SPEC=0 ./grb_spec 24 --reps 2 --only $v 2>&1 | grep "$v:")"
  echo "spec spin0 $v $(SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_SPIN_LIMIT=0 ./grb_spec 24 --reps 2 --only $v 2>&1 | grep "$v:")"
  echo "spec separate-scan $v $(SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_SCAN_IN_PASS=0 ./grb_spec 24 --reps 2 --only $v 2>&1 | grep "$v:")"
  echo "head spin0 $v $(SORTNET_RADIX_SPIN_LIMIT=0 ./grb_head 24 --reps 2 --only $v 2>&1 | grep "$v:")"
done
for l in 22 23 25; do
  echo "spec p32 2^$l $(SORTNET_RADIX_MAP_SPEC=0 ./grb_spec $l --reps 2 --only p32 2>&1 | grep "p32:")"
  echo "head p32 2^$l $(./grb_head $l --reps 2 --only p32 2>&1 | grep "p32:")"
done
echo "spec p32 2^24 rts-off $(SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_REDUCE_SCAN=0 ./grb_spec 24 --reps 2 --only p32 2>&1 | grep "p32:")"
