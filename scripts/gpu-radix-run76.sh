#!/bin/sh
# Session 10, run 76: the upsweep and the histogram loading each chunk of keys while the
# one before is counted, at 1024 / 512 / 256 partitions, against the binary before it
# (gpu_radix_bench_old: 6db6e05); registers of the upsweeps and histograms; best of 5.
S=./gpu_radix_stats
for a in "up32 256 10" "up64 256 8" "h32 256 10 2=1 3=1024" "h64 256 8 2=1 3=1024"; do
  echo "stats $a"; $S $a 2>&1 | grep "Register\|Shared"
done
for l in 24 26 28; do
  for v in k32 k64 p32; do
    echo "old"; ./gpu_radix_bench_old $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
    for p in 1024 512 256; do
      echo "partitions $p"; SORTNET_RADIX_PARTITIONS=$p ./gpu_radix_bench $l --reps 5 --only $v 2>&1 | grep "$v:\|k32 phases"
    done
  done
done
python3 gpu-radix-cub.py 24 26 28
