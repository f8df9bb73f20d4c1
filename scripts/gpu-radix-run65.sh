#!/bin/sh
# Session 9, run 65: run 64's scan by the last workgroups, with 16 loads in flight instead of
# 32 (registers: the upsweep's counting needs eight workgroups per multiprocessor); the
# upsweep's registers before (cf8faed) and after; against cf8faed's binary in the same call.
./gpu_radix_stats_old up32 256 10 | grep -i 'register count\|shared memory' | sed 's/^/cf8faed upsweep /'
./gpu_radix_stats up32 256 10 | grep -i 'register count\|shared memory' | sed 's/^/new upsweep /'
for l in 24 26; do
  for b in old new; do
    bin=./gpu_radix_bench; [ $b = old ] && bin=./gpu_radix_bench_old
    $bin $l --reps 5 --only k32 2>&1 | grep "k32:\|k32 phases" | sed "s/^/$b /"
  done
done
