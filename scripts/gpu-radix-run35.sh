#!/bin/sh
# Session 7, run 35: peers found by atomicOr of lane bits into shared words
# (SORTNET_RADIX_MATCH_BY_OR=1, spec constant 22) instead of eight ballots, 2^26 and 2^28,
# one process per row, alternating.
B=./gpu_radix_bench
for s in "k32 512 8" "p32 512 8" "k64 256 8"; do
  ./gpu_radix_stats $s 21=1 22=1 2>&1 | grep -i "register\|shared" | sed "s/^/[$s match-by-or] /"
done
for v in k32 p32 k64; do
  for m in 0 1 0 1; do
    SORTNET_RADIX_MATCH_BY_OR=$m $B 26 --reps 4 --only $v 2>&1 | grep "$v:" | sed "s/^/[match-by-or $m] /"
  done
done
for m in 0 1; do
  SORTNET_RADIX_MATCH_BY_OR=$m $B 28 --reps 4 --only k32 2>&1 | grep "k32:" | sed "s/^/[match-by-or $m] /"
  SORTNET_RADIX_MATCH_BY_OR=$m $B 24 --reps 4 --only k32 2>&1 | grep "k32:" | sed "s/^/[match-by-or $m] /"
done
