#!/bin/sh
# Session 9, run 64: the scan of the partitions done by the last upsweep (and histogram)
# workgroups to finish, in blocks of partitions (radix_count.glsl's scan_if_last), instead of
# a scan dispatch per pass; against run 62's binary (cf8faed, gpu_radix_bench_old) in the
# same call, two rounds, best of 5, one process per variant and size; phases at 2^24 and
# 2^26; CUB in the same call.
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
for l in 24 26; do
  ./gpu_radix_bench $l --reps 5 --only k32 2>&1 | grep "k32 phases" | sed "s/^/new /"
  ./gpu_radix_bench_old $l --reps 5 --only k32 2>&1 | grep "k32 phases" | sed "s/^/old /"
done
python3 gpu-radix-cub.py 24 26 28
