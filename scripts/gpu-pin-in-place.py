# Session 11, run 89: what pinning a host buffer in place costs on the device machine's host
# (cudaHostRegister, the driver's mechanism that VK_EXT_external_memory_host imports also
# rely on), and the copy rates from pinned-in-place, pageable and cudaMallocHost memory.
import time, numpy as np, cupy as cp
rt = cp.cuda.runtime
def ms(f, reps=3):
    best = 1e9
    for _ in range(reps):
        cp.cuda.Device().synchronize(); t = time.perf_counter(); f(); cp.cuda.Device().synchronize()
        best = min(best, (time.perf_counter() - t) * 1e3)
    return best
for lg in (24, 26, 28):
    nbytes = 4 << lg
    h = np.ones(nbytes // 4, dtype=np.uint32)      # touched pageable memory
    d = cp.empty(nbytes // 4, dtype=cp.uint32)
    up_pageable = ms(lambda: rt.memcpy(d.data.ptr, h.ctypes.data, nbytes, 1))
    down_pageable = ms(lambda: rt.memcpy(h.ctypes.data, d.data.ptr, nbytes, 2))
    regs, unregs = [], []
    for _ in range(3):
        t = time.perf_counter(); rt.hostRegister(h.ctypes.data, nbytes, 0); regs.append((time.perf_counter() - t) * 1e3)
        if _ == 2: break
        t = time.perf_counter(); rt.hostUnregister(h.ctypes.data); unregs.append((time.perf_counter() - t) * 1e3)
    up_reg = ms(lambda: rt.memcpy(d.data.ptr, h.ctypes.data, nbytes, 1))
    down_reg = ms(lambda: rt.memcpy(h.ctypes.data, d.data.ptr, nbytes, 2))
    t = time.perf_counter(); rt.hostUnregister(h.ctypes.data); unregs.append((time.perf_counter() - t) * 1e3)
    p = cp.cuda.alloc_pinned_memory(nbytes)
    up_pinned = ms(lambda: rt.memcpy(d.data.ptr, p.ptr, nbytes, 1))
    down_pinned = ms(lambda: rt.memcpy(p.ptr, d.data.ptr, nbytes, 2))
    gb = nbytes / 1e6
    print(f"2^{lg} u32 ({nbytes>>20} MiB): register {min(regs):.3f} ms (all {', '.join(f'{r:.2f}' for r in regs)}), unregister {min(unregs):.3f} ms")
    print(f"  up/down GB/s: registered {gb/up_reg:.1f}/{gb/down_reg:.1f}, pageable {gb/up_pageable:.1f}/{gb/down_pageable:.1f}, cudaMallocHost {gb/up_pinned:.1f}/{gb/down_pinned:.1f}")
    print(f"  bound (up+down) ms: pinned {up_pinned+down_pinned:.3f}; registered in place incl. register+unregister {min(regs)+up_reg+down_reg+min(unregs):.3f}")
    del h, d, p
