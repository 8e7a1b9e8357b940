#!/usr/bin/env bash
# Run caf_bench against libcaf_arbor and against OpenCoarrays at 2 and 4 images, ROUNDS times
# each, the two runtimes in turn, and print the medians (microseconds per call, slowest image)
# and the ratio arbor / OpenCoarrays. A single run moves by a fifth or more where images share
# cores; interleaving puts both runtimes under the same conditions.
#   bench/caf/compare.sh [BUILD_DIR]       (default: build)
# ROUNDS (default 5), IMAGES (default "2 4"); ARBOR_TRANSPORT / ARBOR_OFI_PROVIDER select
# arbor's transport as usual.
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
images=${IMAGES:-2 4}
arbor_bin=$build/bin/caf_bench_arbor
ocaf_bin=$build/bin/caf_bench_ocaf
for b in "$arbor_bin" "$ocaf_bin"; do
    [ -x "$b" ] || { echo "compare.sh: $b not built (cmake --build $build --target $(basename "$b"))" >&2; exit 1; }
done
case $rounds in '' | *[!0-9]* | 0) echo "compare.sh: ROUNDS must be a positive integer" >&2; exit 1 ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
launch() { timeout 300 mpirun --oversubscribe --bind-to none -n "$1" "$2" | grep '^caf_bench '; }
for np in $images; do
    for _ in $(seq "$rounds"); do
        launch "$np" "$arbor_bin" | sed 's/^/arbor /' >>"$runs"
        launch "$np" "$ocaf_bin" | sed 's/^/ocaf /' >>"$runs"
    done
done
# Lines: <runtime> caf_bench <op> <images> <us>. Medians per runtime, operation and image count.
awk -v rounds="$rounds" '
function median(key,   n, i, j, v, t) {
    n = cnt[key]
    for (i = 1; i <= n; i++) v[i] = val[key "|" i]
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{
    op = $3 " " $4
    key = $1 "|" op
    cnt[key]++
    val[key "|" cnt[key]] = $5
    if (!(op in seen)) { seen[op] = 1; order[++nops] = op }
}
END {
    printf "%-24s %6s %14s %14s %8s   (medians of %d rounds)\n", "operation", "images", "arbor_us", "ocaf_us", "ratio", rounds
    for (k = 1; k <= nops; k++) {
        split(order[k], f, " ")
        a = median("arbor|" order[k])
        o = ("ocaf|" order[k]) in cnt ? median("ocaf|" order[k]) : -1
        ot = o < 0 ? "-" : sprintf("%.3f", o)
        ratio = o > 0 ? sprintf("%.2f", a / o) : "-"
        printf "%-24s %6s %14.3f %14s %8s\n", f[1], f[2], a, ot, ratio
    }
}' "$runs"
