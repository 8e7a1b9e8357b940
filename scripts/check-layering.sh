#!/usr/bin/env bash
# Layering rules of STYLE.md checked by grep over the library sources (core, algorithms,
# transports, bootstrap, include): PMIx headers only in bootstrap/, UCX headers only in
# transports/ucx/, libfabric headers only in transports/ofi/, getenv("ARBOR_...") only in
# core/config.c. Prints every violation; exits 1 if there is any.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dirs=()
for d in core algorithms transports bootstrap include; do [ -d "$d" ] && dirs+=("$d"); done
[ ${#dirs[@]} -gt 0 ] || { echo "[layering] no library sources"; exit 0; }

bad=0
# rule <description> <regex> <allowed path prefix>
rule() {
    local desc=$1 re=$2 allowed=$3 hits
    hits=$(grep -rnE --include='*.c' --include='*.h' "$re" "${dirs[@]}" | grep -v "^$allowed" || true)
    if [ -n "$hits" ]; then
        echo "[layering] $desc (allowed only in $allowed):"
        printf '%s\n' "$hits"
        bad=1
    fi
}
rule "PMIx header" '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]pmix' bootstrap/
rule "UCX header" '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](ucp|uct|ucs)/' transports/ucx/
rule "libfabric header" '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]rdma/' transports/ofi/
rule "getenv of an ARBOR_ variable" 'getenv[[:space:]]*\([[:space:]]*"ARBOR_' core/config.c
if [ "$bad" -ne 0 ]; then exit 1; fi
echo "[layering] ok (${dirs[*]})"
