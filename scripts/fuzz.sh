#!/usr/bin/env bash
# Differential fuzzing: builds every target in fuzz/ and runs each for FUZZ_SECONDS
# (default 30), starting from the corpus kept in fuzz/corpus/<target> (replayed first).
# A crash, a wrong result or a timeout on any target makes the script exit non-zero; the
# input that found it is saved in fuzz/artifacts/<target>/.
#
# Needs cargo-fuzz (installed here if missing) and a nightly compiler, or stable with
# RUSTC_BOOTSTRAP=1, which this script sets.
#
#   scripts/fuzz.sh                    # every target, 30 s each
#   FUZZ_SECONDS=5 scripts/fuzz.sh pairs keys_f32
#   FUZZ_FEATURES=gpu scripts/fuzz.sh  # the Vulkan backends too (slow to build and run)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-30}"
# Inputs up to 64 KiB reach the multi-block paths of the SIMD and radix sorts.
max_len="${FUZZ_MAX_LEN:-65536}"
export RUSTC_BOOTSTRAP=1
features=()
extra=()
if [ -n "${FUZZ_FEATURES:-}" ]; then
    features=(--features "$FUZZ_FEATURES")
    # Vulkan drivers (lavapipe) keep allocations for the life of the process; LeakSanitizer
    # would report them as findings, both per input and at exit.
    extra=(-detect_leaks=0)
    export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install --locked cargo-fuzz
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cd fuzz && cargo fuzz list)
fi

# cargo-fuzz's default build is optimized with debug assertions and overflow checks on,
# under AddressSanitizer. Its default of one codegen unit builds the instrumented crate in
# one thread for over half an hour on two cores; sixteen units take well under half that.
# `run` takes the same options, or it would build the targets again.
build=(--codegen-units 16 "${features[@]}")
echo "== building fuzz targets: ${targets[*]}"
(cd fuzz && cargo fuzz build "${build[@]}")

# New inputs go to a scratch corpus; the kept corpus is only read, so runs leave the tree
# clean.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
status=0
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t" "$scratch/$t"
    echo "== fuzz $t for ${seconds}s"
    log="$scratch/$t.log"
    if (cd fuzz && cargo fuzz run "${build[@]}" "$t" "$scratch/$t" "corpus/$t" -- "${extra[@]}" \
            -max_total_time="$seconds" -max_len="$max_len" -timeout=20 \
            -artifact_prefix="artifacts/$t/" -print_final_stats=1) >"$log" 2>&1; then
        grep -E '^(Done|stat::number_of_executed_units|INFO: seed corpus)' "$log" || tail -n 3 "$log"
    else
        tail -n 200 "$log"
        echo "!! fuzz target $t found a problem; the input is in fuzz/artifacts/$t/"
        status=1
    fi
done
exit $status
