#!/bin/sh
# Session 7, run 24: tile shapes for the reduce-then-scan scatter (no look-back to wait
# for), the 2^25 crossover, and the committed defaults (reduce-then-scan for 32-bit keys
# and pairs from 2^25 keys).
B=./gpu_radix_bench
echo "== registers, reduce-then-scan scatter"
for s in "k32 512 10" "k32 512 12" "k32 1024 8" "k32 1024 6" "k32 384 12" "k32 256 16" "p32 512 10" "p32 1024 8"; do
  ./gpu_radix_stats $s 21=1 2>&1 | grep -i "register" | sed "s/^/[$s] /"
done
echo "== shapes, 2^26, reduce-then-scan"
for s in "512 8" "512 10" "512 12" "1024 8" "1024 6" "384 12" "256 16"; do
  set -- $s
  SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_K32=$2 $B 26 --reps 4 --only k32 2>&1 | grep "k32:\|k32 shape" | sed "s/^/[k32 $1 x $2] /"
done
for s in "512 8" "512 10" "1024 8"; do
  set -- $s
  SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_P32=$2 $B 26 --reps 4 --only p32 2>&1 | grep "p32:\|p32 shape" | sed "s/^/[p32 $1 x $2] /"
done
echo "== crossover at 2^25"
for r in 0 1 0 1; do
  SORTNET_RADIX_REDUCE_SCAN=$r $B 25 --reps 4 --only k32,p32 2>&1 | grep "k32:\|p32:" | sed "s/^/[reduce $r] /"
done
echo "== defaults"
$B 24 25 26 28 --reps 5 --only k32,p32 2>&1 | grep "k32:\|p32:"
