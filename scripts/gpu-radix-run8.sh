#!/bin/sh
# Eighth device run (one call): register counts of the final shapes; at 2^26 the look-back
# publication (relaxed atomic stores against atomicExchange) and the histogram's keys per
# invocation; a timing-only run without the look-back; then every variant at 2^24/2^26/2^28,
# one process per size, with the defaults and with the candidate knobs; the same in one
# process (the 64-bit variance); CUB; end to end from host slices.
# Run from a folder holding release builds of examples/gpu_radix_bench.rs and
# examples/gpu_radix_stats.rs and scripts/gpu-radix-cub.py.
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu --format=csv
nvidia-smi -q -d PERFORMANCE | grep -i -A 14 "clocks event\|throttle" | head -16
S=./gpu_radix_stats
for c in "k32 512 8" "k32 512 8 13=1" "k64 1024 4" "p32 512 8" "p64 1024 4"; do
  echo "== stats $c"; $S $c 2>&1 | grep -i "register\|shared" | tr '\n' ' '; echo
done
B=./gpu_radix_bench
run() { v=$1; tag=$2; shift 2; env "$@" $B 26 --reps 4 --only $v 2>&1 | grep "$v" | grep -v shape | sed "s/^/[$v $tag] /"; }
run k32 defaults X=1
run k32 store SORTNET_RADIX_LB_STORE=1
run k32 hist64 SORTNET_RADIX_HIST_KPI=64
run k32 hist128 SORTNET_RADIX_HIST_KPI=128
run k32 store+hist128 SORTNET_RADIX_LB_STORE=1 SORTNET_RADIX_HIST_KPI=128
run k32 NO-WAIT-timing-only SORTNET_RADIX_NO_WAIT=1
run k64 defaults X=1
run k64 store SORTNET_RADIX_LB_STORE=1
run k64 NO-WAIT-timing-only SORTNET_RADIX_NO_WAIT=1
run p32 defaults X=1
run p32 store SORTNET_RADIX_LB_STORE=1
for l in 24 26 28; do echo "== defaults, one process for 2^$l"; $B $l --reps 5 2>&1 | grep -v "shape"; done
for l in 24 26 28; do echo "== store+hist128, one process for 2^$l"; SORTNET_RADIX_LB_STORE=1 SORTNET_RADIX_HIST_KPI=128 $B $l --reps 5 2>&1 | grep -v "phases\|shape"; done
echo "== defaults, 64-bit variants, 2^24 then 2^26 in one process"; $B 24 26 --reps 5 --only k64,p64 2>&1 | grep -v "shape"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader
python3 gpu-radix-cub.py 24 26 28 2>&1
$B 10 --reps 1 --only none --host 2>&1 | grep host
