#!/usr/bin/env bash
# Packaging test: install a built arbor into a scratch prefix, then build and run a client of it.
#   run.sh <build-dir> <source-dir> <scratch-dir> [install|cmake|pkgconfig|all]
#   install    cmake --install <build-dir> --prefix <scratch>/prefix and check the files
#   cmake      build tests/client with find_package(arbor) (shared and static) and run both
#   pkgconfig  cc main.c $(pkg-config --cflags --libs arbor) and run it
# The clients run as one-rank jobs without a launcher. ARBOR_CLIENT_CFLAGS: extra flags for
# compiling and linking the clients (the sanitizer flags of a sanitized build).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 <build-dir> <source-dir> <scratch-dir> [install|cmake|pkgconfig|all]" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
mkdir -p "$3"
scratch=$(cd "$3" && pwd)
mode=${4:-all}
prefix=$scratch/prefix
cflags=${ARBOR_CLIENT_CFLAGS:-}
CC=${CC:-cc}

say() { printf '[packaging] %s\n' "$*"; }
fail() { printf '[packaging] FAIL: %s\n' "$*" >&2; exit 1; }
run() { say "+ $*"; "$@"; }

# The clients must run as singletons: drop any launcher environment we may run inside.
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(PMIX_|PMI_|OMPI_|PRTE_|SLURM_)' || true)

libdir_of_prefix() { # the folder of the installed arbor.pc's parent (lib or lib/<multiarch>)
    local pc
    pc=$(find "$prefix" -path '*/pkgconfig/arbor.pc' -print -quit 2>/dev/null || true)
    [ -n "$pc" ] || fail "no pkgconfig/arbor.pc under $prefix (did the install step run?)"
    dirname "$(dirname "$pc")"
}

# run_client <binary> <expect: shared|static> [env...]: one-rank run, checks output and linkage.
run_client() {
    local bin=$1 kind=$2 out rc=0
    shift 2
    [ -x "$bin" ] || fail "$bin was not built"
    local deps # (grep -q on a pipe would SIGPIPE ldd and fail the pipeline under pipefail)
    deps=$(env "$@" ldd "$bin") || fail "ldd $bin failed"
    if [ "$kind" = shared ]; then
        grep -q "=> $prefix/.*libarbor\.so" <<<"$deps" ||
            { printf '%s\n' "$deps"; fail "$bin does not load libarbor.so from $prefix"; }
    else
        ! grep -q 'libarbor\.so' <<<"$deps" || { printf '%s\n' "$deps"; fail "$bin links libarbor.so, expected the archive"; }
    fi
    say "+ $* $bin"
    out=$(env "$@" timeout -k 5 60 "$bin" 2>&1) || rc=$?
    printf '%s\n' "$out"
    [ "$rc" -eq 0 ] || fail "$bin exited with $rc"
    grep -q '^arbor-client: version .* rank 0 size 1$' <<<"$out" || fail "$bin printed no 'rank 0 size 1' line"
    say "ok: $bin ($kind)"
}

do_install() {
    rm -rf "$prefix"
    run cmake --install "$build" --prefix "$prefix"
    local libdir
    libdir=$(libdir_of_prefix)
    for f in "$prefix/include/arbor.h" "$libdir/libarbor.so" "$libdir/libarbor.a" \
        "$libdir/pkgconfig/arbor.pc" "$libdir/cmake/arbor/arborConfig.cmake" \
        "$libdir/cmake/arbor/arborConfigVersion.cmake" "$libdir/cmake/arbor/arborTargets.cmake"; do
        [ -e "$f" ] || fail "missing installed file $f"
    done
    cmp -s "$src/include/arbor.h" "$prefix/include/arbor.h" || fail "installed arbor.h differs from the source"
    ! grep -rq -e "$build" -e "$src" "$libdir/pkgconfig/arbor.pc" "$libdir/cmake/arbor" ||
        fail "installed package files refer to the build or source tree"
    say "ok: install into $prefix"
}

do_cmake() {
    local cb=$scratch/cmake-client
    rm -rf "$cb"
    run timeout 300 cmake -S "$src/tests/client" -B "$cb" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_FLAGS="$cflags" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
    run timeout 300 cmake --build "$cb"
    run_client "$cb/arbor-client" shared
    run_client "$cb/arbor-client-static" static
}

do_pkgconfig() {
    local pb=$scratch/pc-client libdir flags
    rm -rf "$pb"
    mkdir -p "$pb"
    libdir=$(libdir_of_prefix)
    export PKG_CONFIG_PATH=$libdir/pkgconfig
    run pkg-config --modversion arbor
    flags=$(pkg-config --cflags --libs arbor) || fail "pkg-config --cflags --libs arbor failed"
    # shellcheck disable=SC2086 # word splitting of the flags is intended
    run timeout 300 "$CC" $cflags -o "$pb/arbor-client" "$src/tests/client/main.c" $flags
    run_client "$pb/arbor-client" shared LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

case $mode in
    install) do_install ;;
    cmake) do_cmake ;;
    pkgconfig) do_pkgconfig ;;
    all) do_install; do_cmake; do_pkgconfig ;;
    *) fail "unknown mode $mode" ;;
esac
