#!/bin/sh
# Rewrites README.md's configuration table (between the config-table markers) from
# `arbor-info --readme`, the library's own table. usage: scripts/update-readme-config.sh [build]
set -eu
cd "$(dirname "$0")/.."
info=${1:-build}/bin/arbor-info
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
env -u ARBOR_TIMEOUT "$info" --readme >"$tmp"
awk -v gen="$tmp" '
    /<!-- config-table -->/ { print; while ((getline line < gen) > 0) print line; skip = 1; next }
    /<!-- \/config-table -->/ { skip = 0 }
    !skip { print }' README.md >README.md.new
mv README.md.new README.md
