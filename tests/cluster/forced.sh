#!/usr/bin/env bash
# Every algorithm of a collective forced, against the selector's own choice, on the simulated
# cluster (docs/TOPOLOGY.md, "Measured on the simulated cluster"). A measurement by hand, not a
# test: it asserts nothing about times.
#
#   tests/cluster/forced.sh [--hosts 3] [--ranks-per-host 2] [--rounds 5] [--iters 300]
#                           [--bytes 8] [--build build] [--timing auto|span|rank]
#                           OP[=alg,alg,...] ...
#
# One bed for the whole run. Every round runs each (op, algorithm) once, in the same order, so
# the rounds interleave the algorithms under the same background load; per (op, algorithm) it
# prints the median over rounds of each run's median_us, the smallest and largest of them, and
# what `auto` chose (ARBOR_PRINT_ALGORITHM). Without "=list" every algorithm of the op that
# runs on this transport is tried (arbor-info -A; the offload ones are left out). The caller's
# ARBOR_* variables travel to every rank; ARBOR_POLL_YIELD defaults to always (six ranks on two
# cores here).
# --timing defaults to rank (each rank's own call, the slowest per iteration): the simulated hosts
# share one clock, but first start to last end would mostly measure how unevenly the TCP barrier
# before each iteration releases the hosts.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ -z "${SIMCLUSTER_MPIRUN:-}" ]; then
    hosts=3 rph=2
    args=()
    while [ $# -gt 0 ]; do
        case $1 in
        --hosts) hosts=$2; shift 2 ;;
        --ranks-per-host) rph=$2; shift 2 ;;
        *) args+=("$1"); shift ;;
        esac
    done
    export ARBOR_POLL_YIELD=${ARBOR_POLL_YIELD:-always}
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    exec "$here/cluster.sh" run --hosts "$hosts" --ranks-per-host "$rph" -- "$0" "${args[@]}"
fi

rounds=5 iters=300 bytes=8 build=build timing=rank
ops=()
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --timing) timing=$2; shift 2 ;;
    *) ops+=("$1"); shift ;;
    esac
done
[ ${#ops[@]} -gt 0 ] || { echo "forced.sh: no op given" >&2; exit 2; }
case $build in /*) ;; *) build=$root/$build ;; esac
bench=$build/bin/arbor-bench
info=$build/bin/arbor-info
# A copy of a build elsewhere (measuring one build while another compiles) finds its own
# libarbor first.
libpath=()
[ -d "$build/lib" ] && libpath=(-x "LD_LIBRARY_PATH=$build/lib")
P=$((SIMCLUSTER_HOSTS * SIMCLUSTER_RPH))
out=$(mktemp -d /tmp/arbor-forced.XXXXXX)
trap 'rm -rf "$out"' EXIT

declare -A algs
for spec in "${ops[@]}"; do
    op=${spec%%=*}
    if [ "$spec" != "$op" ]; then
        list=${spec#*=}
    else
        list=$(LD_LIBRARY_PATH=$build/lib "$info" -A | awk -v op="$op" '$1 == op && $2 != "auto" && $2 != "hwcoll" &&
            $2 != "triggered" { printf "%s%s", sep, $2; sep = "," }')
    fi
    algs[$op]="auto,$list"
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
    for spec in "${ops[@]}"; do
        op=${spec%%=*}
        var=ARBOR_$(echo "$op" | tr a-z A-Z)_ALGORITHM
        for alg in ${algs[$op]//,/ }; do
            # shellcheck disable=SC2086
            $SIMCLUSTER_MPIRUN "${libpath[@]}" -x "$var=$alg" -x ARBOR_PRINT_ALGORITHM=1 -n "$P" "$bench" \
                --op "$op" --sizes "$bytes" --iters "$iters" --timing "$timing" --format csv \
                >"$out/run" 2>"$out/err" || { echo "FAILED: $op $alg" >&2; cat "$out/err" >&2; }
            med=$(awk -F, -v op="$op" '$1 == op { print $10 }' "$out/run" | tail -1)
            echo "$op $alg ${med:-nan}" >>"$out/all"
            if [ "$alg" = auto ] && [ "$r" = 1 ]; then
                chose=$(sed -n "s/^arbor: $op bytes=[0-9]* ranks=$P .*-> \([a-z_0-9]*\).*/\1/p" \
                    "$out/err" | tail -1)
                echo "$op auto chose ${chose:-?}" >>"$out/chosen"
                grep -m1 "^arbor: $op bytes" "$out/err" >>"$out/chosen" || true
            fi
        done
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$out/chosen"
echo "op algorithm median_us min_us max_us (over $rounds rounds of $iters iterations, $bytes B, P=$P)"
awk '{ k = $1 " " $2; v[k] = v[k] " " $3; if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
    END {
        for (i = 0; i < n; i++) {
            k = order[i]; m = split(substr(v[k], 2), a, " ");
            for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
            med = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2;
            printf "%s %.1f %.1f %.1f\n", k, med, a[1], a[m]
        }
    }' "$out/all"
