#!/bin/sh
# Session 8, run 50: 64-bit keys by reduce-then-scan reorder one 32-bit half of each key at a
# time (HALF_KEYS: half the tile's shared memory, so more workgroups per multiprocessor);
# u32 keys load a whole tile per histogram/upsweep step (batch 10) and record no upsweep for
# pass 0. Before = run 48's binary (../lead10); one process per row, best of 5.
N=./gpu_radix_bench
O=../lead10/gpu_radix_bench
row() { # variant wg kpi size
  st=$(./gpu_radix_stats $1 $2 $3 21=1 22=1 | grep -i 'register count\|shared memory size' | sed 's/.*: //' | tr '\n' ' ')
  env SORTNET_RADIX_WG=$2 SORTNET_RADIX_KPI_$1=$3 $N $4 --reps 5 --only $1 2>&1 | grep "$1:" | sed "s/^/$2 x $3 [regs shared: $st] /"
}
for l in 24 26 28; do
  $O $l --reps 5 --only k64 2>&1 | grep "k64:" | sed 's/^/before (256 x 7, whole keys) /'
  for s in "256 7" "256 8" "512 8" "256 10" "256 6" "384 8"; do row k64 $s $l; done
done
for l in 24 26 28; do
  for r in 1 2; do
    $O $l --reps 5 --only k32 2>&1 | grep "k32:" | sed 's/^/before /'
    $N $l --reps 5 --only k32 2>&1 | grep "k32:" | sed 's/^/after  /'
  done
done
python3 gpu-radix-cub.py 24 26 28
