#!/bin/sh
# Session 9, run 66 (12ab443): registers of reduce-then-scan's histogram and upsweep, and
# other u32 tiles at 2^24 only (best of 5, one process each, two rounds).
./gpu_radix_stats h32 256 10 2=1 3=1024 | grep -i 'register count\|shared memory' | sed 's/^/histogram /'
./gpu_radix_stats up32 256 10 | grep -i 'register count\|shared memory' | sed 's/^/upsweep /'
for round in 1 2; do
  for s in "256 10" "256 8" "256 9" "256 11" "512 5" "512 6" "128 20"; do
    set -- $s
    env SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k32=$2 ./gpu_radix_bench 24 --reps 5 --only k32 2>&1 | grep "k32:" | sed "s/^/round $round $1 x $2 /"
  done
done
