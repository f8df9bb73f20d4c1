#!/bin/sh
# Session 11, run 92: the key maps as masks, branch-free (grb_mask) against the branches on
# the map (grb_base, 6f2fdcc's shaders, bench with --map), float / signed / unsigned keys.
for m in float signed unsigned; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "base $m $(./grb_base $l --reps 5 --only $v --map $m 2>&1 | grep "$v:")"
      echo "mask $m $(./grb_mask $l --reps 5 --only $v --map $m 2>&1 | grep "$v:")"
    done
  done
done
for l in 24 26 28; do
  for v in k32 k64 p32; do
    echo "base float $(./grb_base $l --reps 5 --only $v --map float 2>&1 | grep "$v:")"
    echo "mask float $(./grb_mask $l --reps 5 --only $v --map float 2>&1 | grep "$v:")"
  done
done
./grb_base 24 --reps 5 --only k32 --map float 2>&1 | grep phases
./grb_mask 24 --reps 5 --only k32 --map float 2>&1 | grep phases
