#!/bin/sh
# Session 14: the registers and shared memory of CUB's radix sort kernels as cupy ships them
# (cuobjdump -res-usage on cupy's thrust library, sm_90 code only), for u32 (j) and u64 (m)
# keys without values (NullType) and 64-bit offsets, the kernels cupy's in-place sort runs,
# to compare CUB's Onesweep tile with what a Vulkan workgroup may hold on the same GPU.
export PATH="$PATH:/usr/local/cuda/bin"
command -v cuobjdump || exit 0
LIB=$(python3 -c "import cupy.cuda.thrust as t; print(t.__file__)")
cuobjdump -res-usage -arch sm_90 "$LIB" 2>&1 | grep -A1 "policy_hubI[jm]NS0_8NullType" | grep -v "^--" |
  sed -e 's/^ Function _ZN3cub[0-9A-Z_]*6detail10radix_sort//' | cut -c1-90
