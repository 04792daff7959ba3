#!/usr/bin/env python3
"""Size caps on polymask's modules: the lint step's check beside ruff.

A module past its cap has grown a second job; it splits along its seams
rather than the cap moving (docs/contributing.md).  The caps cover the
package (src/polymask: Python and Cython), the C++ core with its tests,
benchmarks and fuzzer (csrc: .cpp, .hpp, .h), the OpenCL kernels
(kernels: .cl) and the Python tests and benchmarks (tests, benchmarks).
scripts/test.sh runs this after ruff:

    python scripts/lint.py        # exit 1, naming every file over its cap

Lines are counted as ``wc -l`` counts them, less the docstrings of a Python
module, its classes and functions: a public function's reference (its
Parameters, Returns, Raises and Examples sections, which the docs build
requires) lives beside its code by convention and is not a second job.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Each capped tree (relative to the repository) and the suffixes capped in it.
TREES = {
    # Every Python and Cython module of the package (sources, declarations, stubs).
    "src/polymask": (".py", ".pyx", ".pxd", ".pyi"),
    # The C++ core, its internal and public headers, its tests, benchmarks and fuzzer.
    "csrc": (".cpp", ".hpp", ".h"),
    # The OpenCL kernels the package ships.
    "kernels": (".cl",),
    # The Python tests and benchmarks, with their support modules.
    "tests": (".py",),
    "benchmarks": (".py",),
}
#: The most lines a module may have.
MAX_LINES = 400
#: Tighter caps, each with its reason, by path from the repository root.  (A looser
#: cap for one file would go here too, with the reason it cannot split; there is
#: none today.)
CAPS = {
    "src/polymask/bench/__init__.py": (150, "the CLI entry only: table, sweep and progress live in their own modules"),
}


def capped_files() -> list[Path]:
    """Every file the caps apply to, in a stable order."""
    found = []
    for tree, suffixes in TREES.items():
        found += [path for path in (ROOT / tree).rglob("*") if path.suffix in suffixes and path.is_file()]
    return sorted(found)


def docstring_lines(source: str) -> int:
    """How many lines of a Python source are docstrings (of the module, its classes and functions)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a Cython or broken file: counted whole
        return 0
    total = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str) and first.end_lineno is not None):
                total += first.end_lineno - first.lineno + 1
    return total


def counted_lines(path: Path) -> int:
    """The lines a file is held to its cap by: all of them, less a Python file's docstrings."""
    data = path.read_bytes()
    lines = data.count(b"\n")
    if path.suffix in (".py", ".pyi"):
        lines -= docstring_lines(data.decode("utf-8", errors="replace"))
    return lines


def over_cap() -> list[str]:
    """One line per module over its cap, naming the file, its length and the cap."""
    found = []
    for path in capped_files():
        name = path.relative_to(ROOT).as_posix()
        cap, reason = CAPS.get(name, (MAX_LINES, "every module"))
        lines = counted_lines(path)
        if lines > cap:
            found.append(f"{name}: {lines} lines without docstrings, cap {cap} ({reason})")
    return found


def main() -> int:
    missing = [name for name in CAPS if not (ROOT / name).is_file()]
    problems = [f"{name}: has a cap in scripts/lint.py but does not exist" for name in missing]
    problems += over_cap()
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
