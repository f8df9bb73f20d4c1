#!/bin/sh
# Session 14, run 113: the look-back without per-digit arrays (grb_new) at the larger tiles
# its smaller footprint allows (512 x 10 and 512 x 11: two workgroups per multiprocessor;
# 768 x 13 and 1024 x 10: one, CUB-sized tiles), against reduce-then-scan (the committed
# default, and at the same one-workgroup tiles), u32 keys, CUB in the same call.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for s in "512 10" "512 11" "768 13" "1024 10"; do
  echo "stats $s: $(./grs_new k32 $s | grep -i 'register count\|shared memory size' | tr '\n' ' ')"
done
row() { name=$1; shift; echo "$name $(env "$@" 2>&1 | grep -v phases | grep "k32:")"; }
for l in 24 26 28; do
  row "rs default" ./grb_new $l --reps 5 --only k32
  for s in "512 10" "512 11" "768 13" "1024 10"; do
    set -- $s
    row "lb $1x$2" SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k32=$2 ./grb_new $l --reps 5 --only k32
  done
  row "lb 512x11 ahead8" SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_k32=11 SORTNET_RADIX_LOOKAHEAD=8 ./grb_new $l --reps 5 --only k32
  row "lb 512x11 counter" SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_k32=11 SORTNET_RADIX_TILE_COUNTER=1 ./grb_new $l --reps 5 --only k32
  row "rs 1024x10" SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_WG=1024 SORTNET_RADIX_KPI_k32=10 ./grb_new $l --reps 5 --only k32
done
python3 gpu-radix-cub.py 24 26 28 2>&1 | grep "u32 in place"
echo "phases and walks at 2^24"
for s in "512 11" "1024 10"; do
  set -- $s
  env SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k32=$2 ./grb_new 24 --reps 5 --only k32 2>&1 | grep "shape\|phases"
  env SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k32=$2 SORTNET_RADIX_NO_WAIT=1 ./grb_new 24 --reps 5 --only k32 2>&1 | grep "phases"
  env SORTNET_RADIX_REDUCE_SCAN=0 SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k32=$2 SORTNET_RADIX_LB_STATS=1 ./grb_new 24 --reps 2 --only k32 2>&1 | grep "look-back"
done
