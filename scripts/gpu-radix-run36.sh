#!/bin/sh
# Session 7, run 36: the SM clock while the grouped host path sorts 2^28 u32 keys from a
# host slice (nvidia-smi every 20 ms beside it), to see whether the GPU runs its group sorts
# at full clock between the transfers.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv,noheader -lms 20 > smi36.log 2>&1 &
SMI=$!
sleep 1
for r in 1 2; do
  GPU_BENCH_E2E_ROWS=grouped,streamed ./gpu_bench --full --only e2e --e2e-sizes 28 --e2e-keys-only 2>&1 | grep "2^28"
done
sleep 0.5
kill $SMI
echo "== SM clock samples (MHz: count)"
cut -d, -f2 smi36.log | sort | uniq -c | sort -k2 -n
echo "== utilization samples (%: count)"
cut -d, -f5 smi36.log | sort | uniq -c | sort -k2 -n | tail -12
