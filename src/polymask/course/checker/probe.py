"""Exercise 03: the learner's ``point_inside`` watched at run time, in a second build of their module.

The lesson of 03 is a typed loop that asks the ``cdef point_inside`` about
every pixel.  Names in the source or in the generated C prove nothing: a
loop that calls ``point_inside`` once per row for show, or a
``point_inside`` that reads a table NumPy filled before the loop, both
look like the lesson.  So the checker compiles the C++ Cython generated
for the learner's file a second time, with one line added at the top of
``point_inside``'s body.  That line

* counts the call, in a counter whose name is drawn for this check, and
* shows ``point_inside`` the polygon moved by a secret whole-pixel shift,
  drawn for this check and compiled in (a private copy of the vertices, laid
  out with the strides of the memoryview it was given; the caller's buffer
  is not touched).

Each probed ``mask()`` must then make at least one call per pixel, and
return the mask of the *moved* polygon, computed here afterwards.  Pixels
that come from a table, a NumPy expression or anything else but
``point_inside`` keep the unmoved polygon's mask, and the report says what
was seen.  The polygon asked about reaches past every side of the image, so
a loop that skips pixels outside the polygon's bounding box still asks
about every pixel.

Native code in the learner's module could still find the counter or the
shift in its own process's memory; the docs say what a determined learner
can do.
"""

from __future__ import annotations

import re
import secrets
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from polymask.course.checker import judge
from polymask.course.checker.report import quoted

#: The image of the probe (rows, cols): small, every pixel asked about.
PROBE_SHAPE = (40, 47)
#: How many probed masks, each of a fresh polygon.
PROBE_MASKS = 3
#: The shift's size in pixels, each axis (a sign too): far enough that the moved mask differs.
SHIFT_RANGE = (3, 12)

_HELPER = """
// Added by polymask's checker for this check only: counts the calls of point_inside and shows it the
// polygon moved by a whole-pixel shift, in a private copy laid out like the memoryview it was given.
#include <cstring>
#include <vector>
extern "C" {{
__attribute__((visibility("default"))) long long {counter} = 0;
}}
namespace {{
std::vector<double> {name}_seen;
std::vector<Py_ssize_t> {name}_layout;
std::vector<char> {name}_moved;
Py_ssize_t {name}_low = 0;

void {name}(__Pyx_memviewslice *vertices)
{{
    ++{counter};
    const Py_ssize_t n = vertices->shape[0], across = vertices->strides[0], along = vertices->strides[1];
    if (n <= 0 || vertices->shape[1] != 2 || vertices->data == nullptr) return;
    std::vector<double> now(2 * n);
    for (Py_ssize_t i = 0; i < n; ++i)
        for (Py_ssize_t j = 0; j < 2; ++j)
            std::memcpy(&now[2 * i + j], vertices->data + i * across + j * along, sizeof(double));
    const std::vector<Py_ssize_t> layout{{across, along}};
    if (now != {name}_seen || layout != {name}_layout) {{
        const Py_ssize_t low = (across < 0 ? (n - 1) * across : 0) + (along < 0 ? along : 0);
        const Py_ssize_t high = (across > 0 ? (n - 1) * across : 0) + (along > 0 ? along : 0);
        {name}_moved.assign(static_cast<size_t>(high - low) + sizeof(double), 0);
        for (Py_ssize_t i = 0; i < n; ++i)
            for (Py_ssize_t j = 0; j < 2; ++j) {{
                const double moved = now[2 * i + j] + (j ? {dy} : {dx});
                std::memcpy({name}_moved.data() - low + i * across + j * along, &moved, sizeof(double));
            }}
        {name}_seen = now;
        {name}_layout = layout;
        {name}_low = low;
    }}
    vertices->data = {name}_moved.data() - {name}_low;
}}
}}  // namespace
"""


class ProbeUnavailable(Exception):
    """The generated C has no point_inside the probe can watch (the message says what was found)."""


def instrument(generated: str, module_name: str, shift: tuple[int, int], counter: str) -> str:
    """The C++ `generated` for `module_name` with the counting and moving line at the top of point_inside."""
    prefix = f"{len(module_name)}{module_name}_"
    definition = re.search(
        rf"^[^\n;(]*\b__pyx_f_{prefix}point_inside\((?P<params>[^)\n]*)\)\s*\{{[ \t]*$", generated, re.MULTILINE
    )
    if definition is None:
        raise ProbeUnavailable("the module Cython generated defines no cdef point_inside")
    slices = re.findall(r"__Pyx_memviewslice\s+(\w+)", definition.group("params"))
    if not slices:
        raise ProbeUnavailable(
            f"its cdef point_inside takes no typed memoryview of the vertices (its C "
            f"parameters: {definition.group('params')[:200]})"
        )
    name = f"polymask_probe_{counter.rsplit('_', 1)[-1]}"
    helper = _HELPER.format(counter=counter, name=name, dx=f"{shift[0]:d}.0", dy=f"{shift[1]:d}.0")
    return (
        generated[: definition.start()]
        + helper
        + generated[definition.start() : definition.end()]
        + f"\n    {name}(&{slices[0]});"
        + generated[definition.end() :]
    )


def compile_module(text: str, module_name: str, folder: Path, confine=None) -> Path:
    """Compile the instrumented C++ `text` into an extension module named `module_name` inside `folder`."""
    from polymask.course.build import compile_flags

    source = folder / f"{module_name}.cpp"
    source.write_text(text, encoding="utf-8")
    module = folder / f"{module_name}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
    compile_args, link_args = compile_flags()
    compile_args = [flag for flag in compile_args if not flag.startswith("-O")] + ["-O1"]  # compiles sooner
    compiler = shlex.split(sysconfig.get_config_var("CXX") or "c++")
    found = shutil.which(compiler[0]) or shutil.which("c++")
    if found is None:
        raise OSError("the checker compiles a watched copy of your module with a C++ compiler, and none is on PATH")
    compiler = [found, *compiler[1:]] if shutil.which(compiler[0]) else [found]  # the sandbox runs a full path
    command = [
        *compiler,
        "-shared",
        "-fPIC",
        *compile_args,
        "-I",
        sysconfig.get_paths()["include"],
        "-I",
        np.get_include(),
        str(source),
        "-o",
        str(module),
        *link_args,
    ]
    environment = None
    if confine is not None:
        command, environment = confine(command, folder)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, env=environment)
    source.unlink(missing_ok=True)  # the shift is in it
    if done.returncode != 0 or not module.is_file():
        raise OSError(f"the checker could not compile its watched copy of your module:\n{done.stderr[-2000:]}")
    return module


@contextmanager
def watched_module(built, shift: tuple[int, int], counter: str, confine=None):
    """The path of the learner's module built again with point_inside watched (removed afterwards)."""
    text = instrument(built.generated_cpp, built.module_name, shift, counter)
    folder = Path(tempfile.mkdtemp(prefix="probe-"))
    try:
        yield compile_module(text, built.module_name, folder, confine)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _around(rng, shape) -> np.ndarray:
    """A random polygon of the standard vertex count that reaches past every side of `shape`."""
    from polymask.course.problems import STANDARD_VERTICES

    rows, cols = shape
    vertices = rng.uniform(0.0, [cols, rows], size=(STANDARD_VERTICES, 2))
    corners = [(-3.5, -2.25), (cols + 2.5, -3.0), (cols + 3.25, rows + 2.5), (-2.75, rows + 3.5)]
    for index, corner in zip(sorted(rng.choice(STANDARD_VERTICES, size=4, replace=False)), corners):
        vertices[index] = corner
    return vertices


def draw_shift(rng) -> tuple[int, int]:
    """The secret shift (columns, rows): each between SHIFT_RANGE's bounds in size, either sign."""
    low, high = SHIFT_RANGE
    dx, dy = (int(rng.integers(low, high + 1)) * int(rng.choice([-1, 1])) for _ in range(2))
    return dx, dy


def point_inside_failure(built, start_worker, rng, limit: float, confine=None) -> str | None:
    """03: why mask()'s pixels do not come from point_inside, asked once per pixel at least, or None.

    `start_worker()` starts a sandboxed worker (a context manager) like the one the
    learner's module ran in; the watched build is loaded there.
    """
    phase = "the point_inside probe"
    shift = draw_shift(rng)
    counter = f"polymask_probe_calls_{secrets.token_hex(8)}"
    rows, cols = PROBE_SHAPE
    pixels = rows * cols
    try:
        with watched_module(built, shift, counter, confine) as module, start_worker() as worker:
            load = {
                "op": "load",
                "kind": "pyx",
                "path": str(module),
                "entry_points": ["mask(vertices, shape)"],
                "module_path": str(module),
                "module_name": built.module_name,
                "count_symbol": counter,
            }
            reply, _ = worker.request(load, limit, phase)
            if reply != {"ok": True}:
                return "its watched build could not be loaded:\n" + quoted(str(reply)[:2000])
            polygons = [(_around(rng, PROBE_SHAPE), PROBE_SHAPE) for _ in range(PROBE_MASKS)]
            reply = {}
            answers, _ = judge.ask(worker, "counted_masks", polygons, limit, phase, reply_out=reply)
    except ProbeUnavailable as why:
        return (
            f"{why}; the exercise's point_inside takes the vertices as a typed memoryview and the point as two doubles."
        )
    calls = reply.get("calls")
    if (
        not isinstance(calls, list)
        or len(calls) != len(polygons)
        or not all(count is None or type(count) is int for count in calls)
    ):
        raise judge.ProtocolError("protocol: a call count reply without a count per mask", phase)
    for answer, count, (vertices, shape) in zip(answers, calls, polygons):
        if isinstance(answer, dict):
            return "mask() failed in the point_inside probe:\n" + quoted(answer["message"])
        count = count or 0
        if count < pixels:
            return (
                f"its mask() called point_inside {count:,} time{'s' * (count != 1)} for a {rows}x{cols} mask "
                f"of {pixels:,} pixels (counted at run time in a second build of your module): the pixels came "
                "from somewhere else. The exercise is a typed loop that asks the cdef point_inside about every "
                "pixel."
            )
        moved = judge.reference(vertices + np.array(shift, dtype=np.float64), shape)
        if np.array_equal(answer, moved.reshape(-1)):
            continue
        unmoved = np.array_equal(answer, judge.reference(vertices, shape).reshape(-1))
        followed = int(np.count_nonzero(answer == moved.reshape(-1)))
        return (
            f"its mask()'s pixels do not come from point_inside: in a second build of your module, "
            f"point_inside was shown the polygon moved by {shift} pixels, and mask() "
            + (
                "still returned the unmoved polygon's mask"
                if unmoved
                else f"followed point_inside's answers on only {followed:,} of {pixels:,} pixels"
            )
            + f" (point_inside was called {count:,} times). Each pixel of the mask must be point_inside's "
            "answer for that pixel, not a table or an expression computed beside it."
        )
    return None
