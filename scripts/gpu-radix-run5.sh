#!/bin/sh
# Fifth device run: driver statistics; look-back order x look-ahead (u32 keys, 2^26); all
# variants at 2^24/2^26/2^28 with the defaults and with look-ahead 4; CUB; host end to end.
S=./gpu_radix_stats
for c in "k32 512 8" "k32 256 15" "k32 256 8" "k64 512 4" "p32 512 6"; do echo "== stats $c"; $S $c 2>&1 | head -24; done
B=./gpu_radix_bench
for first in 0 1; do for la in 1 4 8; do
  SORTNET_RADIX_LOOKBACK_FIRST=$first SORTNET_RADIX_LOOKAHEAD=$la $B 26 --reps 3 --only k32 2>&1 | grep "k32" | sed "s/^/[first=$first la=$la] /"
done; done
echo "== defaults"; $B 24 26 28 --reps 5 2>&1
echo "== lookahead 4"; SORTNET_RADIX_LOOKAHEAD=4 $B 24 26 28 --reps 5 2>&1 | grep -v phases
python3 gpu-radix-cub.py 24 26 28 2>&1
$B 10 --reps 1 --only none --host 2>&1 | grep host
