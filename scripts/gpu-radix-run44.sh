#!/bin/sh
# Session 8, run 44 (binary built for this call only: spec constant 22 adds PAD words of
# unused shared memory to the scatter): how much shared memory lets two workgroups share a
# multiprocessor. u32 keys, 2^26, reduce-then-scan.
for p in 1 256 512 768 1024 1536 2048 4096; do
  echo "pad $p: $(./gpu_radix_stats k32 512 8 21=1 22=$p | grep -i 'shared memory size')"
  SORTNET_RADIX_PAD=$p ./gpu_radix_bench 26 --reps 4 --only k32 2>&1 | grep "k32:"
done
for w in 256 128; do
 for k in 8 12 16; do
  for p in 1 1024 2048; do
   echo "wg $w kpi $k pad $p: $(./gpu_radix_stats k32 $w $k 21=1 22=$p | grep -i 'register count\|shared memory size' | tr '\n' ' ')"
   SORTNET_RADIX_WG=$w SORTNET_RADIX_KPI_k32=$k SORTNET_RADIX_PAD=$p ./gpu_radix_bench 26 --reps 4 --only k32 2>&1 | grep "k32:"
  done
 done
done
