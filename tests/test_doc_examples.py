"""Every Python example in the README and the documentation runs, and prints what it shows.

The pages are Markdown; a Python example is a fenced ``python`` (or ``pycon``)
block written as an interactive session (``>>>`` lines and the output they
print).  The blocks of one page run in order in one namespace, in a fresh
temporary folder, the way a reader would type them, and their outputs are
compared with doctest's rules (whitespace normalised, ``...`` matches
anything).  A ``python`` block without ``>>>`` fails: it would run unchecked.
"""
from __future__ import annotations

import doctest
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^[ \t]*```(\w*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)
PYTHON = {"python", "pycon", "py"}
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, source) of each Python block of a Markdown page."""
    return [(text.count("\n", 0, found.start()) + 1, found.group(2))
            for found in FENCE.finditer(text) if found.group(1) in PYTHON]


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_page_examples_run_and_print_what_they_show(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    if not blocks:
        return  # a page without Python examples (commands and prose only)
    unchecked = [line for line, source in blocks if ">>>" not in source]
    assert not unchecked, f"{page.name}: Python blocks at lines {unchecked} are not >>> sessions"
    parser, globs = doctest.DocTestParser(), {"__name__": "__doc_examples__"}
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for line, source in blocks:
        test = parser.get_doctest(source, globs, f"{page.relative_to(ROOT)}", str(page), line)
        runner.run(test, clear_globs=False)
        globs.update(test.globs)          # the next block sees what this one defined
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples in {page.name} failed (above)"


def test_the_block_finder_sees_python_blocks_only():
    text = "```python\n>>> 1 + 1\n2\n```\n\n```bash\necho hi\n```\n\n```pycon\n>>> 3\n3\n```\n"
    assert [source for _, source in python_blocks(text)] == [">>> 1 + 1\n2\n", ">>> 3\n3\n"]


def test_an_example_with_a_wrong_output_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\n>>> 1 + 1\n3\n```\n", encoding="utf-8")
    line, source = python_blocks(page.read_text())[0]
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with open(os.devnull, "w") as sink:
        runner.run(doctest.DocTestParser().get_doctest(source, {}, "page", str(page), line), out=sink.write)
    assert runner.summarize(verbose=False).failed == 1


def prose_in(source: str) -> list[str]:
    """Lines of a >>> session that are neither code nor the output printed right after it."""
    return [part.strip() for part in doctest.DocTestParser().parse(source) if isinstance(part, str) and part.strip()]


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_python_blocks_paste_as_code(page):
    # The copy button copies a block's >>> and ... lines without their prompts and outputs;
    # prose inside the block would be silently skipped by doctest and pasted as a SyntaxError.
    for line, source in python_blocks(page.read_text(encoding="utf-8")):
        assert not prose_in(source), f"{page.name}:{line}: prose inside a Python block: {prose_in(source)}"
        code = "".join(example.source for example in doctest.DocTestParser().get_examples(source))
        compile(code, f"{page.name}:{line}", "exec")


def test_prose_after_an_output_is_found():
    session = ">>> 1 + 1\n2\n\nthen a sentence\n\n>>> 3\n3\n"
    assert prose_in(session) == ["then a sentence"]
    assert prose_in(">>> 1 + 1\n2\n") == []
