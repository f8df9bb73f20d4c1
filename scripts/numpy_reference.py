#!/usr/bin/env python3
"""numpy's np.sort (x86-simd-sort inside, on x86-64 with AVX2 or AVX-512) against sortnet on
the same sizes, key types and thread count: the peer a Python user already has.

Without --sortnet it prints numpy alone: one line per key type and size, M keys/s, the best
of --reps runs, each on a fresh copy of the same random keys. With --sortnet PATH (the
`sortnet` binary, or several comma-separated, such as an old and a new build, which then
alternate) it runs `sortnet bench --stat best` for each key type, then numpy on the same
sizes, --rounds times alternating, and prints each backend's M keys/s and its ratio to
numpy (medians over the rounds). Thread count: set RAYON_NUM_THREADS (and pin with taskset)
for both; np.sort is single-threaded. numpy is not a dependency of the crate: the script
installs it with pip when it is missing.

    python3 scripts/numpy_reference.py --types u32,f32,u64 16 20 24
    RAYON_NUM_THREADS=1 taskset -c 0 python3 scripts/numpy_reference.py \\
        --sortnet target/release/sortnet --backends avx512,avx2,radix,auto 10 16 20 24
    python3 scripts/numpy_reference.py --argsort --types u32 20
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "numpy"])
    import numpy as np

TYPES = {
    "u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16,
    "u32": np.uint32, "i32": np.int32, "f32": np.float32,
    "u64": np.uint64, "i64": np.int64, "f64": np.float64,
}
# The key types `sortnet bench --workload` times.
SORTNET_TYPES = ("u32", "i32", "f32", "u64", "i64", "f64")


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


def numpy_rates(call, name, log2_sizes, reps, rng):
    """M keys/s of `call` per size."""
    rates = {}
    for log2 in log2_sizes:
        n = 1 << log2
        keys = random_keys(TYPES[name], n, rng)
        rates[log2] = n / best_seconds(call, keys, reps) / 1e6
    return rates


def sortnet_rates(binary, name, log2_sizes, backends, seconds):
    """{backend: {log2: M keys/s}} parsed from `sortnet bench`'s table for one key type.

    `auto` follows this machine's measured profile (measured on the first run, then cached),
    as it does for users."""
    sizes = ",".join(str(1 << s) for s in log2_sizes)
    cmd = [binary, "bench", "--workload", name, "--sizes", sizes, "--backends",
           ",".join(backends), "--stat", "best", "--seconds", str(seconds)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rates = {}
    for line in out.splitlines():
        cells = line.split()
        if not cells or cells[0] not in backends:
            continue
        # Each cell is "M/s (ratio)" with a trailing "*" where auto picks that backend.
        values = [c for c in cells[1:] if not c.startswith("(")]
        rates[cells[0]] = {
            log2: float(v.rstrip("*")) if v != "failed" else float("nan")
            for log2, v in zip(log2_sizes, values)
        }
    missing = [b for b in backends if b not in rates]
    if missing:
        sys.exit(f"sortnet bench printed no row for {missing} (not usable here?):\n{out}")
    return rates


def compare(args, call, rng):
    """Alternates sortnet and numpy per key type and prints medians and ratios."""
    backends = args.backends.split(",")
    binaries = args.sortnet.split(",")
    # One column per backend and binary; with several binaries (old and new builds, say)
    # each column is named `backend:binary`, and the binaries alternate within each round.
    columns = [(path, b) for b in backends for path in binaries]
    label = {c: c[1] if len(binaries) == 1 else f"{c[1]}:{os.path.basename(c[0])}"
             for c in columns}
    print(f"# numpy {np.__version__} np.sort(kind='quicksort') best of {args.reps} against "
          f"`sortnet bench --stat best --seconds {args.seconds}`, median of {args.rounds} "
          f"alternating rounds; RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', '-')}; "
          "M keys/s (ratio to numpy)")
    print("keys\tn\tnumpy\t" + "\t".join(label[c] for c in columns))
    for name in args.types.split(","):
        if name not in SORTNET_TYPES:
            sys.exit(f"--sortnet times {','.join(SORTNET_TYPES)}; not {name}")
        ours = {c: {s: [] for s in args.log2_sizes} for c in columns}
        theirs = {s: [] for s in args.log2_sizes}
        for _ in range(args.rounds):
            for path in binaries:
                for b, by_size in sortnet_rates(path, name, args.log2_sizes, backends,
                                                args.seconds).items():
                    for s, r in by_size.items():
                        ours[(path, b)][s].append(r)
            for s, r in numpy_rates(call, name, args.log2_sizes, args.reps, rng).items():
                theirs[s].append(r)
        for s in args.log2_sizes:
            base = statistics.median(theirs[s])
            cells = []
            for c in columns:
                r = statistics.median(ours[c][s])
                cells.append(f"{r:.0f} ({r / base:.2f}x)")
            print(f"{name}\t2^{s}\t{base:.0f}\t" + "\t".join(cells), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log2_sizes", nargs="+", type=int)
    ap.add_argument("--types", default="u32,i32,f32,u64,i64,f64")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--argsort", action="store_true", help="time np.argsort (stable)")
    ap.add_argument("--sortnet", metavar="PATH[,PATH...]",
                    help="the sortnet binary (or several, comma-separated) to compare against")
    ap.add_argument("--backends", default="auto", help="sortnet backends (with --sortnet)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (with --sortnet)")
    ap.add_argument("--seconds", type=float, default=0.2,
                    help="sortnet bench's time per backend and size (with --sortnet)")
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
    if args.sortnet:
        if args.argsort:
            sys.exit("--argsort has no sortnet bench workload to compare with")
        compare(args, call, rng)
        return
    print(f"# numpy {np.__version__}, {what}, best of {args.reps}, M keys/s")
    for name in args.types.split(","):
        for log2, rate in numpy_rates(call, name, args.log2_sizes, args.reps, rng).items():
            print(f"{name}\t2^{log2}\t{rate:.1f}")


if __name__ == "__main__":
    main()
