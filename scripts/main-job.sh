#!/usr/bin/env bash
# The main job: install the dependencies, build build/ and run arbor-bench with 4 ranks under
# Open MPI's mpirun (barrier, bcast and the main reductions and exchanges, 8 B / 64 KiB /
# 1 MiB, 200 iterations, table output).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { echo "+ $*"; "$@"; }

run scripts/setup-deps.sh
run cmake -S . -B build
run cmake --build build -j "${ARBOR_JOBS:-$(nproc)}" --target arbor-bench
run timeout -k 10 "${ARBOR_BENCH_TIMEOUT_S:-600}" mpirun --oversubscribe -n 4 build/bin/arbor-bench \
    --op barrier,bcast,allreduce,allgather,alltoall,reduce_scatter,scan --sizes 8,65536,1048576 --iters 200 --format table
