#!/bin/sh
# Nothing left in /dev/shm (src/runtime/segment.h): runs tests/test_shm_clean.c under the launcher,
# SHM_CLEAN_MODE=normal or kill (a rank SIGKILLs itself, the others leave without finalize),
# and checks that no /dev/shm object named after one of the job's pids (arbor-<pid>-...: the
# segments and libfabric's shm regions) is left. Also plants an arbor-<pid>- object of a dead
# pid beforehand, which the job's init must sweep.
# usage: shm_clean.sh normal|kill LAUNCHER [ARGS...] PROGRAM
mode=$1
shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
sh -c 'exit 0' &
dead=$!
wait "$dead"
stale=/dev/shm/arbor-$dead-seg-shmcleantest
: >"$stale" || exit 1
SHM_CLEAN_DIR=$dir SHM_CLEAN_MODE=$mode ARBOR_TIMEOUT=20 timeout 120 "$@"
rc=$?
fail=0
if [ "$mode" = normal ] && [ "$rc" -ne 0 ]; then
    echo "FAIL: the normal run exited with $rc"
    fail=1
fi
if [ "$mode" = kill ] && [ "$rc" -eq 0 ]; then
    echo "FAIL: the run with a killed rank exited with 0"
    fail=1
fi
n=0
for f in "$dir"/pid.*; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    pid=$(cat "$f")
    left=$(ls /dev/shm | grep "^arbor-$pid-")
    if [ -n "$left" ]; then
        echo "FAIL: left in /dev/shm by pid $pid: $left"
        fail=1
    fi
done
if [ "$n" -lt 2 ]; then
    echo "FAIL: only $n ranks recorded their pid"
    fail=1
fi
if [ -e "$stale" ]; then
    if kill -0 "$dead" 2>/dev/null; then
        rm -f "$stale" # the pid came back to life: nothing to say
    else
        echo "FAIL: $stale of a dead process was not swept at init"
        rm -f "$stale"
        fail=1
    fi
fi
[ "$fail" -eq 0 ] && echo "shm_clean: $mode run, $n ranks, /dev/shm clean"
exit "$fail"
