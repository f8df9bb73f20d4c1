#!/bin/sh
# Session 8, run 55: larger 256-invocation tiles for 64-bit keys with the half-key tile
# (run 54: 256 x 12 best). One process per row, best of 5.
N=./gpu_radix_bench
row() { # variant wg kpi size
  st=$(./gpu_radix_stats $1 $2 $3 21=1 22=1 | grep -i 'register count\|shared memory size' | sed 's/.*: //' | tr '\n' ' ')
  env SORTNET_RADIX_WG=$2 SORTNET_RADIX_KPI_$1=$3 $N $4 --reps 5 --only $1 2>&1 | grep "$1:" | sed "s/^/$2 x $3 [regs shared: $st] /"
}
for l in 24 26 28; do
  for s in "256 12" "256 11" "256 13" "256 14" "256 16"; do row k64 $s $l; done
done
