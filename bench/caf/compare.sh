#!/usr/bin/env bash
# Run caf_bench against libcaf_arbor and against OpenCoarrays at 2 and 4 images and print the
# times (microseconds per call, slowest image) and the ratio arbor / OpenCoarrays.
#   bench/caf/compare.sh [BUILD_DIR]       (default: build)
# ARBOR_TRANSPORT / ARBOR_OFI_PROVIDER select arbor's transport as usual.
set -euo pipefail
build=${1:-build}
arbor_bin=$build/bin/caf_bench_arbor
ocaf_bin=$build/bin/caf_bench_ocaf
for b in "$arbor_bin" "$ocaf_bin"; do
    [ -x "$b" ] || { echo "compare.sh: $b not built (cmake --build $build --target $(basename "$b"))" >&2; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch() { timeout 300 mpirun --oversubscribe --bind-to none -n "$1" "$2" | grep '^caf_bench '; }
printf '%-18s %6s %14s %14s %8s\n' operation images arbor_us ocaf_us ratio
for np in 2 4; do
    a=$(launch "$np" "$arbor_bin")
    o=$(launch "$np" "$ocaf_bin")
    while read -r _ op n t; do
        ot=$(awk -v op="$op" '$2 == op { print $4 }' <<<"$o")
        ratio=$(awk -v a="$t" -v o="$ot" 'BEGIN { if (o > 0) printf "%.2f", a / o; else print "-" }')
        printf '%-18s %6s %14s %14s %8s\n' "$op" "$n" "$t" "${ot:--}" "$ratio"
    done <<<"$a"
done
