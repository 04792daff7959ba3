"""Calls of the core's per-pixel test, counted where the learner's module makes them.

Exercises 04 and 05 teach calling the core's ``Polygon::contains`` for every
pixel.  A module that declares the core and calls it once per mask for show,
while its pixels come from a loop of its own, shows the right symbols; what it
cannot show is the calls.  The worker of 04 and 05 starts with a small library
preloaded (``LD_PRELOAD``) that defines ``polymask::Polygon::contains`` itself:
the learner's module resolves its call to it, it counts and forwards to the
core's own (found among the loaded libraries by its name).  The worker reports the count after each
request of the check, and a mask must have made at least one call per pixel.

Native code can reset the counter (it is in the worker's memory); the docs say so.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sysconfig
from pathlib import Path

from polymask.course.checker import judge
from polymask.course.checker.report import quoted

#: The Itanium C++ ABI name of polymask::Polygon::contains(double, double, FillRule) const.
CONTAINS_SYMBOL = "_ZNK8polymask7Polygon8containsEddNS_8FillRuleE"
#: The counter the preloaded library exports (read by the worker through ctypes).
COUNTER_SYMBOL = "polymask_checker_contains_calls"

_SOURCE = f"""\
// Counts the calls of polymask::Polygon::contains made through the dynamic linker, then forwards them.
#include <dlfcn.h>
#include <atomic>

extern "C" {{
__attribute__((visibility("default"))) std::atomic<long long> {COUNTER_SYMBOL}{{0}};

__attribute__((visibility("default"))) bool {CONTAINS_SYMBOL}(const void *polygon, double px, double py, int rule)
{{
    using Contains = bool (*)(const void *, double, double, int);
    // The core library is loaded after this one (the learner's module links it), local to its module:
    // find it by its name among the loaded libraries, not as the next in the global order.
    static const Contains core = [] {{
        void *library = dlopen("libpolymask_core.so", RTLD_LAZY | RTLD_NOLOAD);
        void *found = library ? dlsym(library, "{CONTAINS_SYMBOL}") : nullptr;
        return reinterpret_cast<Contains>(found ? found : dlsym(RTLD_NEXT, "{CONTAINS_SYMBOL}"));
    }}();
    {COUNTER_SYMBOL}.fetch_add(1, std::memory_order_relaxed);
    return core(polygon, px, py, rule);
}}
}}
"""


def counter_library() -> Path:
    """The preloaded counting library, compiled once per source into the build cache."""
    from polymask.course.build import cache_dir

    key = hashlib.sha256(_SOURCE.encode()).hexdigest()[:16]
    folder = cache_dir() / f"contains-counter-{key}"
    library = folder / "libcontains_counter.so"
    if library.is_file():
        return library
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / f"counter.{os.getpid()}.cpp"
    source.write_text(_SOURCE, encoding="utf-8")
    partial = folder / f"libcontains_counter.so.{os.getpid()}.partial"
    compiler = shlex.split(os.environ.get("CXX") or sysconfig.get_config_var("CXX") or "c++")
    done = subprocess.run([*compiler, "-std=c++17", "-O2", "-shared", "-fPIC", "-o", str(partial), str(source),
                           "-ldl"], capture_output=True, text=True, timeout=300, check=False)
    source.unlink(missing_ok=True)
    if done.returncode != 0:
        raise OSError(f"the checker could not compile its call counter: {done.stderr.strip()[:500]}")
    os.replace(partial, library)
    return library


def call_count_failure(worker, rng, limit: float, side: int = 48) -> str | None:
    """04, 05: each mask must call the core's Polygon::contains at least once per pixel (counted in the worker
    by the preloaded library of :mod:`counting`), on fresh polygons of rectangular images."""
    from polymask.course.problems import STANDARD_VERTICES

    phase = "the call count"
    polygons = [(rng.uniform(-4.0, side + 4.0, size=(STANDARD_VERTICES, 2)), (side, side + int(rng.integers(1, 9))))
                for _ in range(3)]
    reply: dict = {}
    answers, _ = judge.ask(worker, "counted_masks", polygons, limit, phase, reply_out=reply)
    calls = reply.get("calls")
    if not isinstance(calls, list) or len(calls) != len(polygons) or not all(
            count is None or type(count) is int for count in calls):
        raise judge.ProtocolError("protocol: a call count reply without a count per mask", phase)
    for answer, count, (vertices, shape) in zip(answers, calls, polygons):
        if isinstance(answer, dict):
            return "mask() failed in the call count:\n" + quoted(answer["message"])
        if not judge.is_right(answer, vertices, shape):
            return f"mask() is wrong on a {shape[0]}x{shape[1]} problem (the call count)."
        pixels = shape[0] * shape[1]
        if count is None or count < pixels:
            count = count or 0
            return (f"its mask() called the C++ core's Polygon::contains {count:,} time{'s' * (count != 1)} for a "
                    f"{shape[0]}x{shape[1]} mask of {pixels:,} pixels: the pixels came from somewhere else. The "
                    "exercise is to ask the core's polygon about every pixel: one contains(col, row, rule) each.")
    return None
