#!/usr/bin/env bash
# Packaging of libshmem_arbor: install the build into a scratch prefix, then build
# tests/shmem/client/hello.c three ways (arbor-oshcc, pkg-config shmem-arbor, CMake
# find_package(arbor COMPONENTS shmem_arbor)) and run each as one PE without a launcher and,
# when mpirun is here, as 2 PEs under mpirun.
#   packaging.sh <build-dir> <source-dir> <scratch-dir>
# SHMEM_CLIENT_FLAGS: extra compile and link flags (the sanitizer flags of a sanitized build,
# which a client of an instrumented library must link with).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
mkdir -p "$3"
scratch=$(cd "$3" && pwd)
prefix=$scratch/prefix
flags=${SHMEM_CLIENT_FLAGS:-}
say() { printf '[shmem-packaging] %s\n' "$*"; }
fail() { printf '[shmem-packaging] FAIL: %s\n' "$*" >&2; exit 1; }

rm -rf "$prefix" "$scratch/bin" "$scratch/cmake"
mkdir -p "$scratch/bin"
cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -path '*/pkgconfig/shmem-arbor.pc' -print -quit)
[ -n "$pc" ] || fail "shmem-arbor.pc not installed"
[ -x "$prefix/bin/arbor-oshcc" ] || fail "arbor-oshcc not installed"
[ -f "$prefix/include/shmem.h" ] || fail "shmem.h not installed"
! grep -rq -e "$build" "$pc" "$prefix/bin/arbor-oshcc" || fail "installed files name the build tree"

# shellcheck disable=SC2086 # $flags is a list of flags
"$prefix/bin/arbor-oshcc" $flags -o "$scratch/bin/hello-oshcc" "$src/tests/shmem/client/hello.c"
# shellcheck disable=SC2046,SC2086 # the flags are meant to split
PKG_CONFIG_PATH=$(dirname "$pc") cc -std=c11 $flags -o "$scratch/bin/hello-pc" \
    "$src/tests/shmem/client/hello.c" $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs shmem-arbor)
cmake -S "$src/tests/shmem/client" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
cp "$scratch/cmake/shmem-hello" "$scratch/bin/hello-cmake"

for exe in "$scratch"/bin/hello-*; do
    deps=$(ldd "$exe") # (grep -q on the pipe would SIGPIPE ldd and fail under pipefail)
    grep -q "=> $prefix/.*libshmem_arbor" <<<"$deps" || fail "$exe does not load the installed library"
    # One PE, no launcher: drop any launcher environment first.
    out=$(env -u PMIX_RANK -u PMIX_NAMESPACE -u OMPI_COMM_WORLD_SIZE timeout 60 "$exe") ||
        fail "$exe (1 PE) exited with $?"
    grep -q 'PE 0 of 1 ok' <<<"$out" || fail "$exe (1 PE): $out"
    say "ok: $(basename "$exe"), 1 PE without a launcher"
    if command -v mpirun >/dev/null; then
        out=$(timeout 120 mpirun --oversubscribe -n 2 "$exe") || fail "$exe (mpirun -n 2) exited with $?"
        [ "$(grep -c ' of 2 ok' <<<"$out")" -eq 2 ] || fail "$exe (mpirun -n 2): $out"
        say "ok: $(basename "$exe"), 2 PEs under mpirun"
    fi
done
