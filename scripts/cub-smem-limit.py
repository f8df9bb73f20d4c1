# CUB's in-place radix sort (cupy's sort(), as gpu-radix-cub.py times it) with less shared
# memory per multiprocessor: a "hog" kernel first takes one block of S bytes of dynamic shared
# memory on every multiprocessor (S over half of the 228 KiB, so no multiprocessor holds two)
# and sleeps while CUB sorts on another stream; CUB's blocks then get what is left. 48 KiB
# left is what a Vulkan compute pipeline gets on this GPU (BENCHMARKS.md, run 44).
# (Run 117: the timed rows under hogs are void, since CUB's sort could not run beside these
# hogs and waited for them to end, as `control` shows; cub-smem-carveout.py, run 118, gives
# the hogs a carve-out CUB's blocks can share.)
#
# Usage: python3 cub-smem-limit.py [log2 n ...]   (default 24 26)
#        python3 cub-smem-limit.py control        (the check that the hogs hold the memory:
#        with 34 KiB left one u32 block of CUB's fits, with 32 KiB none does, so that sort
#        must wait for the hogs, 1 s)
import sys, cupy as cp

control = sys.argv[1:] == ["control"]
sizes = [] if control else [int(s) for s in sys.argv[1:]] or [24, 26]
dev = cp.cuda.Device()
props = cp.cuda.runtime.getDeviceProperties(dev.id)
sms = props["multiProcessorCount"]
per_sm = props.get("sharedMemPerMultiprocessor", 233472)
per_block_max = props.get("sharedMemPerBlockOptin", 232448)
print(f"gpu: {props['name'].decode()}, {sms} SMs, {per_sm} B shared per SM, {per_block_max} B per block opt-in")

hog = cp.RawKernel(r'''
extern "C" __global__ void hog(unsigned long long ns, int* started) {
    extern __shared__ int s[];
    if (threadIdx.x == 0) {
        s[0] = 1;
        atomicAdd(started, s[0]);
        unsigned long long t0, t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        do {
            __nanosleep(100000);
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        } while (t - t0 < ns);
    }
}''', 'hog')


def start_hogs(left_kib, ns, stream):
    """One hog block per multiprocessor, leaving `left_kib` KiB of shared memory to other
    blocks (the runtime reserves 1 KiB per block); returns once every hog runs."""
    started = cp.zeros(1, dtype=cp.int32)
    take = per_sm - left_kib * 1024 - 1024
    hog.max_dynamic_shared_size_bytes = take
    with stream:
        hog((sms,), (32,), (cp.uint64(ns), started), shared_mem=take)
    for _ in range(100000):
        if int(started.get()[0]) >= sms:
            break
    return started


if control:
    x = cp.random.randint(0, 2**32, size=1 << 24, dtype=cp.uint64).astype(cp.uint32)
    w = cp.empty_like(x)
    w[...] = x
    w.sort()
    dev.synchronize()
    sort_stream = cp.cuda.Stream(non_blocking=True)
    hog_stream = cp.cuda.Stream(non_blocking=True)
    for left_kib in [34, 32, 48]:
        started = start_hogs(left_kib, 1_000_000_000, hog_stream)
        with sort_stream:
            w[...] = x
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record(); w.sort(); b.record(); b.synchronize()
        print(f"control: {left_kib} KiB left per SM: one u32 sort of 2^24 took "
              f"{cp.cuda.get_elapsed_time(a, b):.3f} ms ({int(started.get()[0])} hogs started)")
        hog_stream.synchronize()


def time_sort(x, reps=10):
    w = cp.empty_like(x)
    best = 1e9
    for _ in range(reps + 1):
        w[...] = x
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); w.sort(); b.record(); b.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(a, b))
    assert bool((w[1:] >= w[:-1]).all())
    return best


for lg in sizes:
    n = 1 << lg
    x32 = cp.random.randint(0, 2**32, size=n, dtype=cp.uint64).astype(cp.uint32)
    x64 = (cp.random.randint(0, 2**32, size=n, dtype=cp.uint64) << 32) | cp.random.randint(0, 2**32, size=n, dtype=cp.uint64)
    sort_stream = cp.cuda.Stream(non_blocking=True)
    hog_stream = cp.cuda.Stream(non_blocking=True)
    # None: no hog (registers allow three u32 blocks of 32 256 B); 66 KiB: two; 48 KiB: one
    # u32 block, and no u64 block (49 152 B + 1 KiB), so u64 is not timed there.
    for left_kib in [None, 66, 48]:
        started = cp.zeros(1, dtype=cp.int32)
        if left_kib is not None:
            started = start_hogs(left_kib, 3_000_000_000, hog_stream)
        with sort_stream:
            t32 = time_sort(x32)
            t64 = time_sort(x64) if left_kib is None or left_kib * 1024 >= 49152 + 1024 else float("nan")
        running = "all hogs running" if left_kib is None or int(started.get()[0]) == sms else "hogs missing"
        label = "all" if left_kib is None else f"{left_kib} KiB"
        print(f"n=2^{lg} shared left per SM {label}: u32 in place {t32:.3f} ms, u64 in place {t64:.3f} ms ({running})")
        hog_stream.synchronize()
    del x32, x64
    cp.get_default_memory_pool().free_all_blocks()
