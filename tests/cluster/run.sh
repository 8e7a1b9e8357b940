#!/usr/bin/env bash
# ctest entry of the simulated cluster: run one launched test program on HOSTS x RPH ranks.
#   tests/cluster/run.sh HOSTS RPH PROGRAM [ARGS...]
# The transport comes from the caller's ARBOR_TRANSPORT / ARBOR_OFI_PROVIDER. Exit 77: skipped.
set -euo pipefail
hosts=$1 rph=$2
shift 2
exec "$(dirname "$0")/cluster.sh" run --hosts "$hosts" --ranks-per-host "$rph" -- \
    sh -c '$SIMCLUSTER_MPIRUN -n "$0" "$@"' "$((hosts * rph))" "$@"
