#!/bin/sh
# Runs a public suite of coarray Fortran test programs (OpenCoarrays' own unit and regression
# tests) unmodified against libcaf_arbor and against Debian's OpenCoarrays (libcaf_openmpi):
# builds each program with gfortran -fcoarray=lib against each runtime and runs it under mpirun
# at the image count OpenCoarrays' CMakeLists gives it, recording pass / fail / build failure /
# timeout per runtime. Not part of ctest or CI, and it fetches nothing: the suite's sources are
# third-party code and must not be committed here. clients/caf/README.md says how to fetch them
# (every .f90 / .F90 program of OpenCoarrays' src/tests/unit and src/tests/regression, flat in
# one folder, and src/tests/utilities in its subfolder utilities/) and has the last results. Usage:
#   tests/caf/run_public_suite.sh SUITE_DIR BUILD_DIR [OUT_DIR]
# Environment: RUNTIMES (default "arbor ocaf"), TIMEOUT (seconds per run, default 60), ONLY
# (space-separated program names, default every *.f90 / *.F90 in SUITE_DIR), IMAGES (one image
# count for every program instead of the table below), ARBOR_TRANSPORT / ARBOR_OFI_PROVIDER
# (passed through; default ARBOR_TRANSPORT=ucx), MPIRUN (default mpirun), FC (default gfortran),
# EXTRA_FFLAGS, CAF_OPENMPI (the reference library, default libcaf_openmpi.so's directory).
# A run passes when the job exits 0 within the timeout, no image printed "Test failed" or
# "ERROR STOP", and, where the program's source prints "Test passed", the output has it (what
# OpenCoarrays' ctest requires). Results: OUT_DIR/results.txt (program images runtime verdict),
# OUT_DIR/logs/<program>.<runtime>.<images>.log, OUT_DIR/build/<program>.<runtime>.log.
set -u
usage="usage: run_public_suite.sh SUITE_DIR BUILD_DIR [OUT_DIR]"
suite=${1:?$usage}
build=${2:?$usage}
out=${3:-$PWD/caf-suite-results}
build=$(cd "$build" && pwd)
suite=$(cd "$suite" && pwd)
runtimes=${RUNTIMES:-arbor ocaf}
limit=${TIMEOUT:-60}
mpirun=${MPIRUN:-mpirun}
fc=${FC:-gfortran}
export ARBOR_TRANSPORT=${ARBOR_TRANSPORT:-ucx}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out/bin" "$out/logs" "$out/build"
: >"$out/results.txt"

# What OpenCoarrays' CMake passes for gfortran 8 and later (some programs test these macros), and
# Open MPI's Fortran flags for the few programs that include mpif.h or use the mpi module.
fflags="-fcoarray=lib -O1 -DGCC_GE_7 -DGCC_GE_8 -DMPI_WORKING_MODULE ${EXTRA_FFLAGS:-}"
mpi_compile=$(mpifort --showme:compile 2>/dev/null)
mpi_link=$(mpifort --showme:link 2>/dev/null)
ocaf_dir=${CAF_OPENMPI:-$(dirname "$(find /usr/lib /usr/local/lib -name 'libcaf_openmpi.so' 2>/dev/null | head -n 1)")}
# OpenCoarrays' own module (its language extensions: get_communicator and team_number), which a
# few programs use. Its procedures are bound to _gfortran_caf_* names that libcaf_arbor defines
# as well, so those programs build against either runtime with its folder on the module path (as
# caf-arbor.pc's Cflags give it).
ocaf_mod=$(dirname "$(find /usr/lib /usr/local/lib -name 'opencoarrays.mod' 2>/dev/null | head -n 1)")

# Image counts from OpenCoarrays' CMakeLists (add_mpi_test / add_caf_test) as far as the copies
# read name them; other programs run at 2, the collectives at 4. A program can have several.
images_of() {
    case $1 in
    co_sum | co_min | co_max | co_reduce | co_reduce_res_im | co_reduce_string | \
        co_broadcast | co_broadcast_allocatable_components | collectives_tests | \
        issue-172-wrong-co_reduce | issue-172-wrong-co_reduce-int64 | \
        issue-172-wrong-co_reduce-int8 | allocatable_p2p_event_post | event_post_1 | \
        image_status_test_1 | image_fail_test_1 | image_fail_and_* | get_with_1d_vector_index) echo 4 ;;
    co_broadcast_derived_type | strided_sendget | sendget_convert_char_array | sendget_convert_nums | \
        issue-292-convert-type-before-put | issue-290-convert-type-before-put | \
        issue-293-silent-event-failure | issue-422-send-get | teams_subset | get-communicator | \
        async-hello) echo 3 ;;
    sync_image_ring_abort_on_stopped_image) echo "3 7" ;;
    teams_coarray_get | teams_coarray_get_by_ref | teams_coarray_send | \
        teams_coarray_send_by_ref | teams_coarray_sendget) echo 5 ;;
    async_comp_alloc) echo 6 ;;
    syncall | syncimages | syncimages2 | duplicate_syncimages | syncimages_status | \
        testAtomics | team-number | team_number | sync-team | allocate_as_barrier_proc | \
        issue-243-source-allocation-no-sync | issue-493-coindex-slice | \
        issue-488-multi-dim-cobounds) echo 8 ;;
    *) echo 2 ;;
    esac
}

# Pass / fail of one run from its exit code and output ($1 rc, $2 log, $3 source).
verdict_of() {
    case $1 in
    0) ;;
    124 | 137) echo TIMEOUT && return ;;
    *) echo "FAIL($1)" && return ;;
    esac
    if grep -q -i -e 'Test failed' -e 'ERROR STOP' "$2"; then
        echo "FAIL(output)"
    elif grep -q -i 'Test passed' "$3" && ! grep -q -i 'Test passed' "$2"; then
        echo "FAIL(no pass line)"
    else
        echo PASS
    fi
}

if [ -n "${ONLY:-}" ]; then
    progs=$ONLY
else
    progs=$(cd "$suite" && ls *.f90 *.F90 2>/dev/null | sed 's/\.[fF]90$//' | sort -u)
fi

for p in $progs; do
    src=$suite/$p.F90
    [ -f "$src" ] || src=$suite/$p.f90
    extra="" mpi=""
    # OpenCoarrays' test utilities (the assertions module), for the programs that use them.
    if grep -q -i 'use assertions_interface' "$src"; then
        extra="$suite/utilities/object_interface.f90 $suite/utilities/assertions_interface.F90"
        extra="$extra $suite/utilities/assertions_implementation.F90"
    fi
    # Programs that call MPI link it (the ones written for OpenCoarrays call it without a module).
    if grep -q -i -e "include 'mpif.h'" -e '^ *use mpi' -e '^ *call  *mpi_' "$src"; then
        extra="$extra $mpi_compile"
        mpi=$mpi_link
    fi
    for rt in $runtimes; do
        case $rt in
        arbor) libs="-I$ocaf_mod -L$build/lib -Wl,-rpath,$build/lib -lcaf_arbor -larbor" ;;
        ocaf) libs="-I$ocaf_mod -L$ocaf_dir -lcaf_openmpi $mpi_link" ;;
        *) echo "unknown runtime $rt" >&2 && exit 2 ;;
        esac
        exe=$out/bin/$p.$rt
        counts=${IMAGES:-$(images_of "$p")}
        # Each program builds in its own folder: several define modules of the same name.
        mkdir -p "$out/mod/$p.$rt"
        if ! $fc $fflags -J"$out/mod/$p.$rt" -o "$exe" $extra "$src" $libs $mpi \
            >"$out/build/$p.$rt.log" 2>&1; then
            for n in $counts; do
                echo "$p $n $rt BUILD_FAIL" >>"$out/results.txt"
            done
            echo "$p $rt: build failure"
            continue
        fi
        for n in $counts; do
            log=$out/logs/$p.$rt.$n.log
            timeout -k 5 "$limit" $mpirun --oversubscribe --bind-to none -np "$n" "$exe" \
                >"$log" 2>&1 </dev/null
            v=$(verdict_of $? "$log" "$src")
            echo "$p $n $rt $v" >>"$out/results.txt"
            echo "$p $n $rt $v"
        done
    done
done

echo "--- summary (arbor on $ARBOR_TRANSPORT${ARBOR_OFI_PROVIDER:+ $ARBOR_OFI_PROVIDER}; program, images, one column per runtime)"
awk -v rts="$runtimes" '
    BEGIN { n = split(rts, rt, " ") }
    { key = $1 " " $2; if (!(key in seen)) { seen[key] = 1; order[++k] = key } v[key, $3] = $4 }
    END {
        for (i = 1; i <= k; i++) {
            line = sprintf("%-50s", order[i])
            for (j = 1; j <= n; j++) {
                x = ((order[i], rt[j]) in v) ? v[order[i], rt[j]] : "-"
                line = line sprintf(" %-20s", x)
                if (x == "PASS") pass[j]++
            }
            print line
        }
        line = sprintf("%-50s", "passed of " k)
        for (j = 1; j <= n; j++) line = line sprintf(" %-20s", rt[j] " " pass[j] + 0)
        print line
    }' "$out/results.txt"
