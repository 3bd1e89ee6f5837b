#!/usr/bin/env python3
"""check_doc_links.py: checks the relative links of README.md and docs/*.md.

The README links into docs/ and the pages link into each other by heading
anchors, so moving or renaming a section can leave a link pointing nowhere;
this finds every such link. Every link to a file must name a file of the
repository, and every #anchor must match a heading of its target, computed
as GitHub computes anchors. It also checks that docs/layout.md, the map of
the code, names every source file of extension/ and gpu/, and that every
path a source comment names (`scan/grouped/table/group_agg.h`, `exec_read.cpp`)
is a file of the repository or a PostgreSQL header: a file that moves leaves
none behind. Links to other sites (http:, https:, mailto:) are not followed,
and links inside code are not links.

    python3 test/check_doc_links.py      # from anywhere; exit 1 on a broken link
"""
import fnmatch
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose(path):
    """The file's lines outside fenced code blocks, with inline code removed."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, line


def anchors(path):
    """GitHub's anchors for the headings of a Markdown file."""
    seen, result = {}, set()
    for _, line in prose(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))  # a link keeps its text
        slug = re.sub(r"[^\w\- ]", "", text.lower().replace("`", "")).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else f"{slug}-{n}")
    return result


SOURCE_SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".sql")


def unnamed_sources():
    """The source files of extension/ and gpu/ that docs/layout.md does not name.

    A file is named by its name, by its stem with .* (`histogram_state.*`),
    or by a pattern in backticks (`kernel_*.cuh`)."""
    names = re.findall(r"`([^`]+)`", (ROOT / "docs" / "layout.md").read_text(encoding="utf-8"))
    missing = []
    for top in ("extension", "gpu"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            base, stem = path.name, path.name.split(".")[0]
            if not any(n == base or n == stem + ".*" or n.endswith("/" + base) or
                       ("*" in n and fnmatch.fnmatch(base, n)) for n in names):
                missing.append(str(path.relative_to(ROOT)))
    return missing


# A path in a comment: a file name with a source or script suffix, perhaps with folders before it.
COMMENT_PATH = re.compile(r"(?<![\w./*-])((?:[\w.-]+/)*[\w-]+\.(?:h|cpp|cuh|cu|sql|sh|py|md))(?![\w/])")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# Sources of other projects that comments cite (TimescaleDB's, PostgreSQL's own tree).
FOREIGN_PREFIXES = ("tsl/", "src/")


def pg_include_dir():
    """PostgreSQL's server headers, if pg_config is there (comments cite them too)."""
    try:
        out = subprocess.run(["pg_config", "--includedir-server"], capture_output=True, text=True, check=True)
        return pathlib.Path(out.stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        return None


def stale_comment_paths():
    """(file, line, path) for each path a source comment names that no file has."""
    files = [p for top in ("extension", "gpu", "test") for p in sorted((ROOT / top).rglob("*"))
             if p.suffix in (".cpp", ".h", ".cu", ".cuh") and p.is_file()]
    try:  # the repository's files, not a build's
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
        repo = set(listed.stdout.split())
    except (OSError, subprocess.CalledProcessError):
        repo = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts}
    names = {pathlib.PurePath(p).name for p in repo}
    pg = pg_include_dir()
    pg_names = {p.name for p in pg.rglob("*.h")} if pg is not None else None
    stale = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        folder = path.parent.relative_to(ROOT)
        for comment in COMMENT.finditer(text):
            for named in COMMENT_PATH.findall(comment.group(0)):
                if named.startswith(FOREIGN_PREFIXES):
                    continue
                if "/" in named:
                    near = os.path.normpath(str(folder / named))
                    found = near in repo or named in repo or any(r.endswith("/" + named) for r in repo) or \
                        pg is None or (pg / named).exists()
                else:
                    found = named in names or pg_names is None or named in pg_names
                if not found:
                    line = text.count("\n", 0, comment.start()) + 1
                    stale.append((str(path.relative_to(ROOT)), line, named))
    return stale


def main():
    files = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    problems = checked = 0
    for source in files:
        for number, line in prose(source):
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z]+:", target):
                    continue
                checked += 1
                name, _, anchor = target.partition("#")
                dest = (source.parent / name).resolve() if name else source
                where = f"{source.relative_to(ROOT)}:{number}: ({target})"
                if not dest.exists():
                    print(f"{where}: no such file")
                    problems += 1
                elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
                    print(f"{where}: no heading with this anchor in {dest.relative_to(ROOT)}")
                    problems += 1
    missing = unnamed_sources()
    for path in missing:
        print(f"docs/layout.md does not name {path}")
    stale = stale_comment_paths()
    for path, line, named in stale:
        print(f"{path}:{line}: a comment names {named}, which is no file")
    print(f"{checked} relative links in {len(files)} files, {problems} broken; "
          f"{len(missing)} source files missing from docs/layout.md; {len(stale)} stale paths in comments")
    return 1 if problems or missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
