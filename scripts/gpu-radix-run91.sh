#!/bin/sh
# Session 11, run 91: reduce-then-scan tile shapes at 2^24 again (SORTNET_RADIX_KPI_k64 /
# _k32 and SORTNET_RADIX_WG), committed code (grb_hist); defaults 256 x 14 (k64), 256 x 10 (k32).
for r in 1 2; do
  for wg in 256 512; do
    for kpi in 10 12 14 16 18; do
      echo "k64 wg=$wg kpi=$kpi $(SORTNET_RADIX_WG=$wg SORTNET_RADIX_KPI_k64=$kpi ./grb_hist 24 --reps 5 --only k64 2>&1 | grep -v phases | grep "k64" | tr '\n' ' ')"
    done
    for kpi in 8 10 12 14; do
      echo "k32 wg=$wg kpi=$kpi $(SORTNET_RADIX_WG=$wg SORTNET_RADIX_KPI_k32=$kpi ./grb_hist 24 --reps 5 --only k32 2>&1 | grep -v phases | grep "k32" | tr '\n' ' ')"
    done
  done
done
