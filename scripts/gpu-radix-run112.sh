#!/bin/sh
# Session 14, run 112: the look-back without per-digit arrays in shared memory (grb_new) at the
# reduce-then-scan tile (256 x 10, four workgroups per multiprocessor), against the committed
# code (grb_head, d5551a7: reduce-then-scan for u32 keys from 2^23) and against the old
# look-back at the same tile (two workgroups), u32 keys, two rounds, CUB in the same call.
# (As run: the knob is SORTNET_RADIX_KPI_k32, lower case, so the "256x10" rows below ran at
# 256 x 8, as their phases line shows; BENCHMARKS.md reports them so.)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
./grs_new k32 256 10 | grep -i "register\|shared\|spill"
./grs_new k32 256 10 21=1 | grep -i "register\|shared\|spill"
LB="SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=256 SORTNET_RADIX_KPI_K32=10"
row() { name=$1; shift; echo "$name $(env "$@" 2>&1 | grep -v phases | grep "k32:")"; }
for r in 1 2; do
  for l in 24 26 28; do
    row "head rs" ./grb_head $l --reps 5 --only k32
    row "new rs" ./grb_new $l --reps 5 --only k32
    row "new lb 256x10" $LB ./grb_new $l --reps 5 --only k32
    row "new lb 256x10 lanes1 ahead8" $LB SORTNET_RADIX_LB_LANES=1 SORTNET_RADIX_LOOKAHEAD=8 ./grb_new $l --reps 5 --only k32
    row "head lb 256x10" $LB ./grb_head $l --reps 5 --only k32
    row "new lb 512x8" SORTNET_RADIX_REDUCE_SCAN=0 ./grb_new $l --reps 5 --only k32
  done
  python3 gpu-radix-cub.py 24 26 28 2>&1 | grep -i "u32\|sort u32"
done
echo "phases at 2^24"
env SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=256 SORTNET_RADIX_KPI_K32=10 ./grb_new 24 --reps 5 --only k32 2>&1 | grep k32
env SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=256 SORTNET_RADIX_KPI_K32=10 SORTNET_RADIX_NO_WAIT=1 ./grb_new 24 --reps 5 --only k32 2>&1 | grep k32
env SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=256 SORTNET_RADIX_KPI_K32=10 SORTNET_RADIX_LB_STATS=1 ./grb_new 24 --reps 2 --only k32 2>&1 | grep "look-back"
./grb_new 24 --reps 5 --only k32 2>&1 | grep phases
echo "look-back defaults below the crossover, and u64 pairs"
for l in 20 22; do row "head" ./grb_head $l --reps 5 --only k32; row "new" ./grb_new $l --reps 5 --only k32; done
for l in 24 26; do
  echo "head $(./grb_head $l --reps 5 --only p64 2>&1 | grep -v phases | grep 'p64:')"
  echo "new $(./grb_new $l --reps 5 --only p64 2>&1 | grep -v phases | grep 'p64:')"
done
