"""What the compiler will read, not what the lines look like: the views the source scans use.

* **OpenCL C** is read as its preprocessor reads it: line splices (a
  backslash before the newline) joined first, ``%:`` read as ``#``, then
  comments removed outside string literals.  ``#inc\\`` + newline + ``lude``
  is an ``#include``.
* **Python and Cython** are read through Python's tokenizer: comments go,
  and so do the contents of string literals -- a docstring that says
  ``cdef class Polygon`` declares nothing -- except the file names a
  ``cdef extern from`` or an ``include`` statement reads, which are code.
  A file the tokenizer cannot read (Cython syntax it does not know) falls
  back to a scan that drops ``#`` comments outside quotes.

Every view keeps the line numbers of the file, so a report can quote the line.
"""
from __future__ import annotations

import io
import re
import tokenize


def splice_lines(source: str) -> str:
    """`source` with every backslash-newline removed; the lines it joined stay, blank, after it."""
    lines: list[str] = []
    joined = 0
    for part in re.split(r"\r?\n", source):
        if lines and lines[-1].endswith("\\"):
            lines[-1] = lines[-1][:-1] + part
            joined += 1
        else:
            lines.extend([""] * joined)
            joined = 0
            lines.append(part)
    lines.extend([""] * joined)
    return "\n".join(lines)


def c_code(source: str) -> str:
    """OpenCL C after translation phases 2-3: splices joined, digraph `%:` as `#`, comments gone."""
    text = splice_lines(source)
    out, index, length = [], 0, len(text)
    while index < length:
        char = text[index]
        if char in "\"'":
            end = index + 1
            while end < length and text[end] not in (char, "\n"):
                end += 2 if text[end] == "\\" else 1
            out.append(text[index:end + 1])
            index = end + 1
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = length if end < 0 else end + 2
            out.append(" " + "\n" * text.count("\n", index, end))
            index = end
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = length if end < 0 else end
        else:
            out.append(char)
            index += 1
    return re.sub(r"^([ \t]*)%:", r"\1#", "".join(out), flags=re.MULTILINE)


def _plain_scan(source: str) -> str:
    """Drop '#' comments outside quotes, line by line (for what the tokenizer cannot read)."""
    lines = []
    for line in source.splitlines():
        quote, kept = None, []
        for char in line:
            if quote:
                quote = None if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "#":
                break
            kept.append(char)
        lines.append("".join(kept))
    return "\n".join(lines)


def python_code(source: str, keep_strings: bool = False) -> str:
    """Python or Cython without comments; string contents blanked unless `keep_strings`
    (file names after ``extern from`` and ``include`` are always kept)."""
    lines = source.splitlines()
    out = [list(line) for line in lines]
    previous: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, text, (row, col), (end_row, end_col) = token.type, token.string, token.start, token.end
            if kind == tokenize.COMMENT:
                out[row - 1][col:end_col] = " " * (end_col - col)
            elif kind == tokenize.STRING and not keep_strings and previous[-2:] not in (["extern", "from"],) \
                    and previous[-1:] != ["include"]:
                _blank(out, row, col, end_row, end_col)
            if kind not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT):
                previous = (previous + [text])[-2:]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return _plain_scan(source)
    return "\n".join("".join(line) for line in out)


def _blank(out, row, col, end_row, end_col) -> None:
    """Replace a string literal's body with spaces, keeping its quotes and the lines it spans."""
    if row == end_row:
        out[row - 1][col + 1:end_col - 1] = " " * max(end_col - col - 2, 0)
        return
    out[row - 1][col + 1:] = " " * (len(out[row - 1]) - col - 1)
    for middle in range(row, end_row - 1):
        out[middle] = []
    out[end_row - 1][:max(end_col - 1, 0)] = " " * max(end_col - 1, 0)


def code(source: str, kind: str, keep_strings: bool = False) -> str:
    """The view of `source` (a file of `kind`: "py", "pyx" or "cl") the scans read."""
    return c_code(source) if kind == "cl" else python_code(source, keep_strings)
