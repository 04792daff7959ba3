"""What the checker reads in the learner's source before (and after) running it.

* **Borrowed answers.**  An exercise is to compute the mask; a file that
  imports polymask's own mask-computing functions is refused before it is
  built, with the line that does it.  ``polymask.get_include()`` and
  ``get_library_dirs()`` stay allowed, and ``cimport polymask.core`` is how
  exercises 05 and 06 reach the core they are given.
* **The kind of file.**  Declarations Python cannot see at run time (a
  ``cdef`` function, a ``cdef class``, a ``cdef extern`` block) are looked
  for in the comment-free source; what Python can see is checked by the
  worker with ``inspect``.
* **The yellow lines.**  Exercise 03 is about removing Python from the
  pixel loop.  Cython's own annotation (``cython -a``) scores every line by
  how much it calls the Python C API; every line of every loop must score 0.
"""
from __future__ import annotations

import html
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polymask.course.checker import tokens
from polymask.course.checker.exercises import Exercise

#: The most of a learner's file the checker reads (a solution is a few KiB).
MAX_SOURCE_BYTES = 256 * 1024

#: What learner code may use from polymask (nothing here computes a mask).
ALLOWED_NAMES = frozenset({"get_include", "get_library_dirs", "build_info", "__version__"})

_IMPORTS = (
    # import polymask / import polymask.course.stages as s   ("cimport" is not matched: \b needs a boundary)
    re.compile(r"^[ \t]*import[ \t]+(?P<module>polymask(?:\.[\w.]+)?)", re.MULTILINE),
    # from polymask import mask / from polymask.course.stages import scanline
    re.compile(r"^[ \t]*from[ \t]+(?P<module>polymask(?:\.[\w.]+)?)[ \t]+import[ \t]+(?P<names>\(?[^\n)]*\)?)",
               re.MULTILINE),
    # __import__("polymask") / importlib.import_module("polymask.course.stages")
    re.compile(r"""(?:__import__|import_module)\s*\(\s*['"](?P<module>polymask[\w.]*)['"]"""),
)


def read_source(path: Path) -> str:
    """The learner's file, read no further than MAX_SOURCE_BYTES (the checker refuses bigger ones)."""
    with open(path, "rb") as handle:
        return handle.read(MAX_SOURCE_BYTES).decode("utf-8", errors="replace")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def borrowed_answer(source: str, kind: str) -> str | None:
    """Why `source` uses polymask to compute its mask, or None when it does not."""
    if kind == "cl":
        return None
    code = tokens.code(source, kind, keep_strings=True)
    lines = source.splitlines()
    used = set(re.findall(r"\bpolymask\.(\w+)", code))
    for pattern in _IMPORTS:
        for match in pattern.finditer(code):
            module = match.group("module")
            names = match.groupdict().get("names")
            if names is not None and module == "polymask":
                imported = {part.strip().split(" as ")[0].strip() for part in names.strip("()").split(",")}
                if imported <= ALLOWED_NAMES:
                    continue
                what = ", ".join(sorted(imported - ALLOWED_NAMES))
            elif module == "polymask" and names is None and "import_module" not in match.group(0) \
                    and "__import__" not in match.group(0):
                # `import polymask`: fine as long as only the build helpers are used.
                if used <= ALLOWED_NAMES:
                    continue
                what = ", ".join(f"polymask.{name}" for name in sorted(used - ALLOWED_NAMES))
            else:
                what = module
            line = _line_of(code, match.start("module"))
            return (f"line {line} (`{lines[line - 1].strip()}`) uses polymask's own {what}; this exercise "
                    "asks you to compute the mask yourself, so the checker does not run a file that borrows "
                    "the answer. Only polymask.get_include() / get_library_dirs() (and `cimport polymask.core` "
                    "where the exercise gives it) may be used.")
    return None


# A quoted or bracketed file name that reaches into polymask's own sources or binaries.
_POLYMASK_FILE = re.compile(r"""["'<](?P<name>[^"'<>\n]{0,300}polymask[^"'<>\n]{0,300}"""
                            r"""\.(?:h|hpp|hh|c|cc|cpp|pxd|pxi|pyx|cl|so))["'>]""")
_CL_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*(?P<name>[^\n]*)", re.MULTILINE)
#: The one polymask header a learner's .pyx may name (exercise 04's extern block).
GIVEN_HEADERS = frozenset({"polymask/core.hpp"})


def foreign_include(source: str, kind: str) -> str | None:
    """Why `source` reaches for a file of polymask's the exercise does not hand out, or None."""
    code = tokens.code(source, kind, keep_strings=True)
    if kind == "cl":
        for match in _CL_INCLUDE.finditer(code):
            name = match.group("name").strip()
            if name.strip('"<>') != "precision.h":
                return (f"line {_line_of(code, match.start())} includes {name}; an exercise 07 kernel is built with "
                        "the precision header only (#include \"precision.h\" is the one include allowed).")
        return None
    for match in _POLYMASK_FILE.finditer(code):
        if match.group("name") not in GIVEN_HEADERS:
            return (f"line {_line_of(code, match.start())} names {match.group('name')!r}, a file of polymask's that "
                    "this exercise does not hand out; only \"polymask/core.hpp\" (and `cimport polymask.core` "
                    "where the exercise gives it) may be used.")
    return None


#: The `# cython:` directives a learner's file may set: none changes what is compiled or linked.
ALLOWED_DIRECTIVES = frozenset({
    "language_level", "boundscheck", "wraparound", "cdivision", "cdivision_warnings", "initializedcheck",
    "nonecheck", "overflowcheck", "infer_types", "embedsignature", "binding", "always_allow_keywords",
    "profile", "linetrace", "cpow", "annotation_typing", "legacy_implicit_noexcept", "c_string_type",
    "c_string_encoding", "optimize.use_switch", "optimize.unpack_method_calls", "warn.undeclared",
    "warn.unreachable", "warn.maybe_uninitialized", "warn.unused", "warn.unused_arg", "warn.unused_result",
    "freethreading_compatible", "auto_pickle", "c_api_binop_methods", "emit_code_comments"})
_BUILD_COMMENT = re.compile(r"^[ \t]*#[ \t]*(?P<kind>distutils|cython)[ \t]*:(?P<body>[^\n]*)",
                            re.MULTILINE | re.IGNORECASE)


def build_refusal(source: str, kind: str) -> str | None:
    """Why `source` tries to change its own build, or None.  The checker builds every exercise with one
    fixed description (the include paths, libraries and flags the exercise needs)."""
    if kind != "pyx":
        return None
    for match in _BUILD_COMMENT.finditer(source):
        line = _line_of(source, match.start())
        quoted = match.group(0).strip()[:120]
        if match.group("kind").lower() == "distutils":
            return (f"line {line} (`{quoted}`) sets build options; the checker builds every exercise with one "
                    "fixed configuration (the include paths, libraries and compiler and linker flags the exercise "
                    "needs), so `# distutils:` lines are not allowed: remove it.")
        names = [part.split("=", 1)[0].strip() for part in match.group("body").split(",") if part.strip()]
        unknown = [name for name in names if name not in ALLOWED_DIRECTIVES]
        if unknown:
            return (f"line {line} (`{quoted}`) sets the Cython directive {unknown[0]!r}, which the checker does "
                    "not allow; the build is fixed, and only directives that change how Cython writes your code "
                    f"may be set ({', '.join(sorted(ALLOWED_DIRECTIVES)[:8])}, ...).")
    return None


def missing_declarations(source: str, exercise: Exercise) -> list[str]:
    """The declarations `exercise` needs that `source` lacks (names for the report)."""
    code = tokens.code(source, exercise.kind)
    return [what for pattern, what in exercise.declarations if not re.search(pattern, code)]


# ---- Cython's annotation: which lines are yellow ----------------------------------------------


@dataclass(frozen=True)
class YellowLine:
    number: int
    score: int
    text: str


_ANNOTATED_LINE = re.compile(r'<pre class="cython line score-(?P<score>\d+)"[^>]*>.*?<span class="">(?P<number>\d+)'
                             r"</span>:(?P<text>.*?)</pre>", re.DOTALL)


def annotation_scores(path: Path, include_path: list[str], confine=None) -> dict[int, int]:
    """{line number: Cython's score} for the .pyx at `path` (0: no Python C API on that line).

    `confine(command, folder)` -> (command, environment) runs Cython confined (see build_cython)."""
    with tempfile.TemporaryDirectory(prefix="polymask-annotate-") as scratch:
        copy = Path(scratch) / "learner.pyx"
        copy.write_text(read_source(path), encoding="utf-8")
        command = [sys.executable, "-m", "cython", "--annotate", "--cplus", "-3", str(copy)]
        for folder in include_path:
            command[3:3] = ["-I", folder]
        environment = None
        if confine is not None:
            command, environment = confine(command, Path(scratch))
        completed = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False,
                                   env=environment)
        page = copy.with_suffix(".html")
        if completed.returncode != 0 or not page.is_file():
            raise RuntimeError(f"cython --annotate failed on {path}:\n{completed.stderr or completed.stdout}")
        return {int(match["number"]): int(match["score"]) for match in _ANNOTATED_LINE.finditer(page.read_text())}


def _blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first, last, header) line numbers of every indented block, in one pass (a stack of open blocks)."""
    found: list[tuple[int, int, str]] = []
    open_blocks: list[list[Any]] = []  # [indent, first line, last line, header]
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        while open_blocks and indent <= open_blocks[-1][0]:
            block = open_blocks.pop()
            found.append((block[1], block[2], block[3]))
        for block in open_blocks:
            block[2] = number
        open_blocks.append([indent, number, number, stripped])
    found.extend((block[1], block[2], block[3]) for block in open_blocks)
    return found


def _has_for_in(line: str) -> bool:
    """Whether `for` is followed somewhere by `in` (a comprehension or loop), in time linear in the line.

    The pattern ``\\bfor\\b.+\\bin\\b`` backtracks from every `for` to the end of
    the line: quadratic, 1.3 s for one 32 KiB line of `for`s without an `in` and
    about 80 s at the checker's 256 KiB file limit.
    """
    first_for = re.search(r"\bfor\b", line)
    return first_for is not None and re.search(r"\bin\b", line[first_for.end():]) is not None


def hot_lines(source: str) -> list[int]:
    """Line numbers that run once per pixel or per edge: every loop (header and body), every
    comprehension, every line that builds per-element Python calls (lambda, np.frompyfunc,
    np.vectorize, map), and the whole body of every cdef function the loops call."""
    lines = tokens.code(source, "pyx").splitlines()
    picked: set[int] = set()
    for first, last, header in _blocks(lines):
        if re.match(r"(for|while)\b", header) or (re.match(r"cdef\b", header) and header.endswith(":")
                                                  and "(" in header and not re.match(r"cdef\s+class\b", header)):
            picked.update(range(first, last + 1))
    for number, line in enumerate(lines, start=1):
        if _has_for_in(line) or re.search(r"\blambda\b|frompyfunc|vectorize|\bmap\s*\(", line):
            picked.add(number)
    return sorted(number for number in picked if lines[number - 1].strip())


def yellow_hot_lines(path: Path, include_path: list[str], confine=None) -> list[YellowLine]:
    """The per-pixel lines of the .pyx at `path` that still call into Python, in line order."""
    source = read_source(path)
    text = source.splitlines()
    scores = annotation_scores(path, include_path, confine)
    yellow = [YellowLine(number, scores[number], html.unescape(text[number - 1].strip()))
              for number in hot_lines(source) if scores.get(number, 0) > 0]
    return sorted(yellow, key=lambda line: line.number)
