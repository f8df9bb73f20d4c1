#!/bin/sh
# Session 6, run 19: tiles by workgroup id (SORTNET_RADIX_TILE_COUNTER=0) against tiles from
# the counter, every variant, alternating rounds; CUB in the same call; then the radix
# test binaries on the H200 with workgroup-id tiles. (The call ran a build whose knob was
# SORTNET_RADIX_TILE_BY_WG=1/0, the inverse of SORTNET_RADIX_TILE_COUNTER=0/1 here.)
B=./gpu_radix_bench
run() { v=$1; l=$2; shift 2; env "$@" $B $l --reps 5 --only $v 2>&1 | grep "$v:" | sed "s/^/[$v 2^$l $*] /"; }
for r in 1 2; do
  for v in k32 k64 p32 p64; do
    run $v 26 SORTNET_RADIX_TILE_COUNTER=1
    run $v 26 SORTNET_RADIX_TILE_COUNTER=0
  done
done
run k32 28 SORTNET_RADIX_TILE_COUNTER=1
run k32 28 SORTNET_RADIX_TILE_COUNTER=0
run k32 24 SORTNET_RADIX_TILE_COUNTER=1
run k32 24 SORTNET_RADIX_TILE_COUNTER=0
python3 gpu-radix-cub.py 26 2>&1
for t in gpu_radix gpu_radix_knobs gpu_radix_fallback backends; do
  echo "== $t"; SORTNET_REQUIRE_GPU=1 SORTNET_RADIX_TILE_COUNTER=0 ./tests/$t 2>&1 | grep -E "test result|FAILED|panicked"
done
