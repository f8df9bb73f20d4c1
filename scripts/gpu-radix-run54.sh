#!/bin/sh
# Session 8, run 54: tiles for 64-bit keys with the half-key tile (run 53's code, committed),
# and where reduce-then-scan now overtakes the look-back for them. One process per row,
# best of 5.
N=./gpu_radix_bench
row() { # variant wg kpi size
  st=$(./gpu_radix_stats $1 $2 $3 21=1 22=1 | grep -i 'register count\|shared memory size' | sed 's/.*: //' | tr '\n' ' ')
  env SORTNET_RADIX_WG=$2 SORTNET_RADIX_KPI_$1=$3 $N $4 --reps 5 --only $1 2>&1 | grep "$1:" | sed "s/^/$2 x $3 [regs shared: $st] /"
}
for l in 26 28; do
  for s in "512 8" "512 9" "512 10" "384 10" "384 12" "1024 5" "1024 4" "256 12"; do row k64 $s $l; done
done
for l in 21 22 23; do
  SORTNET_RADIX_REDUCE_SCAN=0 $N $l --reps 5 --only k64 2>&1 | grep "k64:" | sed 's/^/look-back        /'
  SORTNET_RADIX_REDUCE_SCAN=1 $N $l --reps 5 --only k64 2>&1 | grep "k64:" | sed 's/^/reduce-then-scan /'
done
