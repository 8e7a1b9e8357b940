#!/usr/bin/env bash
# Symbol-by-symbol comparison of libarmci_arbor with ARMCI-MPI (the drop-in promise).
#   symbols.sh <ARMCI-MPI library (.a or .so)> <libarmci_arbor.so> <ARMCI-MPI's include dir>
# The rule for "public": a global symbol the ARMCI-MPI library defines whose name is declared in
# one of ARMCI-MPI's installed headers (armci.h, armcix.h, message.h, armciconf.h, mp3.h). The
# rest of its exports are its internals, named in no header a program sees (ARMCII_*, gmr_*,
# ctree_*, its global state): a program cannot use them. Checks, each printed:
#   1. every public symbol is defined by libarmci_arbor (none missing);
#   2. the profiling scheme: every public symbol that is weak in ARMCI-MPI (ARMCI_x, and
#      armci_msg_barrier / armci_msg_group_barrier) is weak in libarmci_arbor too, at the address
#      of its PARMCI_x / parmci_msg_* twin, which is a strong definition;
#   3. libarmci_arbor exports nothing that the headers do not declare (no internals leak).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 <armci-mpi-lib> <libarmci_arbor.so> <include-dir>" >&2; exit 2; }
ref=$1 ours=$2 inc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "<type> <name> <address>" of the global defined symbols, one per name.
defined() {
    case $1 in
    *.a) nm -g --defined-only "$1" 2>/dev/null ;;
    *) nm -D --defined-only "$1" ;;
    esac | awk 'NF == 3 { print $2, $3, $1 }' | sort -k2,2 -u
}
defined "$ref" >"$tmp/ref"
defined "$ours" >"$tmp/ours"
headers=()
for h in armci.h armcix.h message.h armciconf.h mp3.h; do
    [ -f "$inc/$h" ] && headers+=("$inc/$h")
done
# Identifiers of the headers (comments included: a name only mentioned there is still named).
grep -ohE '\b[A-Za-z_][A-Za-z0-9_]*\b' "${headers[@]}" | sort -u >"$tmp/declared"
awk '{ print $2 }' "$tmp/ref" | sort >"$tmp/ref_names"
comm -12 "$tmp/ref_names" "$tmp/declared" >"$tmp/public"
awk '{ print $2 }' "$tmp/ours" | sort >"$tmp/our_names"

bad=0
npublic=$(wc -l <"$tmp/public")
ninternal=$(($(wc -l <"$tmp/ref_names") - npublic))
echo "ARMCI-MPI ($ref): $npublic public symbols, $ninternal internal ones (in no header)"
missing=$(comm -23 "$tmp/public" "$tmp/our_names")
if [ -n "$missing" ]; then
    echo "MISSING from libarmci_arbor ($(wc -l <<<"$missing")):"
    sed 's/^/  /' <<<"$missing"
    bad=1
else
    echo "1. none missing: libarmci_arbor defines all $npublic"
fi

weak=0
while read -r type name _; do
    case $type in W | V) ;; *) continue ;; esac
    grep -qx "$name" "$tmp/public" || continue
    weak=$((weak + 1))
    case $name in
    ARMCI_*) twin=P$name ;;
    armci_msg_*) twin=p$name ;;
    *) echo "weak $name: no profiling twin name known"; bad=1; continue ;;
    esac
    ours_line=$(awk -v n="$name" '$2 == n' "$tmp/ours")
    twin_line=$(awk -v n="$twin" '$2 == n' "$tmp/ours")
    read -r otype _ oaddr <<<"$ours_line"
    read -r ttype _ taddr <<<"$twin_line"
    if [[ "$otype" != [WV] || "$ttype" != T || "$oaddr" != "$taddr" ]]; then
        echo "NOT A WEAK ALIAS: $name ($ours_line) of $twin ($twin_line)"
        bad=1
    fi
done <"$tmp/ref"
echo "2. profiling names: $weak weak ARMCI-MPI symbols checked for weak aliases of their twins"

extra=$(comm -23 "$tmp/our_names" "$tmp/declared")
if [ -n "$extra" ]; then
    echo "EXPORTED BUT IN NO HEADER ($(wc -l <<<"$extra")):"
    sed 's/^/  /' <<<"$extra"
    bad=1
else
    echo "3. libarmci_arbor exports $(wc -l <"$tmp/our_names") symbols, each declared in the headers"
fi
[ $bad -eq 0 ] && echo "symbols: OK"
exit $bad
