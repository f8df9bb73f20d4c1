# CUB radix sort through cupy, timed with CUDA events, same sizes as the Vulkan run.
#
# `cupy.sort(x)` is `x.copy()` followed by the in-place `sort()` (thrust, which calls CUB's
# radix sort), so its time includes a device copy of the keys; the "in place" rows time the
# in-place sort alone, on a fresh copy of the same random keys each repetition (the copy
# is outside the timed interval), which is what `gpu_radix_bench` times of ours.
import sys, cupy as cp
sizes = [int(s) for s in sys.argv[1:]] or [24, 26, 28]
def t(f, reps=10, before=None):
    if before: before()
    f(); cp.cuda.Device().synchronize()
    best = 1e9
    for _ in range(reps):
        if before: before()
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); f(); b.record(); b.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(a, b))
    return best
print("gpu:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
for lg in sizes:
    n = 1 << lg
    x32 = cp.random.randint(0, 2**32, size=n, dtype=cp.uint64).astype(cp.uint32)
    x64 = (cp.random.randint(0, 2**32, size=n, dtype=cp.uint64) << 32) | cp.random.randint(0, 2**32, size=n, dtype=cp.uint64)
    y = cp.empty_like(x64)
    c = t(lambda: y.__setitem__(slice(None), x64))
    print(f"n=2^{lg} cupy copy {n*8} bytes: {c:.3f} ms, {2*n*8/(c*1e6):.0f} GB/s")
    for name, f in [("sort u32", lambda: cp.sort(x32)), ("sort u64", lambda: cp.sort(x64)), ("argsort u32", lambda: cp.argsort(x32))]:
        ms = t(f)
        print(f"n=2^{lg} cupy {name}: {ms:.3f} ms, {n/(ms*1e6):.2f} G keys/s")
    for name, x in [("sort u32 in place", x32), ("sort u64 in place", x64)]:
        w = cp.empty_like(x)
        ms = t(lambda: w.sort(), before=lambda: w.__setitem__(slice(None), x))
        assert bool((w[1:] >= w[:-1]).all())
        print(f"n=2^{lg} cupy {name}: {ms:.3f} ms, {n/(ms*1e6):.2f} G keys/s")
        del w
    del x32, x64, y
    cp.get_default_memory_pool().free_all_blocks()
