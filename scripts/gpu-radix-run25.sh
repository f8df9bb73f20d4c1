#!/bin/sh
# Session 7, run 25: the committed defaults (reduce-then-scan for 32-bit keys and pairs from
# 2^25 keys, pass 0's tile offsets from the histogram) against CUB, one process per size;
# experiments: u64 without look-back reads against reduce-then-scan, the ranking's share
# without look-back, larger scatter tiles; end to end from host slices.
B=./gpu_radix_bench
echo "== defaults"
for l in 24 25 26 28; do
  $B $l --reps 5 --only k32,k64,p32,p64 2>&1 | grep "k32:\|k64:\|p32:\|p64:\|k32 phases"
done
echo "== look-back at 2^26 and 2^28 (SORTNET_RADIX_REDUCE_SCAN=0)"
for l in 26 28; do
  SORTNET_RADIX_REDUCE_SCAN=0 $B $l --reps 5 --only k32,p32 2>&1 | grep "k32:\|p32:"
done
echo "== u64 keys 2^26: look-back without its reads (timing only) / reduce-then-scan"
SORTNET_RADIX_NO_WAIT=1 $B 26 --reps 4 --only k64 2>&1 | grep "k64:\|k64 phases" | sed "s/^/[no-wait] /"
SORTNET_RADIX_REDUCE_SCAN=1 $B 26 --reps 4 --only k64 2>&1 | grep "k64:\|k64 phases" | sed "s/^/[reduce] /"
echo "== u32 keys 2^26 by reduce-then-scan without ranking (timing only)"
SORTNET_RADIX_NO_RANK=1 $B 26 --reps 4 --only k32 2>&1 | grep "k32:\|k32 phases" | sed "s/^/[no-rank] /"
echo "== larger tiles, u32 keys 2^26 by reduce-then-scan"
for s in "512 10" "512 12" "256 12" "256 16"; do
  set -- $s
  ./gpu_radix_stats k32 $1 $2 21=1 2>&1 | grep -i "register" | sed "s/^/[k32 $1 x $2] /"
  SORTNET_RADIX_WG=$1 SORTNET_RADIX_KPI_k32=$2 $B 26 --reps 4 --only k32 2>&1 | grep "k32:\|k32 shape" | sed "s/^/[k32 $1 x $2] /"
done
echo "== CUB"
python3 gpu-radix-cub.py 24 26 28 2>&1
echo "== end to end"
./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26 2>&1 | grep "^|"
for r in 1 2; do
  GPU_BENCH_E2E_ROWS=grouped,streamed ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep "2^28"
done
