#!/bin/sh
# Session 8, run 53: 64-bit keys reordered one 32-bit half at a time again, this time with the
# digit's half kept in registers until the other half comes through shared memory, then the
# whole key written at once (run 50's version wrote each half as its own 32-bit word); and
# reduce-then-scan clearing only the state's header. Before = run 51's binary (../lead12);
# SORTNET_RADIX_HALF_KEYS=0 turns the half tile off in this binary. One process per row,
# best of 5.
N=./gpu_radix_bench
O=../lead12/gpu_radix_bench
row() { # variant wg kpi size
  st=$(./gpu_radix_stats $1 $2 $3 21=1 22=1 | grep -i 'register count\|shared memory size' | sed 's/.*: //' | tr '\n' ' ')
  env SORTNET_RADIX_WG=$2 SORTNET_RADIX_KPI_$1=$3 $N $4 --reps 5 --only $1 2>&1 | grep "$1:" | sed "s/^/$2 x $3 [regs shared: $st] /"
}
for l in 24 26 28; do
  $O $l --reps 5 --only k64 2>&1 | grep "k64:" | sed 's/^/before /'
  SORTNET_RADIX_HALF_KEYS=0 $N $l --reps 5 --only k64 2>&1 | grep "k64:" | sed 's/^/whole keys /'
  for s in "256 7" "256 8" "256 10" "512 8"; do row k64 $s $l; done
done
for l in 24 26 28; do
  for r in 1 2; do
    $O $l --reps 5 --only k32 2>&1 | grep "k32:" | sed 's/^/before /'
    $N $l --reps 5 --only k32 2>&1 | grep "k32:\|phases" | sed 's/^/after  /'
  done
done
