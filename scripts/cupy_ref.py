# Reference for BENCHMARKS.md (vulkan-bitonic and GPU nibbles): CUB's radix sort via cupy.sort, timed with CUDA events
# (median of 7 after a warm-up), on the sizes gpu_bench sorts on the GPU.
import cupy as cp

def gpu_ms(f, reps=7):
    f()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        f()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    times.sort()
    return times[len(times) // 2]

print("cupy", cp.__version__, cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
print("| n | cupy.sort u32 ms | cupy.argsort u32 ms |")
print("|---|---|---|")
for k in range(16, 27):
    n = 1 << k
    x = cp.random.randint(0, 2**32, size=n, dtype=cp.uint64).astype(cp.uint32)
    s = gpu_ms(lambda: cp.sort(x))
    a = gpu_ms(lambda: cp.argsort(x)) if k in (20, 24) else float("nan")
    print(f"| 2^{k} | {s:.4f} | {a:.4f} |")
    del x
n = 1 << 28
w = cp.random.randint(0, 2**63, size=n, dtype=cp.int64).view(cp.uint64)
d = cp.empty_like(w)
c = gpu_ms(lambda: d.__setitem__(slice(None), w))
print(f"cupy copy of 2^28 u64 words: {c:.3f} ms, {2 * n * 8 / (c * 1e6):.0f} GB/s (read+write)")

# Host <-> device copy rates through cupy (cudaMemcpy), pinned and pageable host memory: the
# reference for the transfer bound of the end-to-end figures.
import numpy as np

for nb in (1 << 28, 1 << 30):
    dbuf = cp.empty(nb, cp.uint8)
    pinned = np.frombuffer(cp.cuda.alloc_pinned_memory(nb), np.uint8, nb)
    pageable = np.ones(nb, np.uint8)
    for name, host in (("pinned", pinned), ("pageable", pageable)):
        up = gpu_ms(lambda: dbuf.set(host), reps=3)
        down = gpu_ms(lambda: dbuf.get(out=host), reps=3)
        print(f"cudaMemcpy {name} {nb >> 20} MiB: up {up:.3f} ms ({nb / up / 1e6:.1f} GB/s), "
              f"down {down:.3f} ms ({nb / down / 1e6:.1f} GB/s)")
    del dbuf, pinned, pageable
