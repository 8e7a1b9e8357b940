#!/bin/sh
# expect_exit.sh CODE COMMAND...: run COMMAND; succeed when it exits with CODE.
expected=$1
shift
"$@"
rc=$?
if [ "$rc" -ne "$expected" ]; then
    echo "expect_exit: '$*' exited with $rc, expected $expected" >&2
    exit 1
fi
exit 0
