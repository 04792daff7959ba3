"""The documentation's code fits its column: no code line past 88 characters.

The site's code blocks are as wide as 88 characters before they scroll; a
command or an example cut off at the edge is one a reader copies wrongly or
not at all.  Both sources of code on the site are checked: the fenced blocks
of the pages in docs/ and the examples of the public docstrings, which the API
reference shows.
"""
from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 88
FENCE = re.compile(r"^[ \t]*```(\S*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)
PAGES = sorted(page for page in (ROOT / "docs").rglob("*.md") if "_build" not in page.parts)
#: The modules whose docstrings the API reference renders.
MODULES = ["polymask", "polymask.coco", "polymask.dask", "polymask.xarray", "polymask.opencl",
           "polymask.course.stages", "polymask.course.checker"]


def long_code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of each line of a fenced block of a Markdown page that is wider than WIDTH."""
    found = []
    for block in FENCE.finditer(text):
        first = text.count("\n", 0, block.start()) + 2
        found += [(first + k, line) for k, line in enumerate(block.group(2).split("\n")) if len(line) > WIDTH]
    return found


def test_the_finder_sees_a_long_line_in_a_block_only():
    text = "x" * 100 + "\n```bash\nshort\n" + "y" * 89 + "\n```\n"
    assert long_code_lines(text) == [(4, "y" * 89)]


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_page_code_blocks_fit(page):
    assert long_code_lines(page.read_text(encoding="utf-8")) == []


def _documented(module_name: str):
    module = importlib.import_module(module_name)
    for name in getattr(module, "__all__", []):
        value = getattr(module, name)
        yield f"{module_name}.{name}", value
        if inspect.isclass(value):
            yield from ((f"{module_name}.{name}.{member}", attribute) for member, attribute in vars(value).items()
                        if not member.startswith("_"))


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_fit(module_name):
    wide = [(name, line.strip()) for name, value in _documented(module_name)
            for line in (inspect.getdoc(value) or "").split("\n")
            if line.lstrip().startswith((">>>", "...")) and len(line) > WIDTH]
    assert wide == []
