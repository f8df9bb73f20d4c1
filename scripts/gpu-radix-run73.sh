#!/bin/sh
# Session 10, run 73: the scan in the pass reading each partition's counts twice instead of
# holding them in registers (run 72: the scatters' registers grew with them); every line
# of the scatters' statistics, then 2^24 and 2^26 with and without the scan in the pass.
S=./gpu_radix_stats
for a in "k32 256 10" "k64 256 7" "p32 512 11"; do
  for s in 1 0; do echo "stats $a scan-in-pass=$s"; $S $a 21=1 23=$s 2>&1; done
done
for l in 24 26; do
  for v in k32 k64 p32; do
    for s in 1 0; do
      echo "scan-in-pass=$s"
      SORTNET_RADIX_SCAN_IN_PASS=$s ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
    done
  done
done
python3 gpu-radix-cub.py 24 26
