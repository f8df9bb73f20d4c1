#!/bin/sh
# Session 12, run 104: the copy back as the step after an odd number of passes (grb_copy:
# nothing dispatched for it after an even number) against 63fff3f (grb_head: a copy
# dispatch of its own after every sort, empty after an even number), random keys, two
# rounds, CUB in the same call; then odd numbers of passes (--bits) with grb_copy.
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "head $(./grb_head $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "copy $(./grb_copy $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
  python3 gpu-radix-cub.py 24 26 28
done
for l in 24 26; do
  echo "copy 24 bits $(./grb_copy $l --reps 5 --only k32 --bits 24 2>&1 | grep "k32:")"
  echo "copy 24 bits $(./grb_copy $l --reps 5 --only p32 --bits 24 2>&1 | grep "p32:")"
  echo "copy 56 bits $(./grb_copy $l --reps 5 --only k64 --bits 56 2>&1 | grep "k64:")"
  echo "copy 40 bits $(./grb_copy $l --reps 5 --only p64 --bits 40 2>&1 | grep "p64:")"
done
./grb_copy 24 --reps 1 --only k32 --bits 24 2>&1 | grep phases
./grb_copy 24 --reps 1 --only k32 2>&1 | grep phases
./grb_head 24 --reps 1 --only k32 2>&1 | grep phases
