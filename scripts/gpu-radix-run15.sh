#!/bin/sh
# Session 6, run 15: the committed defaults after runs 13-14 (two look-back lanes, ranks
# packed two to a register, u64 keys 1024 x 5) at 2^24 / 2^26 / 2^28 for every variant,
# u64 pairs at 1024 x 5 against 1024 x 4, CUB in the same call; then the end-to-end table
# (host slices, grouped path at 2^28) twice.
# Run from a folder holding release builds of examples/gpu_radix_bench.rs,
# examples/gpu_radix_stats.rs, examples/gpu_bench.rs and scripts/gpu-radix-cub.py.
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
S=./gpu_radix_stats
B=./gpu_radix_bench
for c in "k32 512 8" "k64 1024 5" "p32 512 8" "p64 1024 4" "p64 1024 5"; do
  echo "== stats $c"; $S $c 2>&1 | grep -i "register\|shared\|spill" | tr '\n' ' '; echo
done
run() { v=$1; l=$2; shift 2; env "$@" $B $l --reps 5 --only $v 2>&1 | grep "$v:\|$v shape" | sed "s/^/[$v 2^$l $*] /"; }
for l in 24 26 28; do
  for v in k32 k64 p32 p64; do run $v $l X=1; done
done
run p64 26 SORTNET_RADIX_KPI_p64=5
python3 gpu-radix-cub.py 24 26 28 2>&1
./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26 2>&1 | grep "^|" 
GPU_BENCH_E2E_ROWS=grouped,streamed ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep "2^28"
