#!/usr/bin/env python3
"""Structural checks of the sources that a line grep cannot do (check-layering.sh runs them):

  public-calls DIR...  No call of a public function (one declared in include/arbor.h) inside
                       the library: the library talks to itself through internal entries
                       (struct arbor_team, not handles), so that internal traffic never takes
                       the public path (its validation, its lock, the user's statistics). A
                       definition (the thin public wrapper) is not a call. arbor_strerror is
                       exempt: a pure table lookup that touches no state.
  layers               Every include and every call of the library (src/) against the layer
                       table below: a file may include a header of, and call a function defined
                       in, its own layer or a layer it is allowed to use. Each violation is
                       printed as file:line.
  cycles DIR...        The dependency graph of the modules under the given folders: a module is
                       a .c and its .h (src/runtime/progress.c and .h are one node); X -> Y when
                       X includes Y's header or calls a (non-static) function that Y's .c
                       defines (a header's prototypes and macro bodies name functions without
                       calling them). A cycle means the files cannot be understood, tested or
                       layered apart; every strongly connected set is reported with its edges.
                       Under clients/, each client (clients/<name>/) is a set of its own. The
                       sets in PENDING_CYCLES, and any cycle inside a folder of
                       PENDING_PREFIXES, are reported on one line and do not fail.
  table                Prints the layer table (docs/ARCHITECTURE.md shows the same).

Comments and string literals are stripped before matching. Prints every violation; exit 1 if any.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EXEMPT = {"arbor_strerror"}

# The layers of src/, lowest first, and what each may use besides itself. The one place that
# says it; docs/ARCHITECTURE.md prints the same table.
LAYERS = [
    ("util", [], "log, clock, heap (first-fit allocator), aligned mappings, zeroing, status strings"),
    ("bootstrap", ["util"], "PMIx / singleton: the only launcher-aware code"),
    ("transports", ["util"], "the transport contract, the registry, ucx/ and ofi/"),
    ("algorithms", ["util"], "the model: LogGP, trees, schedules, selector, tune (pure)"),
    ("runtime", ["util", "bootstrap", "transports", "algorithms"],
     "process context, config, lock, doorbell, progress with its hook registry, request table, "
     "flush, dtype kernels, peer copy, segment, cross-memory attach, model inputs"),
    ("coll", ["runtime", "util", "bootstrap", "transports", "algorithms"],
     "executor, channels, schedule cache, collective start / check / direct / verdict, offload"),
    ("rma", ["runtime", "util", "bootstrap", "transports", "algorithms"],
     "one-sided operations, atomics, notifications, active messages, departures"),
    ("group", ["coll", "rma", "runtime", "util", "bootstrap", "transports", "algorithms"],
     "teams, symmetric allocation, images, measurement, node sharing"),
    ("api", ["group", "coll", "rma", "runtime", "util", "bootstrap", "transports", "algorithms"],
     "init / finalize and the thin public entries (arbor_*)"),
]
ALLOWED = {name: set(uses) | {name} for name, uses, _ in LAYERS}

# Cycles of modules left for later work, reported as pending rather than failures (a listed one
# that is gone fails, so the lists only shrink). Format: the sorted member list of the strongly
# connected set; a prefix covers every cycle inside that folder. Both are empty: nothing is
# exempt.
PENDING_CYCLES = []
PENDING_PREFIXES = []


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


DEFINED = re.compile(r"^[A-Za-z_][^;()=]*?\b([a-z_][a-z0-9_]*)\s*\([^;]*$", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
IDENT = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\(")


class Sources:
    """The files of some folders: their text, the functions each .c defines, and each file's
    dependencies (includes and calls) with the line that makes them."""

    def __init__(self, dirs, include_roots):
        self.raw, self.text = {}, {}
        for rel, path in sources(dirs):
            with open(path, errors="replace") as f:
                self.raw[rel] = f.read()
            # extern "C" { ... } around a header's prototypes is no body
            self.text[rel] = re.sub(r'extern\s*"\s*"\s*\{', lambda m: " " * len(m.group(0)),
                                    strip(self.raw[rel]))
        self.roots = include_roots
        self.owner = {}  # function -> the .c that defines it (non-static)
        for rel, t in self.text.items():
            if not rel.endswith(".c"):
                continue
            for m in DEFINED.finditer(t):
                if not re.match(r"\s*static\b", m.group(0)):
                    self.owner.setdefault(m.group(1), rel)

    def resolve(self, rel, inc):
        """The repository path of an include of rel, or None (system / public headers)."""
        for base in [os.path.dirname(rel)] + self.roots:
            p = os.path.normpath(os.path.join(base, inc))
            if p in self.text:
                return p
        return None

    def deps(self, rel):
        """(line, kind, target file, what) for every include and call of rel."""
        out = []
        for no, line in enumerate(self.raw[rel].split("\n"), 1):
            m = INCLUDE.match(line)
            if m:
                p = self.resolve(rel, m.group(1))
                if p:
                    out.append((no, "includes", p, m.group(1)))
        depth = 0  # braces: outside every body, a name before "(" in a header is a prototype
        in_macro = False  # a header's macro body: expanded, and so called, by its users
        for no, line in enumerate(self.text[rel].split("\n"), 1):
            macro = in_macro or line.lstrip().startswith("#")
            in_macro = macro and line.rstrip().endswith("\\")
            pos = 0
            for m in IDENT.finditer(line):
                depth += line.count("{", pos, m.start()) - line.count("}", pos, m.start())
                pos = m.start()
                name = m.group(1)
                target = self.owner.get(name)
                if not target or module(target) == module(rel):
                    continue
                if rel.endswith(".h") and (macro or depth <= 0):
                    kind = "declares"  # a header that declares another file's function
                else:
                    kind = "calls"
                out.append((no, kind, target, name + "()"))
            depth += line.count("{", pos) - line.count("}", pos)
        return out


def module(rel):
    """A .c and its .h are one node."""
    return os.path.splitext(rel)[0]


# The library: src/<layer>/, and the two bottom layers that keep folders of their own at the top
# of the tree (the only homes of PMIx, UCX and libfabric headers).
LIB_DIRS = ["src", "bootstrap", "transports"]
LIB_ROOTS = ["src", "."]


def layer(rel):
    parts = rel.split("/")
    if parts[0] in ("bootstrap", "transports") and len(parts) > 1:
        return parts[0]
    return parts[1] if len(parts) > 2 and parts[0] == "src" else None


def layers():
    src = Sources(LIB_DIRS, LIB_ROOTS)
    bad = 0
    known = {name for name, _, _ in LAYERS}
    for rel in sorted(src.text):
        a = layer(rel)
        if a not in known:
            print(f"{rel}: in no layer (src/<layer>/ with <layer> one of {', '.join(known)})")
            bad = 1
            continue
        for no, kind, target, what in src.deps(rel):
            b = layer(target)
            if b in ALLOWED[a]:
                continue
            print(f"{rel}:{no}: {a} {kind} {what} of {b} ({target}); {a} may use only "
                  f"{', '.join(n for n, _, _ in LAYERS if n in ALLOWED[a])}")
            bad = 1
    return bad


def sccs(graph):
    """Tarjan's strongly connected components of more than one node."""
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
    return comps


def graph_of(dirs, roots):
    src = Sources(dirs, roots)
    graph, why = {}, {}
    for rel in src.text:
        a = module(rel)
        graph.setdefault(a, set())
        for no, kind, target, what in src.deps(rel):
            b = module(target)
            # A folder's shared header (ucx.h, algorithms/coll.h) declares functions of several
            # of its files: that declaration is no dependency; the calls through it are.
            if b == a or kind == "declares":
                continue
            graph[a].add(b)
            why.setdefault((a, b), []).append(f"{rel}:{no} {kind} {what}")
    return graph, why


def cycles(dirs):
    sets = []  # (folders, include roots): the library is one set, each client another
    lib = [d for d in dirs if not d.startswith("clients")]
    if lib:
        sets.append((lib, LIB_ROOTS))
    for d in dirs:
        if d.startswith("clients"):
            base = os.path.join(ROOT, d)
            subs = sorted(s for s in os.listdir(base) if os.path.isdir(os.path.join(base, s)))
            sets += [([os.path.join(d, s)], [os.path.join(d, s)]) for s in subs]
    bad = 0
    for folders, roots in sets:
        graph, why = graph_of(folders, roots)
        for comp in sccs(graph):
            members = set(comp)
            pending = comp in PENDING_CYCLES or any(
                all(m.startswith(p) for m in comp) for p in PENDING_PREFIXES)
            head = "pending (another branch takes it apart)" if pending else "cycle"
            print(f"[cycles] {head}: " + ", ".join(comp))
            if pending:
                continue  # the listed sets: one line each (run without the list for the edges)
            for a in comp:
                for b in sorted(graph[a] & members):
                    print(f"    {a} -> {b}: " + "; ".join(why[a, b][:3]) +
                          (f"; +{len(why[a, b]) - 3} more" if len(why[a, b]) > 3 else ""))
            bad = 1
    if lib:
        graph, _ = graph_of(lib, LIB_ROOTS)
        found = sccs(graph)
        for comp in PENDING_CYCLES:
            if comp not in found:
                print("[cycles] stale pending cycle (gone: remove it from PENDING_CYCLES): " +
                      ", ".join(comp))
                bad = 1
    return bad


def table():
    width = max(len(n) for n, _, _ in LAYERS)
    for name, uses, what in LAYERS:
        print(f"{name:<{width}}  may use: {', '.join(uses) or '(nothing)'}")
        print(f"{'':<{width}}  {what}")
    return 0


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    dirs = [d for d in sys.argv[2:] if os.path.isdir(os.path.join(ROOT, d))]
    if cmd == "public-calls" and dirs:
        return public_calls(dirs)
    if cmd == "cycles" and dirs:
        return cycles(dirs)
    if cmd == "layers":
        return layers()
    if cmd == "table":
        return table()
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
