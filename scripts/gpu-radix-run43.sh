#!/bin/sh
# Session 8, run 43: with fewer barriers and registers per tile (run 42's code), do more
# keys per invocation fit? Registers from the driver, then whole sorts per keys-per-
# invocation count (SORTNET_RADIX_KPI_<variant>), one process per row; before = session 7's
# binary (../lead7) with its defaults.
N=./gpu_radix_bench
O=../lead7/gpu_radix_bench
for k in 8 9 10 11 12; do
  echo "k32 512 x $k: $(./gpu_radix_stats k32 512 $k 21=1 | grep -i 'register count')"
done
for k in 8 9 10; do
  echo "p32 512 x $k: $(./gpu_radix_stats p32 512 $k 21=1 | grep -i 'register count')"
  echo "k64 256 x $k: $(./gpu_radix_stats k64 256 $k 21=1 | grep -i 'register count')"
done
for k in 5 6; do
  echo "p64 1024 x $k: $(./gpu_radix_stats p64 1024 $k | grep -i 'register count')"
done
for l in 26 28; do
  $O $l --reps 5 --only k32 2>&1 | grep "k32:" | sed 's/^/before /'
  for k in 8 9 10 11 12; do
    SORTNET_RADIX_KPI_k32=$k $N $l --reps 5 --only k32 2>&1 | grep "k32:" | sed "s/^/kpi $k /"
  done
done
for v in p32 k64; do
  $O 26 --reps 5 --only $v 2>&1 | grep "$v:" | sed 's/^/before /'
  for k in 8 9 10; do
    env SORTNET_RADIX_KPI_$v=$k $N 26 --reps 5 --only $v 2>&1 | grep "$v:" | sed "s/^/kpi $k /"
  done
done
$O 26 --reps 5 --only p64 2>&1 | grep "p64:" | sed 's/^/before /'
for k in 5 6; do
  SORTNET_RADIX_KPI_p64=$k $N 26 --reps 5 --only p64 2>&1 | grep "p64:" | sed "s/^/kpi $k /"
done
