#!/bin/sh
# Session 11, run 87: 64-bit keys' upsweep reads only the word of the pass's digit, batch 14
# (grb_word; SORTNET_RADIX_UPSWEEP_BATCH=8 and =7 for the batch alone) against 6f2fdcc (grb_hist,
# run 86's code); u32 pairs' upsweep batch 11 against 8; CUB in the same call.
for r in 1 2; do
  for l in 24 26 28; do
    echo "hist $(./grb_hist $l --reps 5 --only k64 2>&1 | grep "k64:")"
    echo "word $(./grb_word $l --reps 5 --only k64 2>&1 | grep "k64:")"
    echo "word b8 $(SORTNET_RADIX_UPSWEEP_BATCH=8 ./grb_word $l --reps 5 --only k64 2>&1 | grep "k64:")"
    echo "word b7 $(SORTNET_RADIX_UPSWEEP_BATCH=7 ./grb_word $l --reps 5 --only k64 2>&1 | grep "k64:")"
    echo "word k32 $(./grb_word $l --reps 5 --only k32 2>&1 | grep "k32:")"
    echo "word p32 $(./grb_word $l --reps 5 --only p32 2>&1 | grep "p32:")"
    echo "word p32 b11 $(SORTNET_RADIX_UPSWEEP_BATCH=11 ./grb_word $l --reps 5 --only p32 2>&1 | grep "p32:")"
  done
done
./grb_word 24 --reps 5 --only k64 2>&1 | grep phases
./grb_word 28 --reps 5 --only k64 2>&1 | grep phases
python3 gpu-radix-cub.py 24 26 28
