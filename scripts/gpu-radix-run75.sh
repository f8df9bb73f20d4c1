#!/bin/sh
# Session 10, run 75: where the scan in the pass costs (u32 keys, best of 5, two rounds):
# the committed binary with and without the scan in the pass; v1: the tile's first read of
# its partition offset a plain load instead of a relaxed atomic one; v2 (timing only, wrong
# output): tiles never wait for the scan, reading whatever the offset word holds.
for r in 1 2; do
  for l in 24 26 28; do
    for s in 1 0; do
      echo "scan-in-pass=$s"; SORTNET_RADIX_SCAN_IN_PASS=$s ./gpu_radix_bench $l --reps 5 --only k32 2>&1 | grep "k32"
    done
    echo "v1"; ./gpu_radix_bench_v1 $l --reps 5 --only k32 2>&1 | grep "k32"
    echo "v2"; ./gpu_radix_bench_v2 $l --reps 5 --only k32 2>&1 | grep "k32"
  done
done
python3 gpu-radix-cub.py 24 26 28
