#!/bin/sh
# Session 7, run 40: digit bytes for the upsweep (default where 8-bit storage exists)
# against the upsweep reading keys (SORTNET_RADIX_DIGIT_BYTES=0), one process per row,
# alternating; then sizes.
B=./gpu_radix_bench
$B 26 --reps 1 --only k32,k64,p32 2>&1 | grep shape
./gpu_radix_stats k32 512 8 21=1 2>&1 | grep -i register | sed "s/^/[k32 512 x 8 reduce, keys-only binary] /"
for v in k32 p32 k64; do
  for db in 1 0 1 0; do
    SORTNET_RADIX_DIGIT_BYTES=$db $B 26 --reps 4 --only $v 2>&1 | grep "$v:\|$v phases" | sed "s/^/[digit bytes $db] /"
  done
done
for l in 24 28; do
  for v in k32 k64 p32; do
    for db in 1 0; do
      SORTNET_RADIX_DIGIT_BYTES=$db $B $l --reps 4 --only $v 2>&1 | grep "$v:" | sed "s/^/[digit bytes $db] /"
    done
  done
done
