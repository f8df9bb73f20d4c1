#!/usr/bin/env python3
"""Markdown tables of the `keys` criterion groups, with auto's ratio to the fastest peer.

Reads the medians criterion saved under target/criterion/<group>/<sorter>/<n>/new/ and prints,
per group, one row per length: every sorter's median in ms, the fastest peer (crates a user
would pick instead of sortnet), and `auto`'s speed relative to that peer and to
`slice::sort_unstable` (> 1: auto is faster).

    python3 scripts/criterion-table.py 'keys-(u32|u64|f32)-(random|few)'
"""
import json
import math
import re
import sys
from pathlib import Path

PEERS = ["std-unstable", "rayon-par-unstable", "radsort", "voracious", "voracious-mt", "rdst"]


def medians(group_dir):
    """{sorter: {n: median ns}} for one criterion group."""
    table = {}
    for est in group_dir.glob("*/*/new/estimates.json"):
        sorter, n = est.parts[-4], est.parts[-3]
        if not n.isdigit():
            continue
        median = json.loads(est.read_text())["median"]["point_estimate"]
        table.setdefault(sorter, {})[int(n)] = median
    return table


def fmt(ns):
    ms = ns / 1e6
    return f"{ms:.3g}" if ms >= 0.01 else f"{ms:.2g}"


def main():
    pattern = re.compile(sys.argv[1] if len(sys.argv) > 1 else "keys-.*")
    root = Path("target/criterion")
    for group_dir in sorted(p for p in root.iterdir() if pattern.fullmatch(p.name)):
        table = medians(group_dir)
        if "auto" not in table:
            continue
        sorters = [s for s in table if s not in PEERS and s != "copy-baseline"]
        sorters = sorted(sorters, key=lambda s: (s != "auto", s))
        columns = sorters + [p for p in PEERS if p in table] + (
            ["copy-baseline"] if "copy-baseline" in table else [])
        print(f"##### {group_dir.name} (median ms per call)\n")
        print("| n | " + " | ".join(columns)
              + " | fastest peer | auto vs fastest peer | auto vs std |")
        print("|---" * (len(columns) + 4) + "|")
        for n in sorted(table["auto"]):
            peers = {p: table[p][n] for p in PEERS if n in table.get(p, {})}
            best = min(peers, key=peers.get) if peers else None
            auto = table["auto"][n]
            cells = [fmt(table[c][n]) if n in table[c] else "" for c in columns]
            vs_best = f"{peers[best] / auto:.2f}x" if best else ""
            vs_std = f"{peers['std-unstable'] / auto:.2f}x" if "std-unstable" in peers else ""
            print(f"| 2^{int(math.log2(n))} | " + " | ".join(cells)
                  + f" | {best or ''} | {vs_best} | {vs_std} |")
        print()


if __name__ == "__main__":
    main()
