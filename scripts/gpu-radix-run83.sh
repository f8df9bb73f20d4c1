#!/bin/sh
# Session 11, run 83: knob sweep on fb43571 for 2^24: partitions and the upsweep's batch.
for r in 1 2; do
for p in 256 384 512 768 1024; do
  for v in k32 k64; do
    echo "partitions=$p $(SORTNET_RADIX_PARTITIONS=$p ./gpu_radix_bench 24 --reps 5 --only $v 2>&1 | grep "$v:")"
  done
done
for b in 4 6 8 10 12 16; do
  for v in k32 k64; do
    echo "batch=$b $(SORTNET_RADIX_HIST_BATCH=$b ./gpu_radix_bench 24 --reps 5 --only $v 2>&1 | grep "$v" | grep -v shape)"
  done
done
done
python3 gpu-radix-cub.py 24
