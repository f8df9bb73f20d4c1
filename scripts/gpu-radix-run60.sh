#!/bin/sh
# Session 9, run 60: one dispatch per pass and stage, its direction read from the pass's
# flags (no empty B->A or A->B dispatch), against session 8's committed binary
# (gpu_radix_bench_old, 157cef0) in the same call, two rounds, best of 5, one process per
# variant and size; CUB in the same call.
for round in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      for b in old new; do
        bin=./gpu_radix_bench; [ $b = old ] && bin=./gpu_radix_bench_old
        $bin $l --reps 5 --only $v 2>&1 | grep "$v:" | sed "s/^/round $round $b /"
      done
    done
  done
done
./gpu_radix_bench 24 --reps 5 --only k32 2>&1 | grep "k32 phases"
./gpu_radix_bench_old 24 --reps 5 --only k32 2>&1 | grep "k32 phases"
python3 gpu-radix-cub.py 24 26 28
