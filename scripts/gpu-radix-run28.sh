#!/bin/sh
# Session 7, run 28: the slowdown of "The 2x variance": sizes in one process against fresh
# processes, with the GPU's clocks and power state logged every 50 ms beside it.
B=./gpu_radix_bench
nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,power.draw,clocks_event_reasons.active --format=csv,noheader -lms 50 > smi.log 2>&1 &
SMI=$!
sleep 1
echo "== fresh 2^26"; $B 26 --reps 5 --only k32 2>&1 | grep "k32:\|k32 phases"
echo "== one process: 24 25 26 28"; $B 24 25 26 28 --reps 5 --only k32 2>&1 | grep "k32:\|k32 phases"
echo "== one process: 26 26"; $B 26 26 --reps 5 --only k32 2>&1 | grep "k32:"
echo "== one process: 26 28"; $B 26 28 --reps 5 --only k32 2>&1 | grep "k32:"
echo "== one process: 22 26"; $B 22 26 --reps 5 --only k32 2>&1 | grep "k32:"
sleep 1
kill $SMI
echo "== clocks (distinct lines with counts)"
cut -d, -f2- smi.log | sort | uniq -c | sort -rn | head -20
echo "== clocks over time (every 10th sample)"
awk 'NR % 10 == 1' smi.log | head -80
