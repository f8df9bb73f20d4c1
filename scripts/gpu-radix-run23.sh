#!/bin/sh
# Session 7, run 23: reduce-then-scan with a scatter workgroup per tile (the upsweep leaves
# each tile's offset in its partition) against the decoupled look-back; partition counts;
# registers; CUB in the same call.
B=./gpu_radix_bench
echo "== registers (reduce-then-scan scatter)"
for s in "k32 512 8" "k64 1024 5" "p32 512 8" "p64 1024 5"; do
  ./gpu_radix_stats $s 21=1 2>&1 | grep -i "register\|spill" | sed "s/^/[$s reduce] /"
done
echo "== modes at 2^26, alternating"
for v in k32 k64 p32 p64; do
  for r in 0 1 0 1; do
    SORTNET_RADIX_REDUCE_SCAN=$r $B 26 --reps 4 --only $v 2>&1 | grep "$v:\|$v phases" | sed "s/^/[reduce $r] /"
  done
done
echo "== partitions, u32 keys 2^26, reduce-then-scan"
for p in 256 512 2048 4096; do
  SORTNET_RADIX_REDUCE_SCAN=1 SORTNET_RADIX_PARTITIONS=$p $B 26 --reps 4 --only k32 2>&1 | grep "k32:" | sed "s/^/[partitions $p] /"
done
echo "== sizes"
for n in 24 28; do
  for r in 0 1; do
    SORTNET_RADIX_REDUCE_SCAN=$r $B $n --reps 4 --only k32,k64,p32 2>&1 | grep "k32:\|k64:\|p32:" | sed "s/^/[reduce $r] /"
  done
done
echo "== CUB"
python3 gpu-radix-cub.py 24 26 28
