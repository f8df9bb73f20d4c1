#!/bin/sh
# Session 7, run 34: pair tiles by reduce-then-scan (u32 pairs default 512 x 8, u64 pairs
# by look-back at 1024 x 5), 2^26, one process per row.
B=./gpu_radix_bench
$B 26 --reps 4 --only p32 2>&1 | grep "p32:" | sed "s/^/[default] /"
for s in "256 8" "256 10" "384 8" "256 12" "512 6"; do
  set -- $s
  ./gpu_radix_stats p32 $1 $2 21=1 2>&1 | grep -i "register" | sed "s/^/[p32 $1 x $2] /"
  SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_p32=$2 $B 26 --reps 4 --only p32 2>&1 | grep "p32:\|p32 shape" | sed "s/^/[reduce $1 x $2] /"
done
$B 26 --reps 4 --only p64 2>&1 | grep "p64:" | sed "s/^/[default] /"
for s in "256 6" "256 7" "128 12" "384 6" "128 16"; do
  set -- $s
  ./gpu_radix_stats p64 $1 $2 21=1 2>&1 | grep -i "register" | sed "s/^/[p64 $1 x $2] /"
  SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_p64=$2 $B 26 --reps 4 --only p64 2>&1 | grep "p64:\|p64 shape" | sed "s/^/[reduce $1 x $2] /"
done
