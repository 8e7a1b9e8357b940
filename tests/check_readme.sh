#!/bin/sh
# usage: check_readme.sh <arbor-info> <README.md>
# Fails (with the diff) when README's configuration table is not what arbor-info generates.
set -eu
info=$1 readme=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n '/<!-- config-table -->/,/<!-- \/config-table -->/p' "$readme" | sed '1d;$d' >"$tmp/readme"
env -u ARBOR_TIMEOUT "$info" --readme >"$tmp/generated"
if ! diff -u "$tmp/readme" "$tmp/generated"; then
    echo "README.md's configuration table is stale: regenerate it with arbor-info --readme" >&2
    exit 1
fi
[ -s "$tmp/generated" ] || { echo "arbor-info --readme printed nothing" >&2; exit 1; }
echo "README configuration table is current"
