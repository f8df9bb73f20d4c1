#!/bin/sh
# Builds scripts/cub_bench.cu (CUB's radix sort, the peer of `cargo bench --bench gpu --
# radix`; its header says what it measures) for the GPU of this machine and runs it.
#
# Usage: scripts/cub_bench.sh [cub_bench options] LOG2..
#   e.g. scripts/cub_bench.sh --keys u32,u64,pairs32,pairs64 24 26 28
# NVCC_ARCH picks the target (default native: the GPU present); CUB_BENCH_BIN the binary
# (default target/cub_bench, rebuilt when the source is newer).
set -eu
cd "$(dirname "$0")/.."
bin="${CUB_BENCH_BIN:-target/cub_bench}"
mkdir -p "$(dirname "$bin")"
if [ ! -x "$bin" ] || [ scripts/cub_bench.cu -nt "$bin" ]; then
    nvcc -O3 -std=c++17 -arch="${NVCC_ARCH:-native}" -o "$bin" scripts/cub_bench.cu
fi
exec "$bin" "$@"
