#!/bin/sh
# Session 9, run 67: reduce-then-scan clears the state's header with a dispatch
# (radix_clear.comp) instead of a fill and an update of the buffer, against the transfer
# commands (SORTNET_RADIX_CLEAR_SHADER=0) in the same binary and call, two rounds, best of 5;
# phases at 2^24.
for round in 1 2; do
  for l in 24 26; do
    for v in k32 k64 p32; do
      for c in 0 1; do
        env SORTNET_RADIX_CLEAR_SHADER=$c ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:" | sed "s/^/round $round clear shader $c /"
      done
    done
  done
done
for c in 0 1; do
  env SORTNET_RADIX_CLEAR_SHADER=$c ./gpu_radix_bench 24 --reps 5 --only k32 2>&1 | grep "k32 phases" | sed "s/^/clear shader $c /"
done
