#!/usr/bin/env python3
"""Check the links of the repository's documentation.

Every Markdown link in README.md and docs/*.md (or in the files given) must resolve: a relative
path must name a file or folder inside the repository, and a #fragment must match a heading of
the target Markdown file under GitHub's anchor rules (lower case, punctuation dropped, spaces to
hyphens, -1, -2, ... for repeated headings) or an explicit <a name> / id anchor. The docs stand
on their own, so a link that leaves the repository (a path above its root, or an absolute URL)
is an error too, unless --allow-urls is given for URLs. Links inside code spans and fenced code
blocks are not links and are skipped.

  scripts/check-doc-links.py [--allow-urls] [FILE.md ...]

Prints one line per broken link (file:line: target: why) and exits 1 if there is any, 0
otherwise. Python 3 standard library only.
"""
import argparse
import os
import re
import sys
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target "title") and ![alt](target); the target may be wrapped in <>.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+\"[^\"\n]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:name|id)\s*=\s*\"([^\"]+)\"", re.I)


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # punctuation, backticks, asterisks
    return text.replace(" ", "-")


def lines_outside_code(path):
    """(line number, text with code spans blanked) for every line outside fenced blocks."""
    with open(path, encoding="utf-8") as f:
        fenced = None
        prev = ""  # "blank", "code" or "text": an indented line is code only after blank or code
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if m:
                if fenced is None:
                    fenced = m.group(1)
                elif m.group(1) == fenced:
                    fenced = None
                prev = "code"
                continue
            if fenced is not None:
                continue
            if not line.strip():
                prev = "blank" if prev != "code" else "code"
                yield n, ""
            elif line.startswith("    ") and prev in ("blank", "code"):
                prev = "code"
                yield n, ""  # an indented code block: no links
            else:
                prev = "text"
                yield n, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        seen, found = {}, set()
        with open(path, encoding="utf-8") as f:
            raw = f.read().split("\n")
        fenced = None
        for line in raw:
            m = FENCE.match(line)
            if m:
                fenced = m.group(1) if fenced is None else (None if m.group(1) == fenced else fenced)
                continue
            if fenced is not None:
                continue
            found.update(HTML_ANCHOR.findall(line))
            h = HEADING.match(line)
            if not h:
                continue
            base = slug(h.group(2))
            k = seen.get(base, 0)
            seen[base] = k + 1
            found.add(base if k == 0 else "%s-%d" % (base, k))
        _anchor_cache[path] = found
    return _anchor_cache[path]


def check_target(src, target, allow_urls):
    """None when the link resolves, else why not."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    parsed = urllib.parse.urlsplit(target)
    if parsed.scheme or target.startswith("//"):
        if allow_urls:
            return None
        return "a link outside the repository (the docs must stand on their own)"
    path = urllib.parse.unquote(parsed.path)
    fragment = urllib.parse.unquote(parsed.fragment)
    if path:
        if path.startswith("/"):
            dest = os.path.normpath(os.path.join(ROOT, path.lstrip("/")))
        else:
            dest = os.path.normpath(os.path.join(os.path.dirname(src), path))
        if os.path.commonpath([ROOT, dest]) != ROOT:
            return "leaves the repository"
        if not os.path.exists(dest):
            return "no such file"
    else:
        dest = src
    if fragment:
        if not dest.endswith(".md") or os.path.isdir(dest):
            return None  # anchors of other files (line numbers of source files) are not checked
        if fragment not in anchors(dest):
            return "no heading with the anchor #%s in %s" % (fragment, os.path.relpath(dest, ROOT))
    return None


def default_files():
    files = [os.path.join(ROOT, "README.md")]
    docs = os.path.join(ROOT, "docs")
    for dirpath, _, names in os.walk(docs):
        files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".md")]
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--allow-urls", action="store_true", help="accept absolute URLs")
    ap.add_argument("files", nargs="*", help="Markdown files (default: README.md, docs/**/*.md)")
    args = ap.parse_args()
    files = [os.path.abspath(f) for f in args.files] or default_files()
    broken = checked = 0
    for src in files:
        lines = dict(lines_outside_code(src))
        text = "\n".join(lines.get(n, "") for n in range(1, max(lines, default=0) + 1))
        targets = []  # (line, target); a link's text may run over several lines
        for m in INLINE.finditer(text):
            targets.append((text.count("\n", 0, m.start(1)) + 1, m.group(1)))
        for n, line in lines.items():
            m = REFDEF.match(line)
            if m:
                targets.append((n, m.group(1)))
        for n, t in sorted(targets):
            checked += 1
            why = check_target(src, t, args.allow_urls)
            if why:
                broken += 1
                print("%s:%d: %s: %s" % (os.path.relpath(src, ROOT), n, t, why))
    print("check-doc-links: %d links in %d files, %d broken" % (checked, len(files), broken),
          file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
