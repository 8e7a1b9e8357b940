#!/usr/bin/env bash
# Packaging test of libcaf_arbor: install the build into a scratch prefix, then build a coarray
# program against the installed package with the wrapper arbor-caf, with pkg-config and with
# CMake, and run each at one image (no launcher) and at two images under mpirun; the wrapper's
# build also through arbor-cafrun.
#   packaging.sh <build-dir> <source-dir> <scratch-dir>
# CAF_CLIENT_FLAGS: extra compile and link flags (the sanitizer flags of a sanitized build).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 <build-dir> <source-dir> <scratch-dir>" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
mkdir -p "$3"
scratch=$(cd "$3" && pwd)
prefix=$scratch/prefix
flags=${CAF_CLIENT_FLAGS:-}
program=$src/tests/caf/caf_team.f90
say() { printf '[caf-packaging] %s\n' "$*"; }
fail() { printf '[caf-packaging] FAIL: %s\n' "$*" >&2; exit 1; }

check_runs() { # check_runs <binary>
    local out
    out=$(timeout -k 5 60 "$1" 2>&1) || { printf '%s\n' "$out"; fail "$1 at one image"; }
    grep -q 'caf_team: 1 images OK' <<<"$out" || { printf '%s\n' "$out"; fail "$1: no OK line"; }
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 5 120 \
        mpirun --oversubscribe --bind-to none -n 2 "$1" 2>&1) ||
        { printf '%s\n' "$out"; fail "$1 at two images"; }
    grep -q 'caf_team: 2 images OK' <<<"$out" || { printf '%s\n' "$out"; fail "$1: no OK line"; }
    say "ok: $1"
}

rm -rf "$prefix" "$scratch/pc" "$scratch/wrap" "$scratch/cmake"
cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -path '*/pkgconfig/caf-arbor.pc' -print -quit)
[ -n "$pc" ] || fail "caf-arbor.pc not installed under $prefix"
export PKG_CONFIG_PATH=$(dirname "$pc")

# pkg-config: the command line the README gives.
mkdir -p "$scratch/pc"
# shellcheck disable=SC2046,SC2086
gfortran -fcoarray=lib $flags "$program" $(pkg-config --cflags --libs caf-arbor) \
    -o "$scratch/pc/caf_team"
check_runs "$scratch/pc/caf_team"

# A program that uses OpenCoarrays' module of extensions builds with the same command where that
# module is installed (caf-arbor.pc names its folder), and its team_number answers here.
moddir=$(pkg-config --cflags-only-I caf-arbor | tr ' ' '\n' | sed -n 's/^-I//p' |
    while read -r d; do if [ -f "$d/opencoarrays.mod" ]; then echo "$d"; fi; done | head -n 1)
if [ -n "$moddir" ]; then
    cat >"$scratch/pc/ext.f90" <<'EOF_F90'
program ext
  use opencoarrays, only: team_number
  implicit none
  if (team_number() /= -1) error stop "team_number of the initial team"
  print *, "ext: ok"
end program ext
EOF_F90
    # shellcheck disable=SC2046,SC2086
    gfortran -fcoarray=lib $flags "$scratch/pc/ext.f90" $(pkg-config --cflags --libs caf-arbor) \
        -J "$scratch/pc" -o "$scratch/pc/ext"
    out=$(timeout -k 5 60 "$scratch/pc/ext" 2>&1) || { printf '%s\n' "$out"; fail "ext"; }
    grep -q 'ext: ok' <<<"$out" || { printf '%s\n' "$out"; fail "ext: no OK line"; }
    say "ok: a program using OpenCoarrays' module ($moddir)"
else
    say "OpenCoarrays' module opencoarrays is not installed: its check left out"
fi

# The wrappers, as OpenCoarrays' caf and cafrun are used: compile and link in one step, or
# compile then link; start the images with arbor-cafrun.
caf=$prefix/bin/arbor-caf
cafrun=$prefix/bin/arbor-cafrun
{ [ -x "$caf" ] && [ -x "$cafrun" ]; } || fail "arbor-caf or arbor-cafrun not installed"
! grep -q -e "$build" "$caf" "$cafrun" || fail "the installed wrappers name the build tree"
mkdir -p "$scratch/wrap"
# shellcheck disable=SC2086
"$caf" $flags "$program" -o "$scratch/wrap/caf_team"
check_runs "$scratch/wrap/caf_team"
# shellcheck disable=SC2086
(cd "$scratch/wrap" && "$caf" $flags -c "$program" -o team.o && "$caf" $flags team.o -o caf_team2)
check_runs "$scratch/wrap/caf_team2"
out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    CAF_LAUNCHER="mpirun --oversubscribe --bind-to none" timeout -k 5 120 \
    "$cafrun" -np 2 "$scratch/wrap/caf_team" 2>&1) || { printf '%s\n' "$out"; fail "arbor-cafrun -np 2"; }
grep -q 'caf_team: 2 images OK' <<<"$out" || { printf '%s\n' "$out"; fail "arbor-cafrun: no OK line"; }
say "ok: arbor-caf (one step, and compile then link), arbor-cafrun -np 2"
# What they would run: the library linked only when linking, srun given PMIx and -n.
"$caf" --show x.f90 -o x | grep -q -- "-fcoarray=lib.*x.f90 -o x .*-lcaf_arbor -larbor" ||
    fail "arbor-caf --show: $("$caf" --show x.f90 -o x)"
! "$caf" -show -c x.f90 | grep -q -- -lcaf_arbor || fail "arbor-caf links when only compiling"
[ "$("$caf" --wraps)" = gfortran ] || fail "arbor-caf --wraps: $("$caf" --wraps)"
shown=$(CAF_LAUNCHER="srun -p debug" "$cafrun" --show -np 4 ./a.out -np 3)
[ "$shown" = "srun -p debug --mpi=pmix -n 4 ./a.out -np 3" ] || fail "arbor-cafrun --show (srun): $shown"
shown=$(CAF_LAUNCHER=mpirun "$cafrun" -s -np 4 ./a.out)
[ "$shown" = "mpirun -np 4 ./a.out" ] || fail "arbor-cafrun --show (mpirun): $shown"
if "$cafrun" >/dev/null 2>&1; then fail "arbor-cafrun without arguments succeeded"; fi
say "ok: the wrappers' --show, --wraps and usage"

# CMake: find_package(arbor COMPONENTS caf_arbor), target arbor::caf_arbor.
cmake -S "$src/tests/caf/client" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCAF_CLIENT_SOURCE="$program" -DCAF_CLIENT_FLAGS="$flags" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
check_runs "$scratch/cmake/caf_client"
