#!/bin/sh
# Session 14, run 116: the committed code of 586c31c (grb_new2: 32-bit look-back tiles of
# 512 x 11, u64 keys by reduce-then-scan from 2^20) against d5551a7 (grb_head) where the
# defaults changed, the unchanged large sizes again, CUB in the same call; then, where the
# profiler is installed, CUB's own kernels at 2^24 (block size, registers, shared memory).
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
row() { name=$1; v=$2; shift 2; echo "$name $(env "$@" 2>&1 | grep -v phases | grep "$v:")"; }
for l in 20 21 22 23; do
  for v in k32 p32 k64; do
    row "head" $v ./grb_head $l --reps 5 --only $v
    row "new" $v ./grb_new2 $l --reps 5 --only $v
  done
done
for l in 24 26 28; do
  for v in k32 k64 p32; do row "new" $v ./grb_new2 $l --reps 5 --only $v; done
done
for l in 24 26; do row "head" p64 ./grb_head $l --reps 5 --only p64; row "new" p64 ./grb_new2 $l --reps 5 --only p64; done
./grb_new2 28 --reps 5 --only k32 2>&1 | grep phases
python3 gpu-radix-cub.py 24 26 28
echo "tools: $(command -v nsys ncu cuobjdump nvcc | tr '\n' ' ')"
ls -d /usr/local/cuda*/bin 2>/dev/null
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
if [ -n "$NSYS" ]; then
  cat > cubprof.py <<'PY'
import cupy as cp
x = cp.random.randint(0, 2**32, size=1 << 24, dtype=cp.uint64).astype(cp.uint32)
for _ in range(3):
    w = x.copy(); w.sort()
cp.cuda.Device().synchronize()
PY
  $NSYS profile -o cubprof --force-overwrite true python3 cubprof.py > /dev/null 2>&1
  $NSYS stats --report cuda_gpu_trace --format csv cubprof.nsys-rep 2>/dev/null | grep -i "radix\|onesweep\|histogram\|Name" | head -20
fi
