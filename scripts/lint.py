#!/usr/bin/env python3
"""Size caps on polymask's modules: the lint step's check beside ruff.

A module past its cap has grown a second job; it splits along its seams
rather than the cap moving (docs/contributing.md).  scripts/test.sh runs
this after ruff:

    python scripts/lint.py        # exit 1, naming every file over its cap

Lines are counted as ``wc -l`` counts them.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "polymask"

#: Every Python and Cython module of the package (sources, declarations, stubs).
SUFFIXES = (".py", ".pyx", ".pxd", ".pyi")
#: The most lines a module may have.
MAX_LINES = 400
#: Tighter caps, each with its reason.  (A looser cap for one file would go here too,
#: with the reason it cannot split; there is none today.)
CAPS = {
    "bench/__init__.py": (150, "the CLI entry only: table, sweep and progress live in their own modules"),
}


def over_cap() -> list[str]:
    """One line per module over its cap, naming the file, its length and the cap."""
    found = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file():
            continue
        name = path.relative_to(PACKAGE).as_posix()
        cap, reason = CAPS.get(name, (MAX_LINES, "every module"))
        lines = path.read_bytes().count(b"\n")
        if lines > cap:
            found.append(f"src/polymask/{name}: {lines} lines, cap {cap} ({reason})")
    return found


def main() -> int:
    missing = [name for name in CAPS if not (PACKAGE / name).is_file()]
    problems = [f"src/polymask/{name}: has a cap in scripts/lint.py but does not exist" for name in missing]
    problems += over_cap()
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
