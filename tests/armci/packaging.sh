#!/usr/bin/env bash
# Packaging test of libarmci_arbor: install the build into a scratch prefix, then build the
# programs of tests/armci against the installed package and run each at two ranks under
# mpirun: the ARMCI test with pkg-config (the README's command line), the Global Arrays program
# with pkg-config and GA's libraries, the ARMCIX test with CMake (find_package(arbor COMPONENTS
# armci_arbor), target arbor::armci_arbor).
#   packaging.sh <build-dir> <source-dir> <scratch-dir> ["<GA libraries and their dependencies>"]
# ARMCI_CLIENT_FLAGS: extra compile and link flags (the sanitizer flags of a sanitized build).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 <build-dir> <source-dir> <scratch-dir> [ga-libs]" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
mkdir -p "$3"
scratch=$(cd "$3" && pwd)
ga_libs=${4:-}
prefix=$scratch/prefix
flags=${ARMCI_CLIENT_FLAGS:-}
say() { printf '[armci-packaging] %s\n' "$*"; }
fail() { printf '[armci-packaging] FAIL: %s\n' "$*" >&2; exit 1; }

check_runs() { # check_runs <binary> <the line a passing run prints>
    local out
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 5 120 \
        mpirun --oversubscribe --bind-to none -n 2 "$1" 2>&1) ||
        { printf '%s\n' "$out"; fail "$1 at two ranks"; }
    grep -q "$2" <<<"$out" || { printf '%s\n' "$out"; fail "$1: no '$2' line"; }
    say "ok: $1"
}

rm -rf "$prefix" "$scratch/pc" "$scratch/cmake"
cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -path '*/pkgconfig/armci-arbor.pc' -print -quit)
[ -n "$pc" ] || fail "armci-arbor.pc not installed under $prefix"
export PKG_CONFIG_PATH=$(dirname "$pc")
[ -f "$(pkg-config --variable=includedir armci-arbor)/armci.h" ] || fail "armci.h not installed"

mkdir -p "$scratch/pc"
# shellcheck disable=SC2046,SC2086
cc -DARMCI_TEST_ARBOR $flags "$src/tests/armci/test_armci.c" \
    $(pkg-config --cflags --libs armci-arbor) -lm -o "$scratch/pc/test_armci"
check_runs "$scratch/pc/test_armci" 'test_armci: 2 ranks, [0-9]* checks, 0 failures'

if [ -n "$ga_libs" ]; then
    # GA first, then the ARMCI that serves it, then GA's own dependencies (ga-config --libs).
    ga=${ga_libs%% *} ga_tail=${ga_libs#* }
    # shellcheck disable=SC2046,SC2086
    mpicc $flags "$src/tests/armci/test_ga.c" $ga $(pkg-config --cflags --libs armci-arbor) \
        $ga_tail -o "$scratch/pc/test_ga"
    check_runs "$scratch/pc/test_ga" 'test_ga: 2 ranks, [0-9]* checks, 0 failures'
else
    say "Global Arrays not found at configure time: its program is skipped"
fi

cmake -S "$src/tests/armci/client" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DARMCI_CLIENT_SOURCE="$src/tests/armci/test_armcix.c" -DARMCI_CLIENT_FLAGS="$flags" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
check_runs "$scratch/cmake/armci_client" 'test_armcix: 2 ranks, [0-9]* checks, 0 failures'
