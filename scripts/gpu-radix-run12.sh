#!/bin/sh
# Session 6, run 12: rank mode 1 (byte counters per round, no dependency between rounds)
# against mode 0 (a shared atomic and a shuffle per round), the look-back statistics of
# both, larger tiles that mode 1's counters fit, and the grouped host path at 2^28 with
# either mode; CUB in the same call. (Rank mode 1, SORTNET_RADIX_RANK_MODE, was measured
# slower and removed after this call; BENCHMARKS.md run 12 keeps the figures.)
# Run from a folder holding release builds of examples/gpu_radix_bench.rs,
# examples/gpu_radix_stats.rs, examples/gpu_bench.rs and scripts/gpu-radix-cub.py.
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
S=./gpu_radix_stats
B=./gpu_radix_bench
for m in 0 1; do
  for c in "k32 512 8" "k64 1024 4" "p32 512 8" "k32 384 12" "k32 256 16"; do
    echo "== stats mode $m $c"; $S $c 16=$m 2>&1 | grep -i "register\|shared\|spill" | tr '\n' ' '; echo
  done
done
run() { v=$1; l=$2; shift 2; env "$@" $B $l --reps 4 --only $v 2>&1 | grep "$v" | grep -v shape | sed "s/^/[$v 2^$l $*] /"; }
for l in 26 24 28; do
  run k32 $l SORTNET_RADIX_RANK_MODE=0
  run k32 $l SORTNET_RADIX_RANK_MODE=1
done
run k32 26 SORTNET_RADIX_RANK_MODE=0 SORTNET_RADIX_LB_STATS=1
run k32 26 SORTNET_RADIX_RANK_MODE=1 SORTNET_RADIX_LB_STATS=1
run k32 26 SORTNET_RADIX_RANK_MODE=1 SORTNET_RADIX_NO_WAIT=1
run k32 26 SORTNET_RADIX_RANK_MODE=1 SORTNET_RADIX_WG=384 SORTNET_RADIX_KPI_k32=12
run k32 26 SORTNET_RADIX_RANK_MODE=1 SORTNET_RADIX_WG=256 SORTNET_RADIX_KPI_k32=16
run k32 26 SORTNET_RADIX_RANK_MODE=1 SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_k32=10
run k32 26 SORTNET_RADIX_RANK_MODE=1 SORTNET_RADIX_WG=256 SORTNET_RADIX_KPI_k32=12
for v in k64 p32; do
  run $v 26 SORTNET_RADIX_RANK_MODE=0
  run $v 26 SORTNET_RADIX_RANK_MODE=1
done
run k32 26 SORTNET_RADIX_RANK_MODE=0
python3 gpu-radix-cub.py 24 26 28 2>&1
for m in 0 1 0 1; do
  SORTNET_RADIX_RANK_MODE=$m GPU_BENCH_E2E_ROWS=grouped,streamed ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep -i "2^28\|bound" | sed "s/^/[e2e mode $m] /"
done
