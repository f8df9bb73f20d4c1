#!/bin/sh
# Session 6, run 14: ranks packed two to a register (SORTNET_RADIX_RANK_PACK=1, spec
# constant 19), so that more keys per invocation fit 64 registers; tile shapes with it;
# look-ahead 2 for every variant; CUB in the same call.
# Run from a folder holding release builds of examples/gpu_radix_bench.rs,
# examples/gpu_radix_stats.rs and scripts/gpu-radix-cub.py.
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
S=./gpu_radix_stats
B=./gpu_radix_bench
for c in "k32 512 8 19=0" "k32 512 8 19=1" "k32 512 9 19=1" "k32 512 10 19=1" "k32 512 11 19=1" "k32 512 12 19=1" "k32 384 12 19=1" "k32 384 14 19=1" "p32 512 8 19=1" "p32 512 10 19=1" "k64 1024 4 19=1" "k64 1024 5 19=1" "k64 1024 6 19=1" "k64 512 8 19=1"; do
  echo "== stats $c"; $S $c 2>&1 | grep -i "register\|shared\|spill" | tr '\n' ' '; echo
done
run() { v=$1; l=$2; shift 2; env "$@" $B $l --reps 4 --only $v 2>&1 | grep "$v:" | sed "s/^/[$v 2^$l $*] /"; }
run k32 26 SORTNET_RADIX_RANK_PACK=0
for k in 8 9 10 11 12; do run k32 26 SORTNET_RADIX_RANK_PACK=1 SORTNET_RADIX_KPI_k32=$k; done
for k in 12 14; do run k32 26 SORTNET_RADIX_RANK_PACK=1 SORTNET_RADIX_WG=384 SORTNET_RADIX_KPI_k32=$k; done
run p32 26 SORTNET_RADIX_RANK_PACK=0
for k in 8 10; do run p32 26 SORTNET_RADIX_RANK_PACK=1 SORTNET_RADIX_KPI_p32=$k; done
run k64 26 SORTNET_RADIX_RANK_PACK=0
for k in 4 5 6; do run k64 26 SORTNET_RADIX_RANK_PACK=1 SORTNET_RADIX_KPI_k64=$k; done
run k64 26 SORTNET_RADIX_RANK_PACK=1 SORTNET_RADIX_WG=512 SORTNET_RADIX_KPI_k64=8
for v in k32 k64 p32; do run $v 26 SORTNET_RADIX_LOOKAHEAD=2; done
run k32 26 SORTNET_RADIX_RANK_PACK=0
python3 gpu-radix-cub.py 26 2>&1
