#!/bin/sh
# Seventh device run (one call), ballot match (run 6 showed the partitioned match slower):
# register counts; at 2^26 the look-back knobs one at a time against the new defaults, a
# timing-only run without look-back reads, the histogram batch; tile shapes per variant;
# then three candidate configurations at 2^24/2^26/2^28 for every variant, and CUB.
# Run from a folder holding release builds of examples/gpu_radix_bench.rs and
# examples/gpu_radix_stats.rs and scripts/gpu-radix-cub.py.
S=./gpu_radix_stats
for c in "k32 512 8" "k32 512 8 15=4" "k32 512 8 13=1 15=4" "k32 384 10" "k32 256 15" "k64 512 4" "k64 1024 4" "p32 512 8"; do
  echo "== stats $c"; $S $c 2>&1 | grep -i "register\|shared" | tr '\n' ' '; echo
done
B=./gpu_radix_bench
run() { v=$1; tag=$2; shift 2; env "$@" $B 26 --reps 4 --only $v 2>&1 | grep "$v" | grep -v shape | sed "s/^/[$v $tag] /"; }
run k32 defaults X=1
run k32 first SORTNET_RADIX_LOOKBACK_FIRST=1
run k32 early SORTNET_RADIX_EARLY_COUNTS=1
run k32 pre2 SORTNET_RADIX_PREFETCH=2
run k32 pre4 SORTNET_RADIX_PREFETCH=4
run k32 early+pre2 SORTNET_RADIX_EARLY_COUNTS=1 SORTNET_RADIX_PREFETCH=2
run k32 early+pre4 SORTNET_RADIX_EARLY_COUNTS=1 SORTNET_RADIX_PREFETCH=4
run k32 early+pre4+first SORTNET_RADIX_EARLY_COUNTS=1 SORTNET_RADIX_PREFETCH=4 SORTNET_RADIX_LOOKBACK_FIRST=1
run k32 la2 SORTNET_RADIX_LOOKAHEAD=2
run k32 la8 SORTNET_RADIX_LOOKAHEAD=8
run k32 counter SORTNET_RADIX_TILE_ORDER=0
run k32 hist-batch1 SORTNET_RADIX_HIST_BATCH=1
run k32 NO-WAIT-timing-only SORTNET_RADIX_NO_WAIT=1
run k32 NO-WAIT+first-timing-only SORTNET_RADIX_NO_WAIT=1 SORTNET_RADIX_LOOKBACK_FIRST=1
for s in "256 15" "256 16" "384 10" "384 11" "512 7" "512 9" "1024 4"; do
  set -- $s; run k32 "wg$1x$2" SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k32=$2
done
for s in "512 4" "256 8" "1024 4" "1024 3" "384 6"; do
  set -- $s; run k64 "wg$1x$2" SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k64=$2
done
run k64 early+pre4 SORTNET_RADIX_EARLY_COUNTS=1 SORTNET_RADIX_PREFETCH=4
run k64 first SORTNET_RADIX_LOOKBACK_FIRST=1
for s in "512 6" "512 7" "512 8" "384 10" "256 12"; do
  set -- $s; run p32 "wg$1x$2" SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_p32=$2
done
run p32 early+pre4 SORTNET_RADIX_EARLY_COUNTS=1 SORTNET_RADIX_PREFETCH=4
for s in "512 4" "256 8" "1024 4"; do
  set -- $s; run p64 "wg$1x$2" SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_p64=$2
done
echo "== C0 defaults"; $B 24 26 28 --reps 5 2>&1 | grep -v "phases\|shape"
echo "== C1 early+pre4, p32 8"; SORTNET_RADIX_EARLY_COUNTS=1 SORTNET_RADIX_PREFETCH=4 SORTNET_RADIX_KPI_p32=8 $B 24 26 28 --reps 5 2>&1 | grep -v "shape"
echo "== C2 first+early+pre4, p32 8"; SORTNET_RADIX_LOOKBACK_FIRST=1 SORTNET_RADIX_EARLY_COUNTS=1 SORTNET_RADIX_PREFETCH=4 SORTNET_RADIX_KPI_p32=8 $B 24 26 28 --reps 5 2>&1 | grep -v "phases\|shape"
python3 gpu-radix-cub.py 24 26 28 2>&1
