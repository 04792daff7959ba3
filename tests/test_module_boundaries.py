"""Module boundaries of the package: no private name crosses a module, and no module outgrows the cap.

What two modules share is a named internal function of the module that
owns it (``label_values``), not a private one reached from outside
(``_label_values``); a private module imported whole (``from polymask
import _core``) is fine.  Every module of src/polymask holds at most 400
lines counting every line, docstrings included.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "polymask"
SOURCES = sorted(path for path in PACKAGE.rglob("*") if path.suffix in (".py", ".pyx", ".pxd", ".pyi"))
MAX_LINES = 400

#: `from polymask.x import a, b as c` in a Cython file (ast cannot read Cython).
CYTHON_IMPORT = re.compile(r"^\s*from\s+(polymask[\w.]*)\s+c?import\s+\(?([^)#\n]*(?:\n[^)#]*)*)\)?", re.MULTILINE)


def _is_module(name: str) -> bool:
    parts = name.split(".")
    folder = PACKAGE.joinpath(*parts[1:])
    return folder.is_dir() or any(folder.with_suffix(suffix).is_file() for suffix in (".py", ".pyx", ".pyi"))


def private_imports(path: Path, source: str) -> list[str]:
    """`module.name` for each private name (not a module) that `source` imports from another polymask module."""
    found = []
    if path.suffix in (".py", ".pyi"):
        pairs = [
            (node.module, alias.name)
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("polymask")
            for alias in node.names
        ]
    else:
        pairs = [
            (module, item.split(" as ")[0].strip())
            for module, names in CYTHON_IMPORT.findall(source)
            for item in names.replace("\n", " ").split(",")
            if item.strip()
        ]
    for module, name in pairs:
        if name.startswith("_") and not name.startswith("__") and not _is_module(f"{module}.{name}"):
            found.append(f"{module}.{name}")
    return found


def test_no_private_name_is_imported_across_modules():
    crossings = {
        path.relative_to(PACKAGE).as_posix(): names
        for path in SOURCES
        if (names := private_imports(path, path.read_text(encoding="utf-8")))
    }
    assert crossings == {}


def test_the_private_import_check_finds_one():
    source = "from polymask._rasterize import _label_values, merged_burn\nfrom polymask import _core\n"
    assert private_imports(Path("a.py"), source) == ["polymask._rasterize._label_values"]
    cython = "from polymask._outputs import (\n    MASK_HINT, _hidden as hidden,\n)\nfrom polymask import _core\n"
    assert private_imports(Path("a.pyx"), cython) == ["polymask._outputs._hidden"]


def test_every_module_holds_at_most_400_lines_counting_every_line():
    long = {
        path.relative_to(PACKAGE).as_posix(): count
        for path in SOURCES
        if (count := path.read_bytes().count(b"\n")) > MAX_LINES
    }
    assert long == {}
