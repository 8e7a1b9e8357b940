#!/usr/bin/env bash
# Run multi-rank smoke binaries under the one-node cluster of start.sh with srun --mpi=pmix.
#   tests/slurm/run-smoke.sh <build-dir> [binary...]
# Binaries are paths, or names looked up in <build-dir>/bin. Without any, the default list is
# every one of arbor-test-coll and arbor-test-smoke that exists in <build-dir>/bin (none: fail).
# Each binary runs with -n N for N in $ARBOR_SMOKE_RANKS (default "1 2 3 4"), each run bounded
# by $ARBOR_SMOKE_TIMEOUT_S (default 120). Fails if any run fails; runs them all first.
# ARBOR_SMOKE_TRANSPORTS: optional list of ARBOR_TRANSPORT values to repeat every run with.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/slurm/common.sh
source "$here/common.sh"

[ $# -ge 1 ] || die "usage: $0 <build-dir> [binary...]"
build=$1; shift
ranks=${ARBOR_SMOKE_RANKS:-1 2 3 4}
tmo=${ARBOR_SMOKE_TIMEOUT_S:-120}
read -r -a transports <<<"${ARBOR_SMOKE_TRANSPORTS:-}"
[ ${#transports[@]} -gt 0 ] || transports=("")

if [ -z "${SLURM_CONF:-}" ]; then
    [ -f "$ARBOR_SLURM_DIR/env.sh" ] || die "SLURM_CONF unset and no $ARBOR_SLURM_DIR/env.sh: run tests/slurm/start.sh first"
    # shellcheck disable=SC1091
    source "$ARBOR_SLURM_DIR/env.sh"
fi
export SLURM_CONF
timeout 10 sinfo -h -o '%T' >/dev/null || die "the cluster of $SLURM_CONF does not answer"

bins=()
if [ $# -eq 0 ]; then
    for b in arbor-test-coll arbor-test-smoke; do
        [ -x "$build/bin/$b" ] && bins+=("$build/bin/$b")
    done
    [ ${#bins[@]} -gt 0 ] || die "no smoke binary (arbor-test-coll, arbor-test-smoke) in $build/bin"
else
    for b in "$@"; do
        if [[ "$b" != */* ]]; then b="$build/bin/$b"; fi
        [ -x "$b" ] || die "smoke binary $b does not exist or is not executable"
        bins+=("$b")
    done
fi

cleanup() { timeout 10 scancel -u "$(id -un)" 2>/dev/null || true; }
trap cleanup EXIT

export ARBOR_TIMEOUT=${ARBOR_TIMEOUT:-60}
fails=()
total=0
for b in "${bins[@]}"; do
    for tp in "${transports[@]}"; do
        for n in $ranks; do
            total=$((total + 1))
            desc="$(basename "$b") -n $n${tp:+ ARBOR_TRANSPORT=$tp}"
            log "srun --mpi=pmix -n $n $b${tp:+ (ARBOR_TRANSPORT=$tp)}"
            start=$(date +%s)
            rc=0
            if [ -n "$tp" ]; then
                ARBOR_TRANSPORT=$tp timeout -k 10 "$tmo" srun --mpi=pmix -n "$n" --kill-on-bad-exit=1 \
                    --job-name=arbor-smoke "$b" || rc=$?
            else
                timeout -k 10 "$tmo" srun --mpi=pmix -n "$n" --kill-on-bad-exit=1 \
                    --job-name=arbor-smoke "$b" || rc=$?
            fi
            if [ "$rc" -eq 0 ]; then
                log "PASS $desc ($(($(date +%s) - start)) s)"
            else
                [ "$rc" -eq 124 ] && log "TIMEOUT after ${tmo}s"
                log "FAIL $desc (exit $rc)"
                fails+=("$desc (exit $rc)")
                cleanup
            fi
        done
    done
done
if [ ${#fails[@]} -gt 0 ]; then
    log "${#fails[@]} of $total srun smoke runs failed:"
    printf '[slurm]   %s\n' "${fails[@]}" >&2
    exit 1
fi
log "all $total srun smoke runs passed"
