#!/bin/sh
# Session 5, run 9: vulkan-radix tile shapes not tried before (smaller workgroups, more of
# them per multiprocessor), their register counts, look-ahead 8 with the smaller tiles, a
# timing-only run without look-back for the smaller shape; CUB in the same call.
# Run from a folder holding release builds of examples/gpu_radix_bench.rs and
# examples/gpu_radix_stats.rs and scripts/gpu-radix-cub.py.
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
S=./gpu_radix_stats
B=./gpu_radix_bench
for c in "k32 512 8" "k32 256 8" "k32 256 10" "k32 256 12" "k32 128 16" "k32 384 8" "k32 512 6" "k32 128 12" "k32 256 6" "k64 1024 4" "k64 256 6" "k64 512 5" "p32 512 8" "p32 256 10"; do
  echo "== stats $c"; $S $c 2>&1 | grep -i "register\|shared\|spill" | tr '\n' ' '; echo
done
run() { v=$1; l=$2; wg=$3; kpi=$4; shift 4; env SORTNET_RADIX_WG=$wg SORTNET_RADIX_KPI_$v=$kpi "$@" $B $l --reps 4 --only $v 2>&1 | grep "$v" | sed "s/^/[$v $wg x $kpi $*] /"; }
for s in "512 8" "256 8" "256 10" "256 12" "128 16" "384 8" "512 6" "128 12" "256 6"; do run k32 26 $s X=1; done
run k32 26 256 8 SORTNET_RADIX_LOOKAHEAD=8
run k32 26 256 12 SORTNET_RADIX_LOOKAHEAD=8
run k32 26 512 8 SORTNET_RADIX_NO_WAIT=1
run k32 26 256 8 SORTNET_RADIX_NO_WAIT=1
for s in "1024 4" "256 6" "512 5" "256 8"; do run k64 26 $s X=1; done
for s in "512 8" "256 10" "256 8"; do run p32 26 $s X=1; done
python3 gpu-radix-cub.py 26 2>&1
