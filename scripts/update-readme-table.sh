#!/bin/sh
# usage: scripts/update-readme-table.sh <arbor-info> [README.md]
# Rewrites README's configuration table (between the config-table markers) from the library's
# own table, which tests/check_readme.sh then finds current.
set -eu
info=$1 readme=${2:-README.md}
tmp=$(mktemp)
env -u ARBOR_TIMEOUT "$info" --readme >"$tmp"
awk -v gen="$tmp" '
  /<!-- config-table -->/ { print; while ((getline line < gen) > 0) print line; skip = 1; next }
  /<!-- \/config-table -->/ { skip = 0 }
  !skip { print }' "$readme" >"$readme.new"
mv "$readme.new" "$readme"
rm -f "$tmp"
