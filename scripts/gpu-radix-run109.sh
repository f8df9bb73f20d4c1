#!/bin/sh
# Session 12, run 109: which configurations of grb_spec's build sort wrong with the scan in
# the pass: u32 keys with 512-invocation workgroups, and pairs with the signed and float
# maps fixed in the pipeline.
q() { echo "$1 $(env $2 SORTNET_RADIX_SCAN_IN_PASS=1 ./grb_spec 24 --reps 2 --only $3 $4 2>&1 | grep "$3:")"; }
q "k32 wg 512 unsigned" "SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_WG=512" k32
q "k32 wg 512 runtime" "SORTNET_RADIX_MAP_SPEC=3 SORTNET_RADIX_WG=512" k32
q "k64 wg 512 unsigned" "SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_WG=512" k64
q "p32 signed" "SORTNET_RADIX_MAP_SPEC=1" p32 "--map signed"
q "p32 float" "SORTNET_RADIX_MAP_SPEC=2" p32 "--map float"
q "p32 runtime, signed keys" "SORTNET_RADIX_MAP_SPEC=3" p32 "--map signed"
q "p32 unsigned kpi 8" "SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_KPI_p32=8" p32
q "p32 unsigned kpi 12" "SORTNET_RADIX_MAP_SPEC=0 SORTNET_RADIX_KPI_p32=12" p32
