#!/bin/sh
# Session 5, run 10: what the phases of a vulkan-radix pass cost (u32 keys, 2^26, default
# shape 512 x 8): timing-only runs without the ranking, without the look-back, without
# both; CUB in the same call. (The device call also timed an unrolled per-digit prefix,
# SORTNET_RADIX_UNROLL_DIGITS, a knob removed after it measured no faster.)
# Run from a folder holding a release build of examples/gpu_radix_bench.rs and
# scripts/gpu-radix-cub.py.
B=./gpu_radix_bench
run() { tag=$1; shift; env "$@" $B 26 --reps 4 --only k32 2>&1 | grep "k32" | grep -v shape | sed "s/^/[$tag] /"; }
run defaults X=1
run no-rank SORTNET_RADIX_NO_RANK=1
run no-wait SORTNET_RADIX_NO_WAIT=1
run no-rank+no-wait SORTNET_RADIX_NO_RANK=1 SORTNET_RADIX_NO_WAIT=1
run defaults-again X=1
for v in k64 p32; do
  env $B 26 --reps 4 --only $v 2>&1 | grep "$v:" | sed "s/^/[$v defaults] /"
done
python3 gpu-radix-cub.py 26 2>&1
