#!/bin/sh
# Session 7, run 31: 64-bit keys by reduce-then-scan with other scatter shapes (no
# look-back to wait for), against the look-back at its default 1024 x 5.
B=./gpu_radix_bench
SORTNET_RADIX_REDUCE_SCAN=0 $B 26 --reps 4 --only k64 2>&1 | grep "k64:" | sed "s/^/[look-back 1024 x 5] /"
for s in "1024 5" "1024 4" "512 5" "512 6" "512 8" "256 8" "256 10" "256 12"; do
  set -- $s
  ./gpu_radix_stats k64 $1 $2 21=1 2>&1 | grep -i "register" | sed "s/^/[k64 $1 x $2] /"
  SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k64=$2 $B 26 --reps 4 --only k64 2>&1 | grep "k64:\|k64 shape" | sed "s/^/[reduce $1 x $2] /"
done
SORTNET_RADIX_REDUCE_SCAN=0 $B 26 --reps 4 --only p64 2>&1 | grep "p64:" | sed "s/^/[look-back 1024 x 5] /"
for s in "1024 5" "512 5" "512 6" "256 8"; do
  set -- $s
  SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_p64=$2 $B 26 --reps 4 --only p64 2>&1 | grep "p64:\|p64 shape" | sed "s/^/[reduce $1 x $2] /"
done
