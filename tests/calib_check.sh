#!/bin/sh
# The calibration file end to end (tests/calib.cmake): arbor-info --calibrate writes it, a job
# loads it with ARBOR_LOGP_FILE and prints the same parameters (each path: mapped channels, and
# the transport's RMA with ARBOR_DIRECT=n), a version 1 file (before the per-call term) still
# loads with call = 0, and init fails on every rank, saying why, when the file is bad, when the
# ranks' files differ, and when only some ranks set one.
#   calib_check.sh ARBOR_INFO WORKDIR LAUNCHER [LAUNCHER FLAGS...]
set -u
info=$1 dir=$2
shift 2
launch="$* -n"
mkdir -p "$dir" || exit 1
cal=$dir/cal.txt
fail() {
    echo "FAIL: $*"
    exit 1
}

# 1. Calibrate: rank 0 prints the file and writes it; both intra paths are measured.
out=$($launch 2 "$info" --calibrate -o "$cal" 2>"$dir/calibrate.err") ||
    { cat "$dir/calibrate.err"; fail "arbor-info --calibrate exited $?"; }
echo "$out"
[ "$out" = "$(cat "$cal")" ] || fail "the printed calibration is not the file's text"
grep -q '^intra mapped L=' "$cal" || fail "no intra mapped line"
grep -q '^intra rma L=' "$cal" || fail "no intra rma line"
grep -q '^arbor-calibration 2$' "$cal" || fail "not a version 2 file"
# The per-call term: measured, so above 0 on the mapped path.
grep '^intra mapped ' "$cal" | grep -Eq ',call=[0-9.]*[1-9]' || fail "no per-call term measured"

# The values of a path's line as model.intra prints them (%g each, G1 and Gop given).
expect() {
    grep "^$1 " "${2:-$cal}" | awk '{
        n = split($3, kv, ",")
        v["call"] = 0
        for (i = 1; i <= n; i++) { split(kv[i], p, "="); v[p[1]] = p[2] }
        printf("L=%g os=%g or=%g g=%g G=%g G1=%g Gop=%g call=%g\n", v["L"], v["os"], v["or"],
               v["g"], v["G"], v["G1"], v["Gop"], v["call"])
    }'
}

# 2. Round trip: each rank's model is the file's line for the path it takes.
for path in mapped rma; do
    direct=y
    [ $path = rma ] && direct=n
    want=$(expect "intra $path")
    got=$(ARBOR_DIRECT=$direct ARBOR_LOGP_FILE=$cal ARBOR_OVERSUB_WAKE=0 $launch 2 "$info" -r) ||
        fail "ARBOR_LOGP_FILE ($path): arbor-info -r exited $?"
    echo "$got" | grep model
    for r in 0 1; do
        line=$(echo "$got" | grep "^rank $r/2 model.intra" | sed 's/^rank [0-9]*\/2 model.intra *//')
        [ "$line" = "$want" ] || fail "rank $r, intra $path: model.intra '$line', the file has '$want'"
        # A line whose Gc is 0 (cross-memory attach not measured) leaves Gc to init.
        src="ARBOR_LOGP_FILE (intra $path)"
        grep "^intra $path " "$cal" | grep -Eq ',Gc=0(,|$)' && src="$src + Gc measured at init"
        echo "$got" | grep -q "^rank $r/2 model.source *$src\$" ||
            fail "rank $r: model.source does not say '$src'"
    done
done

# 2b. A version 1 file, as arbor wrote it before the per-call term: loads, with call = 0.
sed -e 's/^arbor-calibration 2$/arbor-calibration 1/' -e 's/,call=[0-9.e+-]*//' "$cal" >"$dir/v1.txt"
want=$(expect "intra mapped" "$dir/v1.txt")
got=$(ARBOR_LOGP_FILE=$dir/v1.txt ARBOR_OVERSUB_WAKE=0 $launch 2 "$info" -r) ||
    fail "a version 1 file: arbor-info -r exited $?"
echo "$got" | grep -q "^rank 0/2 model.intra *$want\$" ||
    { echo "$got" | grep model; fail "version 1 file: model.intra is not '$want'"; }
case $want in *" call=0") ;; *) fail "version 1 file: call is not 0 in '$want'" ;; esac
echo "version 1 file loaded: $want"

# Init must fail on both ranks, each printing the expected messages.
refused() { # what, stderr file, then one pattern that every rank's error must match
    what=$1 err=$2 pattern=$3
    for r in 0 1; do
        grep -q " $r/2\] ERROR .*$pattern" "$err" ||
            { cat "$err"; fail "$what: rank $r did not say '$pattern'"; }
    done
    [ "$(grep -c 'arbor-info: arbor_init: ARBOR_ERR_CONFIG' "$err")" = 2 ] ||
        { cat "$err"; fail "$what: init did not fail with ARBOR_ERR_CONFIG on both ranks"; }
    echo "refused as expected: $what"
}

# 3. A bad file (line 7 of the written one: a value that is no number) on both ranks.
line=$(grep -n '^intra rma ' "$cal" | cut -d: -f1)
sed "${line}s/,G=/,G=x/" "$cal" >"$dir/bad.txt"
ARBOR_LOGP_FILE=$dir/bad.txt $launch 2 "$info" -r >/dev/null 2>"$dir/bad.err" &&
    fail "a bad file was accepted"
refused "bad file" "$dir/bad.err" "bad.txt: line $line: logp: value \"x"
grep -q "could not be loaded on 2 ranks" "$dir/bad.err" || fail "bad file: no summary line"

# 4. Files with different values on the two ranks (MPMD: one rank each).
sed 's/^\(intra mapped L=\)[0-9.e-]*/\17.5/' "$cal" >"$dir/other.txt"
$launch 1 -x ARBOR_LOGP_FILE="$cal" "$info" -r : -n 1 -x ARBOR_LOGP_FILE="$dir/other.txt" "$info" -r \
    >/dev/null 2>"$dir/mismatch.err" && fail "different files were accepted"
refused "different files" "$dir/mismatch.err" "holds other values here"

# 5. A bad file on rank 1 only: rank 0 learns it from the wire-up.
$launch 1 -x ARBOR_LOGP_FILE="$cal" "$info" -r : -n 1 -x ARBOR_LOGP_FILE="$dir/bad.txt" "$info" -r \
    >/dev/null 2>"$dir/one.err" && fail "a bad file on rank 1 was accepted"
refused "bad file on rank 1" "$dir/one.err" "could not be loaded on 1 rank (1;"

# 6. A file on rank 0 only.
$launch 1 -x ARBOR_LOGP_FILE="$cal" "$info" -r : -n 1 "$info" -r >/dev/null 2>"$dir/unset.err" &&
    fail "a file on one rank only was accepted"
refused "file on one rank" "$dir/unset.err" "ARBOR_LOGP_FILE is .* on rank"
echo "calib_check: all passed"
