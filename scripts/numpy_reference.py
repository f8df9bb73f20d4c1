#!/usr/bin/env python3
"""numpy's np.sort (x86-simd-sort inside, on x86-64 with AVX2 or AVX-512) on one thread: the
peer a Python user already has, timed on the same sizes and key types as `sortnet bench`.

Prints one line per key type and size: M keys/s, the best of --reps runs, each on a fresh
copy of the same random keys. numpy is not a dependency of the crate; install it with
`pip install numpy`.

    python3 scripts/numpy_reference.py --types u32,f32,u64 16 20 24
    python3 scripts/numpy_reference.py --argsort --types u32 20
"""
import argparse
import time

import numpy as np

TYPES = {
    "u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16,
    "u32": np.uint32, "i32": np.int32, "f32": np.float32,
    "u64": np.uint64, "i64": np.int64, "f64": np.float64,
}


def random_keys(dtype, n, rng):
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def best_seconds(call, keys, reps):
    best = float("inf")
    for _ in range(reps):
        copy = keys.copy()
        start = time.perf_counter()
        call(copy)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log2_sizes", nargs="+", type=int)
    ap.add_argument("--types", default="u32,i32,f32,u64,i64,f64")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--argsort", action="store_true", help="time np.argsort (stable)")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    if args.argsort:
        def call(k):
            return np.argsort(k, kind="stable")
        what = "np.argsort(kind='stable')"
    else:
        def call(k):
            k.sort(kind="quicksort")
        what = "np.sort(kind='quicksort')"
    print(f"# numpy {np.__version__}, {what}, best of {args.reps}, M keys/s")
    for name in args.types.split(","):
        for log2 in args.log2_sizes:
            n = 1 << log2
            keys = random_keys(TYPES[name], n, rng)
            seconds = best_seconds(call, keys, args.reps)
            print(f"{name}\t2^{log2}\t{n / seconds / 1e6:.1f}")


if __name__ == "__main__":
    main()
