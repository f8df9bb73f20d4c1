#!/bin/sh
# Session 8, run 46: the candidate reduce-then-scan tiles of run 45 at every size, where
# reduce-then-scan now overtakes the look-back, and CUB in the same call. One process per
# row, best of 5.
N=./gpu_radix_bench
row() { # variant wg kpi size [env..]
  v=$1; w=$2; k=$3; l=$4; shift 4
  env SORTNET_RADIX_WG=$w SORTNET_RADIX_KPI_$v=$k "$@" $N $l --reps 5 --only $v 2>&1 | grep "$v:" | sed "s/^/$w x $k $* /"
}
lb() { # variant size: the look-back with its default tile
  SORTNET_RADIX_REDUCE_SCAN=0 $N $2 --reps 5 --only $1 2>&1 | grep "$1:" | sed "s/^/look-back /"
}
for l in 24 26 28; do
  for s in "256 8" "512 10" "256 12"; do row k32 $s $l; done
  for s in "512 10" "512 8"; do row p32 $s $l; done
  for s in "256 6" "384 6" "256 7"; do row k64 $s $l SORTNET_RADIX_REDUCE_SCAN=1; done
done
for l in 20 21 22 23 24; do
  lb k32 $l; row k32 256 8 $l SORTNET_RADIX_REDUCE_SCAN=1; row k32 512 10 $l SORTNET_RADIX_REDUCE_SCAN=1
  lb p32 $l; row p32 512 10 $l SORTNET_RADIX_REDUCE_SCAN=1
done
for l in 23 24 25; do lb k64 $l; done
for l in 24 26; do lb p64 $l; row p64 256 6 $l SORTNET_RADIX_REDUCE_SCAN=1; row p64 256 5 $l SORTNET_RADIX_REDUCE_SCAN=1; done
python3 gpu-radix-cub.py 24 26 28
