#!/bin/sh
# Session 11, run 95: the whole end-to-end table with the HostBuffer rows (u32 keys and
# nibbles), two rounds.
for r in 1 2; do
  ./gpu_bench --full --only e2e --e2e-sizes 24,26,28 --e2e-wide 26 2>&1 | grep "^|"
done
