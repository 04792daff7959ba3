"""Build the lesson notebooks (notebooks/NN_*.ipynb) from their readable sources.

Each lesson is written as a plain Python file in notebooks/src/, in the
"percent" format Jupytext and editors understand: ``# %%`` starts a code
cell, ``# %% [markdown]`` a markdown cell whose lines start with ``# ``.
The .ipynb files are committed without outputs, so a learner opens a clean
notebook; the tests execute every one of them and check they match their
source.

    python notebooks/build.py           # rewrite the notebooks
    python notebooks/build.py --check   # exit 1 if a notebook is out of date
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

NOTEBOOKS_DIR = Path(__file__).resolve().parent
SOURCES_DIR = NOTEBOOKS_DIR / "src"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def cells_of(source: str) -> list:
    """The notebook cells of a percent-format source."""
    cells, kind, lines = [], None, []

    def close():
        text = "\n".join(lines).strip("\n")
        if kind == "markdown":
            cells.append(nbformat.v4.new_markdown_cell(text))
        elif kind == "code" and text:
            cells.append(nbformat.v4.new_code_cell(text))

    for line in source.splitlines():
        if line.startswith("# %%"):
            close()
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        elif kind == "markdown":
            lines.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
        elif kind == "code":
            lines.append(line)
    close()
    return cells


def notebook_of(source_path: Path) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = cells_of(source_path.read_text(encoding="utf-8"))
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    notebook.metadata["language_info"] = {"name": "python"}
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"{source_path.stem[:2]}-{number:02d}"  # stable ids: rebuilding changes nothing
    return notebook


def text_of(notebook) -> str:
    return nbformat.writes(notebook) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report notebooks that are out of date")
    args = parser.parse_args(argv)
    stale = []
    for source_path in sorted(SOURCES_DIR.glob("[0-9][0-9]_*.py")):
        target = NOTEBOOKS_DIR / f"{source_path.stem}.ipynb"
        text = text_of(notebook_of(source_path))
        if target.is_file() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(target.name)
        if not args.check:
            target.write_text(text, encoding="utf-8")
            print(f"wrote notebooks/{target.name}")
    if args.check and stale:
        print("out of date (run python notebooks/build.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
