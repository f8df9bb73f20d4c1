#!/bin/sh
# Session 6, run 13: the look-back walked by two invocations per digit (each reading
# LOOKAHEAD earlier tiles per step, SORTNET_RADIX_LB_LANES, default 2) against one, with
# the look-back statistics; look-ahead 2 / 8 with two lanes; u64 keys with up to four
# lanes; the final figures at 2^24 / 2^26 / 2^28 with CUB in the same call; the grouped
# host path at 2^28 with one and two lanes.
# Run from a folder holding release builds of examples/gpu_radix_bench.rs,
# examples/gpu_radix_stats.rs, examples/gpu_bench.rs and scripts/gpu-radix-cub.py.
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
S=./gpu_radix_stats
B=./gpu_radix_bench
for c in "k32 512 8 18=1" "k32 512 8 18=2" "k32 512 8 18=2 10=8" "k64 1024 4 18=2" "k64 1024 4 18=4" "p32 512 8 18=2"; do
  echo "== stats $c"; $S $c 2>&1 | grep -i "register\|shared\|spill" | tr '\n' ' '; echo
done
run() { v=$1; l=$2; shift 2; env "$@" $B $l --reps 4 --only $v 2>&1 | grep "$v" | grep -v shape | sed "s/^/[$v 2^$l $*] /"; }
run k32 26 SORTNET_RADIX_LB_LANES=1 SORTNET_RADIX_LB_STATS=1
run k32 26 SORTNET_RADIX_LB_LANES=2 SORTNET_RADIX_LB_STATS=1
for l in 26 24 28; do
  run k32 $l SORTNET_RADIX_LB_LANES=1
  run k32 $l SORTNET_RADIX_LB_LANES=2
done
run k32 26 SORTNET_RADIX_LB_LANES=2 SORTNET_RADIX_LOOKAHEAD=2
run k32 26 SORTNET_RADIX_LB_LANES=2 SORTNET_RADIX_LOOKAHEAD=8 SORTNET_RADIX_LB_STATS=1
run k32 26 SORTNET_RADIX_LB_LANES=2 SORTNET_RADIX_NO_WAIT=1
for l in 26 24 28; do
  run k64 $l SORTNET_RADIX_LB_LANES=1
  run k64 $l SORTNET_RADIX_LB_LANES=2
done
run k64 26 SORTNET_RADIX_LB_LANES=4 SORTNET_RADIX_LB_STATS=1
for l in 26 24 28; do
  run p32 $l SORTNET_RADIX_LB_LANES=1
  run p32 $l SORTNET_RADIX_LB_LANES=2
done
run p64 26 SORTNET_RADIX_LB_LANES=2
python3 gpu-radix-cub.py 24 26 28 2>&1
for m in 1 2 1 2; do
  SORTNET_RADIX_LB_LANES=$m GPU_BENCH_E2E_ROWS=grouped,streamed ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep "2^28" | sed "s/^/[e2e lanes $m] /"
done
