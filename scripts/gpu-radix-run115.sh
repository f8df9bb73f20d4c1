#!/bin/sh
# Session 14, run 115: run 114's shapes at the small sizes (where fewer, larger tiles may
# leave multiprocessors idle), and the crossovers it moved: u64 keys by reduce-then-scan from
# 2^21 down, u32 pairs at 2^25. grb_new, best of 5, ms.
row() { name=$1; v=$2; shift 2; echo "$name $(env "$@" 2>&1 | grep -v phases | grep "$v:")"; }
LB=SORTNET_RADIX_REDUCE_SCAN=0
for l in 16 18 19 20; do
  row "k32 lb 512x8" k32 $LB ./grb_new $l --reps 5 --only k32
  row "k32 lb 512x11" k32 $LB SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_k32=11 ./grb_new $l --reps 5 --only k32
  row "p32 lb 512x8" p32 $LB ./grb_new $l --reps 5 --only p32
  row "p32 lb 512x11" p32 $LB SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_p32=11 ./grb_new $l --reps 5 --only p32
  row "k64 lb 1024x5" k64 $LB ./grb_new $l --reps 5 --only k64
  row "k64 rs" k64 SORTNET_RADIX_REDUCE_SCAN=1 ./grb_new $l --reps 5 --only k64
done
for l in 24 25; do
  row "p32 lb 512x11" p32 $LB SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_p32=11 ./grb_new $l --reps 5 --only p32
  row "p32 rs" p32 SORTNET_RADIX_REDUCE_SCAN=1 ./grb_new $l --reps 5 --only p32
done
