# Run 118 (session 14): can CUB's sort run beside a kernel that holds shared memory, and how
# fast is it then? Run 117's hogs (one block per SM, most of the SM's 228 KiB, no carve-out
# asked for; cub-smem-limit.py, in the history at 9440b7f) stalled CUB's sort until they
# ended even where 48 KiB were left (its control): a multiprocessor runs blocks of one
# shared-memory carve-out at a time, and the hogs' differed from CUB's. Here the hogs ask for carve-outs of 100 to 228 KiB (cudaFuncAttribute
# PreferredSharedMemoryCarveout) and take all of it but 48 KiB (or 66 KiB); the first sort
# after they start shows whether CUB ran beside them (under a millisecond) or waited (about
# one second), and each hog block records its multiprocessor so that one per SM is checked.
#
# Usage: python3 cub-smem-carveout.py [CARVEOUT_KIB:LEFT_KIB ...]  (default: 100..228 x 66, 48)
import sys
import cupy as cp

dev = cp.cuda.Device()
props = cp.cuda.runtime.getDeviceProperties(dev.id)
sms = props["multiProcessorCount"]
print(f"gpu: {props['name'].decode()}, {sms} SMs")
hog = cp.RawKernel(r'''
extern "C" __global__ void hog(unsigned long long ns, int* started, int* smid) {
    extern __shared__ int s[];
    if (threadIdx.x == 0) {
        int id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        smid[blockIdx.x] = id;
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
x32 = cp.random.randint(0, 2**32, size=1 << 24, dtype=cp.uint64).astype(cp.uint32)
x64 = (cp.random.randint(0, 2**32, size=1 << 24, dtype=cp.uint64) << 32) | cp.random.randint(0, 2**32, size=1 << 24, dtype=cp.uint64)
sort_stream = cp.cuda.Stream(non_blocking=True)
hog_stream = cp.cuda.Stream(non_blocking=True)


def one_sort(x):
    w = cp.empty_like(x)
    with sort_stream:
        w[...] = x
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); w.sort(); b.record(); b.synchronize()
    assert bool((w[1:] >= w[:-1]).all())
    return cp.cuda.get_elapsed_time(a, b)


def copy_time(x):
    w = cp.empty_like(x)
    with sort_stream:
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); w[...] = x; b.record(); b.synchronize()
    return cp.cuda.get_elapsed_time(a, b)


for x in (x32, x64):
    one_sort(x)
print(f"no hogs: u32 {min(one_sort(x32) for _ in range(5)):.3f} ms, u64 {min(one_sort(x64) for _ in range(5)):.3f} ms")
pairs = [tuple(int(v) for v in a.split(":")) for a in sys.argv[1:]] or [
    (c, l) for c in [100, 132, 164, 196, 228] for l in [66, 48]]
for config_kib, left_kib in pairs:
    take = (config_kib - left_kib - 1) * 1024
    hog.max_dynamic_shared_size_bytes = take
    hog.preferred_shared_memory_carveout = min(100, -(-config_kib * 100 // 228))
    started = cp.zeros(1, dtype=cp.int32)
    smid = cp.full(sms, -1, dtype=cp.int32)
    with hog_stream:
        hog((sms,), (32,), (cp.uint64(1_500_000_000), started, smid), shared_mem=take)
    for _ in range(100000):
        if int(started.get()[0]) >= sms:
            break
    c = copy_time(x32)
    t32 = [one_sort(x32) for _ in range(3)]
    t64 = [one_sort(x64) for _ in range(2)] if left_kib * 1024 >= 49152 + 1024 else []
    distinct = len(set(smid.get().tolist()))
    print(f"carve-out {config_kib} KiB, {left_kib} KiB left: copy {c:.3f} ms; u32 sorts "
          + ", ".join(f"{t:.3f}" for t in t32) + " ms; u64 sorts " + ", ".join(f"{t:.3f}" for t in t64)
          + f" ms ({int(started.get()[0])} hogs on {distinct} SMs)")
    hog_stream.synchronize()
