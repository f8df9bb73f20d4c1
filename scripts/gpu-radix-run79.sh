#!/bin/sh
# Session 10, run 79: with 512 partitions and the chunk prefetch, where does the scan in the
# pass stop paying? Default (in the pass below 2^25 keys) against SORTNET_RADIX_SCAN_IN_PASS=1
# (always) at 2^25, 2^26 and 2^28, two rounds, best of 5.
for r in 1 2; do
  for l in 25 26 28; do
    for v in k32 k64 p32; do
      echo "default"; ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:"
      echo "in pass"; SORTNET_RADIX_SCAN_IN_PASS=1 ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:"
    done
  done
done
