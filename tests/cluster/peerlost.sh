#!/usr/bin/env bash
# A rank on another host killed mid-loop (tests/test_peerlost.c) on the simulated cluster,
# run inside `cluster.sh run`: PROGRAM's last rank SIGKILLs itself, every survivor prints its
# verdict. Open MPI 4.1 with recovery enabled (needed, or mpirun kills the survivors) does not
# exit after a multi-host job lost a rank, so this script waits for the survivors' verdict
# lines, stops mpirun itself, and passes when every survivor reported 0 failures.
#   tests/cluster/peerlost.sh NPROCS PROGRAM
set -uo pipefail
np=$1 prog=$2
out=$(mktemp /tmp/arbor-peerlost.XXXXXX)
trap 'rm -f "$out"' EXIT
export OMPI_MCA_orte_enable_recovery=1 OMPI_MCA_orte_abort_on_non_zero_status=0
# shellcheck disable=SC2086
$SIMCLUSTER_MPIRUN --timeout 240 -x ARB_PEERLOST_ALLOW_TIMEOUT -n "$np" "$prog" >"$out" 2>&1 &
mpirun_pid=$!
want=$((np - 1))
for ((i = 0; i < 2400; i++)); do
    [ "$(grep -c '^peerlost rank [0-9]*: [0-9]* checks' "$out")" -ge "$want" ] && break
    kill -0 "$mpirun_pid" 2>/dev/null || break
    sleep 0.1
done
sleep 1 # the survivors' exit
kill "$mpirun_pid" 2>/dev/null
wait "$mpirun_pid" 2>/dev/null
cat "$out"
ok=$(grep -c '^peerlost rank [0-9]*: [0-9]* checks, 0 failures' "$out")
echo "peerlost.sh: $ok of $want survivors passed"
[ "$ok" -eq "$want" ]
