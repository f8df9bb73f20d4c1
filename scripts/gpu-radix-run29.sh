#!/bin/sh
# Session 7, run 29: which allocation history makes a 2^28 sort slow in one process.
B=./gpu_radix_bench
for sizes in "28" "28 28" "24 28" "27 28" "28 24 28" "26 27"; do
  echo "== one process: $sizes"
  $B $sizes --reps 5 --only k32 2>&1 | grep "k32:"
done
