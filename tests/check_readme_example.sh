#!/bin/sh
# usage: check_readme_example.sh <cc> <include dir> <library dir> <README.md> <launcher...>
# Compiles the README's first C example as a newcomer would (-Wall -Wextra -Werror, C11), runs
# it on 2 ranks and checks what it prints: every rank shows rank 0's message.
set -eu
cc=$1 inc=$2 lib=$3 readme=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '/^```c$/ { f = 1; next } /^```$/ { if (f) exit } f' "$readme" >"$tmp/example.c"
[ -s "$tmp/example.c" ] || { echo "README.md has no C example" >&2; exit 1; }
"$cc" -std=c11 -Wall -Wextra -Werror -I"$inc" "$tmp/example.c" -L"$lib" -larbor \
    -Wl,-rpath,"$lib" -o "$tmp/example"
"$@" -n 2 "$tmp/example" >"$tmp/out"
cat "$tmp/out"
[ "$(grep -c 'hello from 0 of 2' "$tmp/out")" -eq 2 ] || {
    echo "the README example did not print rank 0's message on both ranks" >&2
    exit 1
}
echo "README example compiles without a warning and runs"
