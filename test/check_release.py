#!/usr/bin/env python3
"""check_release.py: the release metadata agrees with the control file.

The extension's version lives in one place, `default_version` in
gpu_histogram.control; everything else that names it follows, and this
check fails when one does not:
  - META.json (PGXN): its version and the extension's, as the semantic
    version of the control file's (1.2 -> 1.2.0), the PostgreSQL license,
    and its install script existing;
  - CHANGELOG.md: a section for every version the SQL scripts reach, the
    newest first after "Unreleased", the newest being default_version;
  - extension/sql/: an install script and a chain of update scripts that
    reaches default_version from it, every one of them installed by the
    Makefile (DATA);
  - debian/changelog: its newest entry is the same version;
  - LICENSE: present, and the PostgreSQL License.

    python3 test/check_release.py      # from anywhere; exit 1 on a mismatch
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def control_version():
    text = (ROOT / "gpu_histogram.control").read_text(encoding="utf-8")
    found = re.search(r"^default_version\s*=\s*'([^']+)'", text, re.M)
    return found.group(1) if found else None


def semver(version):
    parts = version.split(".")
    return ".".join(parts + ["0"] * (3 - len(parts)))


def scripts():
    """The install scripts' versions and the update scripts' (from, to) pairs."""
    installs, updates = [], []
    for path in sorted((ROOT / "extension" / "sql").glob("gpu_histogram--*.sql")):
        versions = path.stem.split("--")[1:]
        if len(versions) == 1:
            installs.append(versions[0])
        else:
            updates.append((versions[0], versions[1]))
    return installs, updates


def reachable(installs, updates):
    seen, todo = set(installs), list(installs)
    while todo:
        v = todo.pop()
        for a, b in updates:
            if a == v and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def installed_by_make():
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^DATA\s*=\s*((?:[^\n]*\\\n)*[^\n]*)", make, re.M)
    return found.group(1) if found else ""


def main():
    problems = []
    version = control_version()
    if version is None:
        print("gpu_histogram.control has no default_version")
        return 1

    meta = json.loads((ROOT / "META.json").read_text(encoding="utf-8"))
    if meta.get("version") != semver(version):
        problems.append(f"META.json version {meta.get('version')!r}, control {version!r} (expected {semver(version)!r})")
    provided = meta.get("provides", {}).get("gpu_histogram", {})
    if provided.get("version") != semver(version):
        problems.append(f"META.json provides gpu_histogram {provided.get('version')!r}, expected {semver(version)!r}")
    if not (ROOT / provided.get("file", "-")).is_file():
        problems.append(f"META.json's file {provided.get('file')!r} does not exist")
    if meta.get("license") != "postgresql":
        problems.append(f"META.json license {meta.get('license')!r}, expected 'postgresql'")

    installs, updates = scripts()
    versions = reachable(installs, updates)
    if version not in versions:
        problems.append(f"no install or update script reaches {version} (reached: {sorted(versions)})")
    if "wildcard" not in installed_by_make():
        listed = installed_by_make()
        for path in (ROOT / "extension" / "sql").glob("gpu_histogram--*.sql"):
            if str(path.relative_to(ROOT)) not in listed:
                problems.append(f"the Makefile's DATA does not install {path.relative_to(ROOT)}")

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (\S+)", changelog, re.M)
    released = [s for s in sections if s != "Unreleased"]
    if not released or released[0] != version:
        problems.append(f"CHANGELOG.md's newest release is {released[:1]}, the control file's {version!r}")
    for v in sorted(versions):
        if v not in released:
            problems.append(f"CHANGELOG.md has no section for {v}")

    debian = ROOT / "debian" / "changelog"
    if debian.is_file():
        first = debian.read_text(encoding="utf-8").splitlines()[0]
        found = re.match(r"^\S+ \(([^)]+)\)", first)
        debversion = found.group(1).split("-")[0] if found else None
        if debversion != version:
            problems.append(f"debian/changelog's version {debversion!r}, the control file's {version!r}")
    else:
        problems.append("no debian/changelog")

    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8") if (ROOT / "LICENSE").is_file() else ""
    if "Permission to use, copy, modify, and distribute this software" not in license_text:
        problems.append("LICENSE is missing or is not the PostgreSQL License")

    for p in problems:
        print(p)
    print(f"release metadata: {len(problems)} problems; version {version} "
          f"(META.json {meta.get('version')}, CHANGELOG {released[:1]}, scripts reach {sorted(versions)})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
