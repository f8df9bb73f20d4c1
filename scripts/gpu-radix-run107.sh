#!/bin/sh
# Session 12, run 107: what breaks u32 pairs with the scan in the pass in grb_spec's
# unsigned build (run 106): spin limits, the runtime map with the same binary, other
# partition counts and workgroup sizes, and the phases.
p() { echo "$1 $(env $2 SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_spec 24 --reps 2 --only p32 2>&1 | grep "p32:")"; }
p "runtime map" "SORTNET_RADIX_MAP_SPEC=3"
p "runtime map again" "SORTNET_RADIX_MAP_SPEC=3"
for s in 0 1 64 4096 65536 1048576; do
  p "unsigned spin $s" "SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_SPIN_LIMIT=$s"
done
for q in 256 1024; do
  p "unsigned partitions $q" "SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_PARTITIONS=$q"
done
p "unsigned wg 256" "SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_WG=256"
p "unsigned wg 1024" "SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_WG=1024"
p "head-like: runtime map, wg 256" "SORTNET_RADIX_MAP_SPEC=3 SORTNET_RADIX_WG=256"
SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_spec 24 --reps 1 --only p32 2>&1 | grep phases
SORTNET_RADIX_MAP_SPEC=3 SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_spec 24 --reps 1 --only p32 2>&1 | grep phases
