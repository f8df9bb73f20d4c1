#!/bin/sh
# Session 8, run 56: the committed code (64-bit keys in 256 x 14 half-key tiles). Larger u32
# tiles at three workgroups per multiprocessor against the default 256 x 10; the final table,
# one process per variant and size, best of 5, CUB in the same call; end to end.
N=./gpu_radix_bench
row() { # variant wg kpi size
  st=$(./gpu_radix_stats $1 $2 $3 21=1 | grep -i 'register count\|shared memory size' | sed 's/.*: //' | tr '\n' ' ')
  env SORTNET_RADIX_WG=$2 SORTNET_RADIX_KPI_$1=$3 $N $4 --reps 5 --only $1 2>&1 | grep "$1:" | sed "s/^/$2 x $3 [regs shared: $st] /"
}
for l in 24 26 28; do
  for s in "256 12" "256 14"; do row k32 $s $l; done
done
for l in 24 26 28; do
  for v in k32 k64 p32 p64; do
    $N $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
  done
done
python3 gpu-radix-cub.py 24 26 28
./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26
