#!/usr/bin/env python3
"""Structural checks of the library sources that a line grep cannot do (check-layering.sh runs
them):

  public-calls DIR...  No call of a public function (one declared in include/arbor.h) inside
                       the library: core talks to core through internal entries (struct
                       arbor_team, not handles), so that internal traffic never takes the public
                       path (its validation, its lock, the user's statistics). A definition
                       (the thin public wrapper) is not a call. arbor_strerror is exempt: a pure
                       table lookup that touches no state.
  cycles DIR...        The file-level dependency graphs of the given folders: X.c -> Y.c when
                       X.c calls a (non-static) function that Y.c defines, and X.h -> Y.h when
                       X.h includes Y.h. A cycle (coll_start -> team -> coll_api ->
                       coll_start) means the files cannot be understood, tested or layered
                       apart; every strongly connected set of files is reported with its edges.

Comments and string literals are stripped before matching. Prints every violation; exit 1 if any.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EXEMPT = {"arbor_strerror"}


def strip(text):
    """The source with comments and string / character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def sources(dirs, exts=(".c", ".h")):
    for d in dirs:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if f.endswith(exts):
                    p = os.path.join(base, f)
                    yield os.path.relpath(p, ROOT), p


def public_names():
    with open(os.path.join(ROOT, "include", "arbor.h")) as f:
        text = strip(f.read())
    names = set(re.findall(r"\b(arbor_[A-Za-z0-9_]+)\s*\(", text))
    return {n for n in names if not n.endswith("_t")} - EXEMPT


# What may stand before the name on a definition's (or declaration's) first line.
DEF_PREFIX = re.compile(r"^(?:(?:static|extern|inline|const|unsigned|struct)\s+)*"
                        r"[A-Za-z_][A-Za-z0-9_]*[\s*]+$")


def public_calls(dirs):
    names = public_names()
    if not names:
        print("[layering] no public function found in include/arbor.h")
        return 1
    call = re.compile(r"\b(" + "|".join(sorted(names)) + r")\s*\(")
    bad = 0
    for rel, path in sources(dirs):
        with open(path, errors="replace") as f:
            lines = strip(f.read()).split("\n")
        for no, line in enumerate(lines, 1):
            for m in call.finditer(line):
                if DEF_PREFIX.match(line[:m.start()]):
                    continue  # the definition of the public entry (or a prototype)
                print(f"{rel}:{no}: calls the public {m.group(1)}() (use the internal entry)")
                bad = 1
    return bad


def cycles(dirs):
    defined = re.compile(r"^[A-Za-z_][^;()=]*?\b([a-z_][a-z0-9_]*)\s*\([^;]*$", re.M)
    include = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
    text, raw = {}, {}
    for rel, path in sources(dirs, (".c", ".h")):
        with open(path, errors="replace") as f:
            raw[rel] = f.read()
        text[rel] = strip(raw[rel])
    # Every non-static function and the .c file that defines it.
    owner = {}
    for rel, t in text.items():
        if not rel.endswith(".c"):
            continue
        for m in defined.finditer(t):
            if not re.match(r"\s*static\b", m.group(0)):
                owner.setdefault(m.group(1), rel)
    ident = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\(")
    # A subfolder (src/rma/) is one module: its files call each other freely.
    top = set(dirs) - {"src/rma"}

    def node(rel):
        d = os.path.dirname(rel)
        return rel if d in top or not d else d + "/"

    graph, why = {}, {}
    for rel, t in text.items():
        deps = set()
        if rel.endswith(".c"):  # X.c -> Y.c: X.c calls a function that Y.c defines
            rel = node(rel)
            for n in ident.findall(t):
                if n in owner and node(owner[n]) != rel:
                    deps.add(node(owner[n]))
                    why.setdefault((rel, node(owner[n])), set()).add(n)
        else:  # X.h -> Y.h: X.h includes Y.h (a header cycle hides behind include guards)
            for inc in include.findall(raw[rel]):
                if inc in text and inc.endswith(".h"):
                    deps.add(inc)
        deps.discard(rel)
        graph[rel] = sorted(set(graph.get(rel, [])) | deps)
    # Edges known to close a cycle, listed with the reason in scripts/cycles-pending.txt.
    stale = 0
    listed = os.path.join(ROOT, "scripts", "cycles-pending.txt")
    if os.path.exists(listed):
        with open(listed) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                a, _, b = (x.strip() for x in line.partition("->"))
                if b in graph.get(a, []):
                    graph[a] = [x for x in graph[a] if x != b]
                else:
                    print(f"[cycles] stale entry in scripts/cycles-pending.txt: {a} -> {b} "
                          "(no such dependency any more: remove it)")
                    stale = 1
    # Tarjan's strongly connected components; every component of more than one file is a cycle.
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    for comp in comps:
        members = set(comp)
        edges = [f"{a} -> {b}" + (" (" + ", ".join(sorted(why[a, b])) + ")" if (a, b) in why else "")
                 for a in comp for b in graph[a] if b in members]
        print("[cycles] files that depend on each other: " + ", ".join(comp))
        for e in edges:
            print("    " + e)
    return 1 if comps or stale else 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("public-calls", "cycles"):
        print(__doc__)
        return 2
    dirs = [d for d in sys.argv[2:] if os.path.isdir(os.path.join(ROOT, d))]
    return (public_calls if sys.argv[1] == "public-calls" else cycles)(dirs)


if __name__ == "__main__":
    sys.exit(main())
