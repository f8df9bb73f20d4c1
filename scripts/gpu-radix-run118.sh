#!/bin/sh
# Session 14, run 118: CUB's sort beside hogs that ask for a shared-memory carve-out (run as
# two calls: the default sweep, then the 228 KiB carve-out at 120/100/66/48/34 KiB left and
# again at 100/66/48).
python3 cub-smem-carveout.py
python3 cub-smem-carveout.py 228:120 228:100 228:66 228:48 228:34
python3 cub-smem-carveout.py 228:100 228:66 228:48
