#!/bin/sh
# Session 14: the registers and shared memory of CUB's radix sort kernels as cupy ships them
# (cuobjdump -res-usage on cupy's thrust library, sm_90 code only), for u32 and u64 keys
# without values (the kernels cupy's in-place sort runs), to compare CUB's Onesweep tile
# with what a Vulkan workgroup may hold on the same GPU.
export PATH="$PATH:/usr/local/cuda/bin"
command -v cuobjdump || exit 0
LIB=$(python3 -c "import cupy.cuda.thrust as t; print(t.__file__)")
echo "$LIB"
cuobjdump -lelf "$LIB" | head -20
cuobjdump -res-usage -arch sm_90 "$LIB" 2>&1 | grep -A1 "Kernel.*policy_hubI[jm]N3cub[0-9_A-Z]*8NullType" | grep -v "^--" | sed 's/ Function \(_ZN3cub[^ ]*detail10radix_sort\)\([0-9]*[A-Za-z]*Kernel\).*policy_hubI\(.\).*/ \2 key \3/' | head -20
