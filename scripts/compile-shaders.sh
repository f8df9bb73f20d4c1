#!/bin/sh
# Compiles every GLSL compute shader in shaders/ to SPIR-V in shaders/spv/ (committed).
#
# Usage: scripts/compile-shaders.sh [OUTDIR]   (default shaders/spv; the staleness test
# passes a temporary directory and compares bytes with the committed files).
#
# Variants: a shader with a line `// variants: NAME:-DDEFINE ...` is compiled once per
# listed variant into NAME.spv; every other shader into its own stem.spv.
set -eu
cd "$(dirname "$0")/.."
out="${1:-shaders/spv}"
mkdir -p "$out"
GLSLC="${GLSLC:-glslc}"
for src in shaders/*.comp; do
    stem=$(basename "$src" .comp)
    variants=$(sed -n 's|^// variants: ||p' "$src")
    if [ -z "$variants" ]; then
        "$GLSLC" --target-env=vulkan1.1 -O -o "$out/$stem.spv" "$src"
    else
        for v in $variants; do
            name=${v%%:*}
            defs=$(echo "${v#*:}" | tr ',' ' ')
            # shellcheck disable=SC2086
            "$GLSLC" --target-env=vulkan1.1 -O $defs -o "$out/$name.spv" "$src"
        done
    fi
done
