#!/bin/sh
# Session 10, run 72: run 71 again with the tiles waiting on a flag in each partition offset
# word (relaxed loads, no fence) instead of on a count of finished scan workgroups followed
# by a fence; registers of the scatters with and without the scan in the pass.
S=./gpu_radix_stats
for a in "k32 256 10" "k64 256 7" "p32 512 11"; do
  for s in 1 0; do echo "stats $a scan-in-pass=$s"; $S $a 21=1 23=$s 2>&1 | tail -4; done
done
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      for s in 1 0; do
        echo "round $r scan-in-pass=$s"
        SORTNET_RADIX_SCAN_IN_PASS=$s ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
      done
    done
  done
done
python3 gpu-radix-cub.py 24 26 28
