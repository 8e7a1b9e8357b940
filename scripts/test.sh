#!/usr/bin/env bash
# The test command of arbor (README, .ci/run). From the repository root, with the packages of
# scripts/setup-deps.sh installed:
#   1. layering grep (scripts/check-layering.sh)
#   2. build/      -DARBOR_WERROR=ON, then ctest
#      (without the label valgrind, which is phase 2b)
#   2b. valgrind memcheck: ctest -L valgrind in build/ (tests/valgrind.cmake: single-rank runs,
#      about a minute and a half on 2 cores)
#   2c. build-release/ -DCMAKE_BUILD_TYPE=Release -DARBOR_WERROR=ON, build only: -O3 warns
#      where -O2 does not (what users who build Release compile), about two minutes
#   3. build-asan/ -DARBOR_SANITIZE=ON (ASan + UBSan), then ctest
#   3b. build-tsan/ -DARBOR_TSAN=ON (ThreadSanitizer), then ctest of the threads and unit
#      labels only (a few minutes; suppressions for the libraries under arbor: tests/tsan.supp)
#   4. Slurm: a one-node cluster (tests/slurm/start.sh, needs root), srun --mpi=pmix smoke runs
#      of build/bin/arbor-test-coll with 1..4 ranks (tests/slurm/run-smoke.sh), a coarray
#      program at 2 images through arbor-cafrun, stop.
# Every phase runs even when an earlier one failed (a failed build skips what needs it); the
# summary lists them and the exit status is 1 if any failed. The last lines of each failed
# test's output come again just before the summary.
# Knobs: ARBOR_JOBS (build jobs, default nproc), ARBOR_CTEST_JOBS (default 2),
# ARBOR_CTEST_TIMEOUT (per test without its own TIMEOUT, default 300 s), ARBOR_CTEST_ARGS
# (extra ctest arguments, e.g. "-L unit"), ARBOR_SKIP_RELEASE=1, ARBOR_SKIP_ASAN=1,
# ARBOR_SKIP_VALGRIND=1, ARBOR_SKIP_TSAN=1, ARBOR_SKIP_SLURM=1, ARBOR_SLURM_SMOKE_BINS (default "arbor-test-coll").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

JOBS=${ARBOR_JOBS:-$(nproc)}
CTEST_JOBS=${ARBOR_CTEST_JOBS:-2}
CTEST_TIMEOUT=${ARBOR_CTEST_TIMEOUT:-300}
read -r -a CTEST_EXTRA <<<"${ARBOR_CTEST_ARGS:-}"
# Open MPI's mpirun refuses root without these (CI runs as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

results=()
failed=0
t0=$SECONDS
banner() { printf '\n==== [%4ds] %s\n' "$((SECONDS - t0))" "$*"; }
run() { echo "+ $*"; "$@"; }
record() { # record <phase> <status: PASS|FAIL|SKIPPED...>
    results+=("$(printf '%-28s %s' "$1" "$2")")
    case $2 in FAIL*) failed=1 ;; esac
}
# phase <name> <command...>: run a phase in a subshell with errexit, record its result and keep
# going; the exit status is left in PHASE_RC. (Called outside any && / || list on purpose:
# there bash would ignore errexit inside the phase.)
PHASE_RC=0
phase() {
    local name=$1 start=$SECONDS
    shift
    banner "$name"
    set +e
    ( set -eo pipefail; "$@" )
    PHASE_RC=$?
    set -e
    if [ "$PHASE_RC" -eq 0 ]; then
        record "$name" "PASS ($((SECONDS - start)) s)"
    else
        record "$name" "FAIL (exit $PHASE_RC, $((SECONDS - start)) s)"
    fi
}

configure_build() { # <dir> [cmake args...]
    local dir=$1
    shift
    run cmake -S . -B "$dir" "$@"
    run cmake --build "$dir" -j "$JOBS"
}
# ctest_in <dir> [ctest args...]: on failure the tail of each failed test's output is kept for
# the end of the run, where a CI log that keeps only its last lines still shows why.
FAILED_OUT=$(mktemp)
trap 'rm -f "$FAILED_OUT"' EXIT
ctest_in() {
    local dir=$1 rc=0
    shift
    run ctest --test-dir "$dir" --output-on-failure -j "$CTEST_JOBS" --timeout "$CTEST_TIMEOUT" \
        "$@" || rc=$?
    [ "$rc" -eq 0 ] || keep_failed "$dir"
    return "$rc"
}
keep_failed() { # <dir>: from ctest's own log, which the next ctest in that folder replaces
    local tmp=$1/Testing/Temporary name
    [ -f "$tmp/LastTestsFailed.log" ] && [ -f "$tmp/LastTest.log" ] || return 0
    while IFS=: read -r _ name; do
        echo "---- $1: $name (its last 40 lines)"
        awk -v t="$name" '
            /^[0-9]+\/[0-9]+ Test: / { cur = substr($0, index($0, "Test: ") + 6); on = 0; next }
            cur == t && $0 == "Output:" { getline; on = 1; next }
            on && (e = index($0, "<end of output>")) { if (e > 1) print substr($0, 1, e - 1); on = 0 }
            on { print }' "$tmp/LastTest.log" | tail -n 40
    done <"$tmp/LastTestsFailed.log" >>"$FAILED_OUT"
}
run_ctest() { # <dir> [ctest args...]
    local dir=$1
    shift
    ctest_in "$dir" "${CTEST_EXTRA[@]}" "$@"
}
# No valgrind tests registered (valgrind missing: scripts/setup-deps.sh installs it) fails.
valgrind_ctest() {
    ctest_in build -L valgrind --no-tests=error
}
asan_ctest() {
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0} \
        UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} run_ctest build-asan
}
tsan_ctest() {
    # halt_on_error: a race fails its test (the process exits 66). UCX's memory hooks patch
    # mmap / brk under TSan's interceptors and crash the process at startup: off here (arbor's
    # segment is allocated by UCX and needs no hooks).
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp} \
        UCX_MEM_EVENTS=no UCX_MEM_MALLOC_HOOKS=no ctest_in build-tsan -L '^(threads|unit)$'
}
slurm_smoke() {
    local bins
    read -r -a bins <<<"${ARBOR_SLURM_SMOKE_BINS:-arbor-test-coll}"
    run tests/slurm/start.sh >/dev/null
    trap 'tests/slurm/stop.sh' EXIT
    # shellcheck disable=SC1091
    source "${ARBOR_SLURM_DIR:-/tmp/arbor-slurm}/env.sh"
    run tests/slurm/run-smoke.sh build "${bins[@]}"
    # A coarray program started the way a user would under Slurm: the wrapper arbor-cafrun.
    if [ -x build/bin/caf_team_arbor ]; then
        CAF_LAUNCHER=srun run timeout -k 10 120 build/arbor-cafrun -n 2 build/bin/caf_team_arbor
    fi
}

phase "layering grep" scripts/check-layering.sh

phase "build (WERROR)" configure_build build -DARBOR_WERROR=ON
if [ "$PHASE_RC" -eq 0 ]; then
    phase "ctest build/" run_ctest build -LE valgrind
    if [ "${ARBOR_SKIP_VALGRIND:-0}" = 1 ]; then
        record "valgrind memcheck" "SKIPPED (ARBOR_SKIP_VALGRIND=1)"
    else
        phase "valgrind memcheck" valgrind_ctest
    fi
else
    record "ctest build/" "SKIPPED (build failed)"
    record "valgrind memcheck" "SKIPPED (build failed)"
fi

if [ "${ARBOR_SKIP_RELEASE:-0}" = 1 ]; then
    record "build-release (WERROR)" "SKIPPED (ARBOR_SKIP_RELEASE=1)"
else
    phase "build-release (WERROR)" configure_build build-release -DCMAKE_BUILD_TYPE=Release \
        -DARBOR_WERROR=ON -DARBOR_BUILD_MICRO=OFF
fi

if [ "${ARBOR_SKIP_ASAN:-0}" = 1 ]; then
    record "build-asan" "SKIPPED (ARBOR_SKIP_ASAN=1)"
else
    phase "build-asan" configure_build build-asan -DARBOR_SANITIZE=ON -DARBOR_BUILD_MICRO=OFF
    if [ "$PHASE_RC" -eq 0 ]; then
        phase "ctest build-asan/" asan_ctest
    else
        record "ctest build-asan/" "SKIPPED (build failed)"
    fi
fi

if [ "${ARBOR_SKIP_TSAN:-0}" = 1 ]; then
    record "build-tsan" "SKIPPED (ARBOR_SKIP_TSAN=1)"
else
    # Only what the threads and unit labels run: the library, its tests, no clients.
    phase "build-tsan" configure_build build-tsan -DARBOR_TSAN=ON -DARBOR_BUILD_MICRO=OFF \
        -DARBOR_BUILD_BENCH=OFF
    if [ "$PHASE_RC" -eq 0 ]; then
        phase "ctest build-tsan/" tsan_ctest
    else
        record "ctest build-tsan/" "SKIPPED (build failed)"
    fi
fi

# Slurm needs root (slurmd starts the job steps). In CI (root) a cluster that does not come up
# is a failure, with the daemons' logs printed by start.sh; a developer without root gets an
# explicit SKIPPED line, and ARBOR_SKIP_SLURM=1 skips it on purpose.
if [ "${ARBOR_SKIP_SLURM:-0}" = 1 ]; then
    record "slurm srun smoke" "SKIPPED (ARBOR_SKIP_SLURM=1)"
elif [ "$(id -u)" -ne 0 ]; then
    record "slurm srun smoke" "SKIPPED (needs root)"
elif [ ! -d build/bin ]; then
    record "slurm srun smoke" "FAIL (no build/bin: the build failed)"
else
    phase "slurm srun smoke" slurm_smoke
fi

if [ -s "$FAILED_OUT" ]; then
    banner "failed tests (their output again)"
    head -n 240 "$FAILED_OUT"
fi
banner "summary"
printf '  %s\n' "${results[@]}"
if [ "$failed" -ne 0 ]; then
    echo "scripts/test.sh: FAILED"
    exit 1
fi
echo "scripts/test.sh: all phases passed"
