#!/usr/bin/env bash
# Install everything arbor needs to build and test on Debian 12 (apt). Idempotent: when every
# package is installed already it does nothing (no apt-get update). Needs root (or sudo).
#   scripts/setup-deps.sh          install what is missing
#   scripts/setup-deps.sh --list   print the package list
set -euo pipefail

packages=(
    build-essential cmake pkg-config   # C11 compiler (gcc, g++ for the C++ micro benchmarks), make
    python3                            # generates the reduction kernels at build time
    libucx-dev ucx-utils               # UCX transport (ucx_info)
    libfabric-dev libfabric-bin        # libfabric transport (fi_info)
    libpmix-dev                        # PMIx bootstrap
    openmpi-bin libopenmpi-dev         # mpirun: the PMIx launcher of the launched tests
    gfortran libcoarrays-dev           # coarray Fortran client (clients/caf: libcaf_arbor, tests/caf)
    libcoarrays-openmpi-dev            # OpenCoarrays: the reference runtime of tests/caf and bench/caf
    libbenchmark-dev                   # Google Benchmark (bench/micro)
    slurm-wlm munge                    # one-node Slurm cluster (tests/slurm, srun --mpi=pmix)
    graphviz gnuplot-nox               # dot (tree drawings), gnuplot (bench/compare --plot)
    procps                             # ps/pgrep used by the launchers and scripts
    valgrind                           # memcheck tier of scripts/test.sh (tests/valgrind.cmake)
    iproute2                           # ip netns, bridges, tc: the simulated cluster (tests/cluster)
    libarmci-mpi-dev                   # ARMCI over MPI-3 RMA: the reference of clients/armci
    libglobalarrays-dev                # Global Arrays (static, over an external ARMCI): tests/armci
    libscalapack-openmpi-dev liblapack-dev libblas-dev gfortran # what libga.a links with
)
if [ "${1:-}" = --list ]; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

missing=()
for p in "${packages[@]}"; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" != installed ]; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "[setup-deps] all ${#packages[@]} packages are installed"
    exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "[setup-deps] need root to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
echo "[setup-deps] missing: ${missing[*]}"
echo "[setup-deps] + apt-get update"
"${sudo[@]}" apt-get -q update
echo "[setup-deps] + apt-get install -y --no-install-recommends ${packages[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends "${packages[@]}"
echo "[setup-deps] done"
