#!/bin/sh
# Session 11, run 93: unsigned keys once more, masks (grb_mask) against branches (grb_base),
# three alternating rounds.
for r in 1 2 3; do
  for l in 24 26 28; do
    for v in k32 p32; do
      echo "base $(./grb_base $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "mask $(./grb_mask $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
done
