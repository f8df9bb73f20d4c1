#!/bin/sh
# Session 8, run 45: reduce-then-scan scatters without the look-back's shared words (3 KiB
# less per workgroup), so that larger tiles keep two or three workgroups per multiprocessor
# within the ~47 KiB that run 44 found. Shapes by SORTNET_RADIX_WG / SORTNET_RADIX_KPI_<v>,
# one process per row, 2^26 (u32 keys also 2^28), best of 4.
N=./gpu_radix_bench
row() { # variant wg kpi size
  st=$(./gpu_radix_stats $1 $2 $3 21=1 | grep -i 'register count\|shared memory size' | sed 's/.*: //' | tr '\n' ' ')
  env SORTNET_RADIX_WG=$2 SORTNET_RADIX_KPI_$1=$3 $N $4 --reps 4 --only $1 2>&1 | grep "$1:" | sed "s/^/$2 x $3 [regs shared: $st] /"
}
for s in "512 8" "512 9" "512 10" "384 10" "384 12" "256 8" "256 10" "256 12" "256 13"; do row k32 $s 26; done
for s in "512 8" "512 10" "256 12"; do row k32 $s 28; done
for s in "512 8" "512 9" "512 10" "256 10" "256 12"; do row p32 $s 26; done
for s in "256 8" "256 6" "256 5" "128 8" "128 10" "128 12" "384 6"; do row k64 $s 26; done
