#!/bin/sh
# Session 10, run 74: the scan by 128 workgroups of two digits each, every invocation's
# counts loaded at once, one exclusive scan across the workgroup; in the pass (=1) against
# a dispatch of its own (=0); scatter registers; two rounds at 2^24, one at 2^26 and 2^28.
S=./gpu_radix_stats
for a in "k32 256 10" "k64 256 7" "p32 512 11"; do
  echo "stats $a"; $S $a 21=1 23=1 2>&1 | grep "Register\|Shared"
done
for l in 24 24 26 28; do
  for v in k32 k64 p32; do
    for s in 1 0; do
      echo "scan-in-pass=$s"
      SORTNET_RADIX_SCAN_IN_PASS=$s ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
    done
  done
done
python3 gpu-radix-cub.py 24 26 28
