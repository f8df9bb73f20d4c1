#!/bin/sh
# Session 7, run 32: u64 keys with 256 x 8 tiles, look-back against reduce-then-scan over
# sizes, the default 1024 x 5 look-back beside them, and neighbouring shapes.
B=./gpu_radix_bench
for l in 20 22 23 24 26 28; do
  SORTNET_RADIX_REDUCE_SCAN=0 $B $l --reps 5 --only k64 2>&1 | grep "k64:" | sed "s/^/[look-back 1024 x 5] /"
  SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=256 SORTNET_RADIX_KPI_k64=8 $B $l --reps 5 --only k64 2>&1 | grep "k64:" | sed "s/^/[look-back 256 x 8] /"
  SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_WG=256 SORTNET_RADIX_KPI_k64=8 $B $l --reps 5 --only k64 2>&1 | grep "k64:" | sed "s/^/[reduce 256 x 8] /"
done
for s in "256 7" "256 9" "128 16" "384 8" "256 8"; do
  set -- $s
  ./gpu_radix_stats k64 $1 $2 21=1 2>&1 | grep -i "register" | sed "s/^/[k64 $1 x $2] /"
  SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k64=$2 $B 26 --reps 4 --only k64 2>&1 | grep "k64:\|k64 shape" | sed "s/^/[reduce $1 x $2] /"
done
