#!/bin/sh
# Session 14, run 114: tiles for the look-back without per-digit arrays (grb_new), for the
# sizes and variants that use it (below the reduce-then-scan crossovers, and u64 pairs at
# every size): the current look-back shapes against larger ones that now fit as many
# workgroups per multiprocessor, and reduce-then-scan near the crossovers. Best of 5, ms.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for s in "k32 512 11" "p32 512 11" "k64 512 5" "p64 512 5" "p64 1024 5"; do
  echo "stats $s: $(./grs_new $s | grep -i 'register count\|shared memory size' | tr '\n' ' ')"
done
row() { name=$1; v=$2; shift 2; echo "$name $(env "$@" 2>&1 | grep -v phases | grep "$v:")"; }
LB=SORTNET_RADIX_REDUCE_SCAN=0
for l in 20 21 22 23; do
  row "k32 lb 512x8" k32 $LB ./grb_new $l --reps 5 --only k32
  row "k32 lb 512x10" k32 $LB SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_k32=10 ./grb_new $l --reps 5 --only k32
  row "k32 lb 512x11" k32 $LB SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_k32=11 ./grb_new $l --reps 5 --only k32
  row "k32 rs" k32 SORTNET_RADIX_REDUCE_SCAN=1 ./grb_new $l --reps 5 --only k32
done
for l in 21 22 23 24; do
  row "p32 lb 512x8" p32 $LB ./grb_new $l --reps 5 --only p32
  row "p32 lb 512x11" p32 $LB SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_p32=11 ./grb_new $l --reps 5 --only p32
  row "p32 rs" p32 SORTNET_RADIX_REDUCE_SCAN=1 ./grb_new $l --reps 5 --only p32
done
for l in 21 22 23; do
  row "k64 lb 1024x5" k64 $LB ./grb_new $l --reps 5 --only k64
  row "k64 lb 512x5" k64 $LB SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_k64=5 ./grb_new $l --reps 5 --only k64
  row "k64 rs" k64 SORTNET_RADIX_REDUCE_SCAN=1 ./grb_new $l --reps 5 --only k64
done
for l in 22 24 26; do
  row "p64 lb 1024x5" p64 ./grb_new $l --reps 5 --only p64
  row "p64 lb 512x5" p64 SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_p64=5 ./grb_new $l --reps 5 --only p64
  row "p64 lb 1024x4" p64 SORTNET_RADIX_WG=1024 SORTNET_RADIX_KPI_p64=4 ./grb_new $l --reps 5 --only p64
done
