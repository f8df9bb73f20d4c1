#!/bin/sh
# Session 8, run 42: fewer barriers per scatter tile (each subgroup clears its own counters,
# the subgroup totals are summed by each invocation instead of scanned in place, the sorted
# tile beside the counters where it fits) and no validity ballot (keys past the count become
# all ones). Before = session 7's binary (../lead7), after = this one; KEYS_APART=0 is the
# new code with the sorted tile in the counters' words. One process per row, rounds
# alternate. Then registers, and CUB in the same call.
N=./gpu_radix_bench
O=../lead7/gpu_radix_bench
for round in 1 2; do
  for l in 24 26 28; do
    echo "== k32 2^$l round $round"
    $O $l --reps 5 --only k32 2>&1 | grep "k32:" | sed 's/^/before /'
    $N $l --reps 5 --only k32 2>&1 | grep "k32:\|k32 phases" | sed 's/^/after  /'
    SORTNET_RADIX_KEYS_APART=0 $N $l --reps 5 --only k32 2>&1 | grep "k32:" | sed 's/^/shared /'
  done
  for v in k64 p32; do
    echo "== $v 2^26 round $round"
    $O 26 --reps 5 --only $v 2>&1 | grep "$v:" | sed 's/^/before /'
    $N 26 --reps 5 --only $v 2>&1 | grep "$v:" | sed 's/^/after  /'
  done
done
./gpu_radix_stats k32 512 8 21=1 22=1 | grep -i "regist\|shared"
./gpu_radix_stats k32 512 8 21=1 22=0 | grep -i "regist\|shared"
python3 gpu-radix-cub.py 24 26 28
