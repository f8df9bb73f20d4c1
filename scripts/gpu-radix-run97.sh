#!/bin/sh
# Session 11, run 97: the scatter with the key map as a specialization constant (grb_spec,
# SORTNET_RADIX_MAP_SPEC=0/1/2 matching --map; map code compiled out for unsigned keys)
# against b99d172 (grb_head).
for r in 1 2; do
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "head unsigned $(./grb_head $l --reps 5 --only $v 2>&1 | grep "$v:")"
      echo "spec unsigned $(SORTNET_RADIX_MAP_SPEC=0 ./grb_spec $l --reps 5 --only $v 2>&1 | grep "$v:")"
    done
  done
done
for m in float:2 signed:1; do
  name=${m%%:*}; code=${m##*:}
  for l in 24 26 28; do
    for v in k32 k64 p32; do
      echo "head $name $(./grb_head $l --reps 5 --only $v --map $name 2>&1 | grep "$v:")"
      echo "spec $name $(SORTNET_RADIX_MAP_SPEC=$code ./grb_spec $l --reps 5 --only $v --map $name 2>&1 | grep "$v:")"
    done
  done
done
