#!/bin/sh
# Session 8, run 47: reduce-then-scan scatters without s_count and s_excl (each digit's first
# index in the sorted tile is added into the subgroup counters instead), 2 KiB less per
# workgroup, so larger tiles keep four (u32 keys) or two (u32 pairs) workgroups per
# multiprocessor. Run 46's binary (../lead9) for the defaults before; one process per row,
# best of 5.
N=./gpu_radix_bench
row() { # variant wg kpi size
  st=$(./gpu_radix_stats $1 $2 $3 21=1 | grep -i 'register count\|shared memory size' | sed 's/.*: //' | tr '\n' ' ')
  env SORTNET_RADIX_WG=$2 SORTNET_RADIX_KPI_$1=$3 $N $4 --reps 5 --only $1 2>&1 | grep "$1:" | sed "s/^/$2 x $3 [regs shared: $st] /"
}
for l in 26 28; do
  ../lead9/gpu_radix_bench $l --reps 5 --only k32 2>&1 | grep "k32:" | sed 's/^/run 46 binary, default /'
  for s in "256 8" "256 9" "256 10" "512 10"; do row k32 $s $l; done
  ../lead9/gpu_radix_bench $l --reps 5 --only p32 2>&1 | grep "p32:" | sed 's/^/run 46 binary, default /'
  for s in "512 10" "512 11"; do row p32 $s $l; done
  ../lead9/gpu_radix_bench $l --reps 5 --only k64 2>&1 | grep "k64:" | sed 's/^/run 46 binary, default /'
  for s in "256 6" "256 7" "256 8"; do row k64 $s $l; done
done
$N 26 --reps 5 --only k32 2>&1 | grep "phases"
SORTNET_RADIX_NO_RANK=1 $N 26 --reps 5 --only k32 2>&1 | grep "phases"
