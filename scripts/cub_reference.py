#!/usr/bin/env python3
"""CUB's radix sort through cupy: what a cupy user calls (`cupy.sort`, `cupy.argsort`).

The like-for-like peer of BENCHMARKS.md's "GPU radix sort" table is scripts/cub_bench.cu
(CUB's own entry points, every key type, pairs with 32-bit values); this script stays for the
cupy user's view and reproduces the older tables that name it.

Usage: python3 scripts/cub_reference.py [--reps N] [--keys u32,u64,pairs32] [LOG2 ...]
(default sizes 24 26 28). Run it on the same machine and in the same call as
`cargo bench --bench gpu -- radix --keys u32,u64,pairs32 LOG2 ...`.

Timed with CUDA events, best of N (default 10) after a warm-up:

- `cupy.sort` u32 / u64: `x.copy()` then thrust's in-place sort (CUB's Onesweep), so it
  includes a device copy of the keys and an allocation;
- "in place" u32 / u64: the in-place `sort()` alone, on a fresh copy of the same random keys
  each repetition with the copy outside the events: the figure comparable to ours (the
  benchmark restores the keys before each timed sort too);
- `cupy.argsort` u32 (the peer of our u32 pairs; it makes and sorts 64-bit indices after a
  copy of the keys, so it is what a cupy user calls, not like for like);
- a device copy of the u64 keys (read + write), the bandwidth yardstick.
"""
import argparse

import cupy as cp


def best_ms(f, reps, before=None):
    if before:
        before()
    f()
    cp.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(reps):
        if before:
            before()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        f()
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop))
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sizes", nargs="*", type=int, default=[24, 26, 28], help="log2 of n")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--keys", default="u32,u64,pairs32")
    a = p.parse_args()
    keys = a.keys.split(",")
    print("gpu:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "cupy", cp.__version__)
    print("| keys | n | cupy.sort ms | in place ms | in place G keys/s |")
    print("|---|---|---|---|---|")
    for lg in a.sizes:
        n = 1 << lg
        x32 = cp.random.randint(0, 2**32, size=n, dtype=cp.uint64).astype(cp.uint32)
        x64 = (cp.random.randint(0, 2**32, size=n, dtype=cp.uint64) << 32) | cp.random.randint(
            0, 2**32, size=n, dtype=cp.uint64
        )
        y = cp.empty_like(x64)
        c = best_ms(lambda: y.__setitem__(slice(None), x64), a.reps)
        print(f"| copy of {n * 8 >> 20} MiB | 2^{lg} | {c:.3f} ({2 * n * 8 / (c * 1e6):.0f} GB/s) | | |")
        del y
        for name, x in [("u32", x32), ("u64", x64)]:
            if name not in keys:
                continue
            whole = best_ms(lambda: cp.sort(x), a.reps)
            w = cp.empty_like(x)
            inplace = best_ms(lambda: w.sort(), a.reps, before=lambda: w.__setitem__(slice(None), x))
            assert bool((w[1:] >= w[:-1]).all()), "CUB's sort is not sorted"
            print(f"| {name} | 2^{lg} | {whole:.3f} | {inplace:.3f} | {n / (inplace * 1e6):.2f} |")
            del w
        if "pairs32" in keys:
            arg = best_ms(lambda: cp.argsort(x32), a.reps)
            print(f"| argsort u32 | 2^{lg} | {arg:.3f} | | |")
        del x32, x64
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
