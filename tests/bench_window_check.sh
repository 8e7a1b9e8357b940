#!/bin/sh
# The window timing and the scheduler columns of a benchmark (tests/fidelity.cmake): runs it with
# --timing window on RANKS ranks and checks every row of its CSV: the data check is ok, the
# timing is window (or window>span, said on stderr too), the invalid fraction is a number in
# [0, 1], the margin a positive number, and runq_us, runq_max_us and nivcsw either numbers or,
# where the kernel has no /proc/thread-self/schedstat, empty (never a made-up zero). No time
# is asserted. Then the same benchmark in table and json form prints the new columns.
#   bench_window_check.sh BENCH RANKS LAUNCHER [LAUNCHER FLAGS...]
set -u
bench=$1 ranks=$2
shift 2
launch="$* -n $ranks $bench --op barrier,bcast,allreduce --sizes 8,16K --iters 30 --warmup 10"
launch="$launch --timing window"
fail() {
    echo "FAIL: $*"
    exit 1
}
err=$(mktemp)
trap 'rm -f "$err"' EXIT

out=$($launch --format csv 2>"$err") || { cat "$err"; fail "the benchmark exited $?"; }
echo "$out"
cat "$err"
echo "$out" | head -1 | grep -q ',median_us,p99_us,timing,invalid,margin_us,runq_us,runq_max_us,nivcsw$' ||
    fail "the CSV header lacks the window and scheduler columns at its end"
[ -r /proc/thread-self/schedstat ] && sched=1 || sched=0
echo "$out" | awk -F, -v ranks="$ranks" -v sched="$sched" '
    function num(s) { return s ~ /^[0-9]+([.][0-9]+)?$/ }
    NR == 1 { next }
    {
        rows++
        if (NF != 17) { print "row " NR ": " NF " fields, not 17"; bad = 1 }
        if ($3 != ranks) { print "row " NR ": ranks " $3; bad = 1 }
        if ($8 != "ok") { print "row " NR ": check " $8; bad = 1 }
        if ($12 != "window" && $12 != "window>span") { print "row " NR ": timing " $12; bad = 1 }
        if ($12 == "window>span") fell++
        if (!num($13) || $13 > 1) { print "row " NR ": invalid fraction \"" $13 "\""; bad = 1 }
        if (!num($14) || $14 <= 0) { print "row " NR ": margin \"" $14 "\""; bad = 1 }
        for (i = 15; i <= 17; i++)
            if (sched ? !num($i) : $i != "") { print "row " NR ": column " i " \"" $i "\""; bad = 1 }
        if (num($15) && num($16) && $16 > $15 + 0.001) { print "row " NR ": runq max over sum"; bad = 1 }
    }
    END {
        if (rows != 5) { print rows " rows, not 5"; bad = 1 }
        if (fell) print fell " row(s) timed as span: too few iterations started in the window"
        exit bad
    }' || fail "a row is wrong"
# A row timed as span after all says so on stderr.
if echo "$out" | grep -q ',window>span,'; then
    grep -q 'timed as span' "$err" || fail "a window>span row without its note on stderr"
fi

out=$($launch --format table --details 2>/dev/null) || fail "table: the benchmark exited $?"
echo "$out" | head -1 | grep -Eq 'transport +timing +invalid +margin_us +runq_us +runq_max_us +nivcsw$' ||
    fail "table: no new columns in the header"
out=$($launch --format json 2>/dev/null) || fail "json: the benchmark exited $?"
echo "$out" | grep -Eq '"timing":"window(>span)?","invalid":[0-9.]+,"margin_us":[0-9.]+,"runq_us":([0-9.]+|null),' ||
    fail "json: no new fields"
echo "PASS"
