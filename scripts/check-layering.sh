#!/usr/bin/env bash
# Layering rules (docs/ARCHITECTURE.md) checked by grep over the library sources (src/,
# bootstrap/, transports/, include/): PMIx headers only in bootstrap/, UCX headers only in transports/ucx/,
# libfabric headers only in transports/ofi/, getenv("ARBOR_...") only in
# src/runtime/config.c, a launcher's variables (OMPI_*, SLURM_*, PMIX_*, ...) only in
# bootstrap/.
# Benchmarks and tools are clients of the public API: bench/*.c and bench/*.h
# (not bench/micro, which times internals on purpose, nor the MPI twins bench/mpi*) include
# only system headers, "arbor.h" and "bench/..." headers; client runtimes (clients/<name>/)
# only system headers, "arbor.h" and their own folder's headers; tools (tools/*.c) only
# "arbor.h", except tools/arbor-tree.c, which draws the algorithms' trees and legitimately uses
# src/algorithms/ internals.
# No library file calls a public arbor_* function (only its definition, the thin wrapper, names
# it); includes and calls follow the layer table, and no modules form a cycle
# (scripts/layering.py, which says how).
# Prints every violation; exits 1 if there is any.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dirs=()
for d in src bootstrap transports include; do [ -d "$d" ] && dirs+=("$d"); done
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
rule "getenv of an ARBOR_ variable" 'getenv[[:space:]]*\([[:space:]]*"ARBOR_' src/runtime/config.c
rule "a launcher's variable" 'getenv[[:space:]]*\([[:space:]]*"(OMPI_|SLURM_|PMIX_|PMI_|PRTE_|PALS_|HYDRA_|I_MPI_|MV2_|MPI_LOCAL)' bootstrap/

# Logging and configuration are a bottom utility: below them nothing of the library (config.h
# may name log.h for the level values). Transports, the bootstrap and the algorithms take from
# the layers above util/ nothing, and from util/ the log header; a backend gets its settings as fields of arb_tp_params_t.
for f in src/util/log.h src/runtime/config.h; do
    [ -f "$f" ] || continue
    hits=$(grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(util|bootstrap|transports|algorithms|runtime|coll|rma|group|api)/' "$f" |
        grep -vE '^src/runtime/config\.h:[0-9]+:#include "util/log\.h"' || true)
    if [ -n "$hits" ]; then
        echo "[layering] the log / config utility includes a library header (it must stay at the bottom):"
        printf '%s\n' "$hits"
        bad=1
    fi
done
below=()
for d in transports bootstrap src/algorithms; do [ -d "$d" ] && below+=("$d"); done
if [ ${#below[@]} -gt 0 ]; then
    hits=$(grep -rnE --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(util|runtime|coll|rma|group|api)/' "${below[@]}" |
        grep -vE '#[[:space:]]*include[[:space:]]*"util/(log|map|clock)\.h"' || true)
    hits2=$(grep -rnwE --include='*.c' --include='*.h' 'arb_ctx|arb_config_t' transports bootstrap 2>/dev/null || true)
    if [ -n "$hits$hits2" ]; then
        echo "[layering] transports / bootstrap / algorithms reach into core (only util/log.h, util/map.h and util/clock.h allowed; settings come in arb_tp_params_t):"
        printf '%s\n' "$hits" "$hits2" | grep -v '^$'
        bad=1
    fi
fi

# Quoted includes other than "arbor.h" and "bench/...", and library headers in <>, in the
# given files.
internal_includes() {
    grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*("|<(util|bootstrap|transports|algorithms|runtime|coll|rma|group|api)/)' "$@" |
        grep -vE '#[[:space:]]*include[[:space:]]*"(arbor\.h|bench/[^"]*)"' || true
}
clients=()
for f in bench/*.c bench/*.h; do
    case $f in bench/mpi*) continue ;; esac
    [ -f "$f" ] && clients+=("$f")
done
if [ ${#clients[@]} -gt 0 ]; then
    hits=$(internal_includes "${clients[@]}")
    if [ -n "$hits" ]; then
        echo "[layering] benchmark includes a library-internal header (only \"arbor.h\" allowed):"
        printf '%s\n' "$hits"
        bad=1
    fi
fi
# Client runtimes (clients/<name>/) include "arbor.h" and their own folder's headers only.
if [ -d clients ]; then
    mapfile -t cfiles < <(find clients -name '*.c' -o -name '*.h' | sort)
    hits=""
    [ ${#cfiles[@]} -eq 0 ] || hits=$(internal_includes "${cfiles[@]}" | grep -E '#[[:space:]]*include[[:space:]]*("[^"]*/|<)' || true)
    if [ -n "$hits" ]; then
        echo "[layering] client runtime includes a library-internal header (only \"arbor.h\" and its own headers allowed):"
        printf '%s\n' "$hits"
        bad=1
    fi
fi
# Tools are clients of arbor.h (arbor-info asks arbor_info_get), except tools/arbor-tree.c,
# which draws the algorithms' trees from src/algorithms/ internals on purpose.
tools=()
for f in tools/*.c tools/*.h; do
    case $f in tools/arbor-tree.c) continue ;; esac
    [ -f "$f" ] && tools+=("$f")
done
if [ ${#tools[@]} -gt 0 ]; then
    hits=$(internal_includes "${tools[@]}")
    if [ -n "$hits" ]; then
        echo "[layering] tool includes a library-internal header (only \"arbor.h\" allowed):"
        printf '%s\n' "$hits"
        bad=1
    fi
fi
# No call of a public arbor_* function inside the library (definitions, i.e. the thin public
# wrappers, excepted); every include and call of src/ against the layer table; no dependency
# cycle between the modules (a .c and its .h) of the library or of a client (scripts/layering.py,
# which says how and holds the table).
if [ -d src ] && ! python3 scripts/layering.py public-calls src bootstrap transports; then
    echo "[layering] the library calls its own public API (above); call the internal entry"
    bad=1
fi
if [ -d src ] && ! python3 scripts/layering.py layers; then
    echo "[layering] an include or a call goes against the layer table (above; python3 scripts/layering.py table)"
    bad=1
fi
cyc=()
for d in src bootstrap transports clients; do [ -d "$d" ] && cyc+=("$d"); done
if [ ${#cyc[@]} -gt 0 ] && ! python3 scripts/layering.py cycles "${cyc[@]}"; then
    echo "[layering] modules form a dependency cycle (above)"
    bad=1
fi
if [ "$bad" -ne 0 ]; then exit 1; fi
echo "[layering] ok (${dirs[*]}; benchmarks: ${clients[*]:-none}; tools: ${tools[*]:-none})"
