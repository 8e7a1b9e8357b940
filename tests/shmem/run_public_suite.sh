#!/bin/sh
# Runs a public OpenSHMEM unit-test suite (Sandia OpenSHMEM's test/unit C programs) against
# libshmem_arbor, unmodified: builds each program against this build's shmem.h and libraries and
# runs it at the given PE counts under mpirun, recording pass / fail / build failure / timeout.
# Not part of ctest or CI, and it fetches nothing: the suite's sources are third-party code and
# must not be committed here. Fetch them yourself into a folder of your choice: from a source
# release or a clone of Sandia OpenSHMEM, copy test/unit/*.c and test/include/pthread_barrier.h
# into DIR (the .f90 and .cpp programs are not built). clients/shmem/README.md has the last
# results. Usage:
#   tests/shmem/run_public_suite.sh SUITE_DIR BUILD_DIR [OUT_DIR]
# Environment: PES (default "2 4"), TIMEOUT (seconds per run, default 60), ONLY (space-separated
# program names to run, default every *.c in SUITE_DIR), ARBOR_TRANSPORT / ARBOR_OFI_PROVIDER
# (passed through; default ARBOR_TRANSPORT=ucx), MPIRUN (default mpirun), CC (default cc),
# EXTRA_CFLAGS, SHMEM_INCLUDE / SHMEM_LIBDIR (below).
# A program passes when the job exits 0 within the timeout. Results: OUT_DIR/results.txt (one
# line per program and PE count), OUT_DIR/logs/<program>.<pes>.log, OUT_DIR/build/<program>.log.
set -u
suite=${1:?usage: run_public_suite.sh SUITE_DIR BUILD_DIR [OUT_DIR]}
build=${2:?usage: run_public_suite.sh SUITE_DIR BUILD_DIR [OUT_DIR]}
out=${3:-$PWD/public-suite-results}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "$build" && pwd)
suite=$(cd "$suite" && pwd)
pes=${PES:-2 4}
limit=${TIMEOUT:-60}
mpirun=${MPIRUN:-mpirun}
export ARBOR_TRANSPORT=${ARBOR_TRANSPORT:-ucx}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out/bin" "$out/logs" "$out/build"
: >"$out/results.txt"

# The suite's headers (e.g. pthread_barrier.h) sit beside its sources. ENABLE_SHMEMX_TESTS is
# what Sandia OpenSHMEM's --enable-shmemx-tests defines: its put-with-signal programs include
# shmemx.h only then (EXTRA_CFLAGS adds or overrides flags).
# SHMEM_INCLUDE / SHMEM_LIBDIR point at another shmem.h / libshmem_arbor (another version, to
# compare); by default this tree's headers and BUILD_DIR/lib.
incdir=${SHMEM_INCLUDE:-$src/clients/shmem}
libdir=${SHMEM_LIBDIR:-$build/lib}
cflags="-std=gnu11 -O1 -DENABLE_SHMEMX_TESTS -I$incdir -I$suite ${EXTRA_CFLAGS:-}"
libs="-L$libdir -Wl,-rpath,$libdir -L$build/lib -Wl,-rpath,$build/lib -lshmem_arbor -larbor -lpthread -lm"

if [ -n "${ONLY:-}" ]; then
    progs=$ONLY
else
    progs=$(cd "$suite" && ls *.c | sed 's/\.c$//')
fi

for p in $progs; do
    extra=""
    case $p in
    shmem_ctx) extra="-fopenmp" ;;
    rma_coverage_pshmem) continue ;;
    esac
    if ! ${CC:-cc} $cflags $extra -o "$out/bin/$p" "$suite/$p.c" $libs >"$out/build/$p.log" 2>&1; then
        for n in $pes; do
            echo "$p $n BUILD_FAIL" >>"$out/results.txt"
        done
        echo "$p: build failure"
        continue
    fi
    for n in $pes; do
        # No arguments: the suite's Makefile runs every program with its defaults.
        timeout -k 5 "$limit" $mpirun --oversubscribe --bind-to none -np "$n" "$out/bin/$p" \
            >"$out/logs/$p.$n.log" 2>&1 </dev/null
        rc=$?
        case $rc in
        0) verdict=PASS ;;
        124 | 137) verdict=TIMEOUT ;;
        *) verdict="FAIL($rc)" ;;
        esac
        echo "$p $n $verdict" >>"$out/results.txt"
        echo "$p $n $verdict"
    done
done
echo "--- summary ($ARBOR_TRANSPORT${ARBOR_OFI_PROVIDER:+ $ARBOR_OFI_PROVIDER})"
for n in $pes; do
    total=$(awk -v n="$n" '$2 == n' "$out/results.txt" | wc -l)
    pass=$(awk -v n="$n" '$2 == n && $3 == "PASS"' "$out/results.txt" | wc -l)
    echo "$n PEs: $pass / $total pass"
done
awk '$3 != "PASS"' "$out/results.txt"
