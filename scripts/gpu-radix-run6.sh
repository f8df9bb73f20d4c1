#!/bin/sh
# Sixth device run (one call): driver statistics of the new scatter variants; at 2^26 u32
# keys, one change at a time from run 5's defaults to the new ones (look-ahead 4, relaxed
# atomic loads in the look-back, tile id = workgroup id, partitioned match); tile shapes
# with the new defaults for u32, u64 and pairs; then every variant at 2^24/2^26/2^28 with
# CUB in the same call. Run from a folder holding release builds of
# examples/gpu_radix_bench.rs and examples/gpu_radix_stats.rs and scripts/gpu-radix-cub.py.
S=./gpu_radix_stats
for c in "k32 512 8" "k32_nv 512 8" "k32_nv 256 15" "k64_nv 512 4" "k64_nv 512 8" "p32_nv 512 6"; do
  echo "== stats $c"; $S $c 2>&1 | grep -i "register\|spill\|shared\|local\|(" | head -8
done
B=./gpu_radix_bench
k32() { tag=$1; shift; env "$@" $B 26 --reps 4 --only k32 2>&1 | grep "k32" | sed "s/^/[$tag] /"; }
k32 run5-defaults SORTNET_RADIX_MATCH=0 SORTNET_RADIX_LB_LOAD=0 SORTNET_RADIX_TILE_ORDER=0 SORTNET_RADIX_LOOKAHEAD=1
k32 +la4 SORTNET_RADIX_MATCH=0 SORTNET_RADIX_LB_LOAD=0 SORTNET_RADIX_TILE_ORDER=0
k32 +la4+load SORTNET_RADIX_MATCH=0 SORTNET_RADIX_TILE_ORDER=0
k32 +la4+load+wgid SORTNET_RADIX_MATCH=0
k32 new-defaults X=1
k32 new-no-wgid SORTNET_RADIX_TILE_ORDER=0
k32 new-la1 SORTNET_RADIX_LOOKAHEAD=1
k32 new-la8 SORTNET_RADIX_LOOKAHEAD=8
k32 new-first SORTNET_RADIX_LOOKBACK_FIRST=1
for s in "256 8" "256 12" "256 15" "384 8" "384 10" "512 6" "512 10" "512 12" "1024 4" "1024 6"; do
  set -- $s; k32 "wg$1x$2" SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k32=$2
done
for s in "512 4" "512 6" "512 8" "256 8" "256 12"; do
  set -- $s
  env SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k64=$2 $B 26 --reps 4 --only k64 2>&1 | grep "k64" | sed "s/^/[k64 wg$1x$2] /"
  env SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_p32=$2 $B 26 --reps 4 --only p32 2>&1 | grep "p32" | sed "s/^/[p32 wg$1x$2] /"
done
echo "== new defaults, all variants"; $B 24 26 28 --reps 5 2>&1
python3 gpu-radix-cub.py 24 26 28 2>&1
