"""What a learner's build sees of the C++ core: the polygon and its per-pixel test, no finished fill.

Exercises 04 to 06 link the core and use its ``Polygon``: its storage and
``contains(px, py, rule)``, the one-pixel test the learner's loops call.
Their builds get a folder holding a learner-facing ``polymask/core.hpp``
(the installed header cut after the ``Polygon`` class, so the class keeps
its exact layout, without the fills and without ``polymask/crossing.h``),
the installed ``polymask/export.hpp`` (``POLYMASK_API``: the core exports
only what it marks) and a learner-facing ``polymask/core.pxd`` for
``cimport polymask.core``.
The fills (``fill_per_pixel``, ``fill_scanline``, ...) are not declared
there, so a learner's file cannot call them by declaring them in Cython.
The folder is made from the installed header, once per header content.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: The core.pxd a learner's ``cimport polymask.core`` finds.
LEARNER_PXD = '''\
# The C++ core as an exercise hands it out: the polygon's storage and its
# per-pixel test.  The fills are polymask's answers, not part of an exercise.
from libc.stdint cimport int64_t
from libcpp cimport bool


cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    enum class FillRule(int):
        even_odd
        nonzero

    cdef cppclass ConstSpan[T]:
        const T *data()
        size_t size()

    cdef cppclass Polygon:
        Polygon() except +
        Polygon(const double *xy, int64_t n_vertices) except +
        int64_t vertex_count()
        ConstSpan[double] xy()
        bool contains(double px, double py, FillRule rule)

    # The thread count a loop should use for `threads` (0: the default), capped like polymask's own.
    int resolve_threads(int threads)
'''

_CUT = "\nPOLYMASK_API void fill_per_pixel("
_KEEP_AFTER_CUT = ("\n// The thread count for `threads` (0: the default).\nPOLYMASK_API int resolve_threads(int threads);\n\n"
                   "}  // namespace polymask\n")


def learner_header(core_hpp: str) -> str:
    """The installed core.hpp cut after the Polygon class: no fills, no crossing predicate."""
    if _CUT not in core_hpp:
        raise ValueError("polymask/core.hpp no longer declares fill_per_pixel where expected; "
                         "update polymask/_learner_headers.py")
    head = core_hpp[:core_hpp.index(_CUT)]
    # Drop the comment block that introduces the fills, if any.
    head = head.rstrip()
    while head.splitlines()[-1].lstrip().startswith("//"):
        head = head[:head.rindex("\n")].rstrip()
    head = head.replace('#include "polymask/crossing.h"\n', "")
    return (head + "\n" + _KEEP_AFTER_CUT).replace("#pragma once", "#pragma once\n// Learner-facing: the core's "
                                                    "Polygon and contains(), without the fills.", 1)


def learner_include_dir(core_include: str, cache: Path) -> Path:
    """A folder with the learner-facing polymask/core.hpp and polymask/core.pxd (made once per header)."""
    core_hpp = (Path(core_include) / "polymask" / "core.hpp").read_text(encoding="utf-8")
    export_hpp = (Path(core_include) / "polymask" / "export.hpp").read_text(encoding="utf-8")
    header = learner_header(core_hpp)
    key = hashlib.sha256((header + export_hpp + LEARNER_PXD).encode()).hexdigest()[:16]
    folder = cache / f"learner-include-{key}"
    package = folder / "polymask"
    if not (package / "core.pxd").is_file():
        package.mkdir(parents=True, exist_ok=True)
        for name, text in (("core.hpp", header), ("export.hpp", export_hpp), ("__init__.pxd", ""),
                           ("core.pxd", LEARNER_PXD)):
            partial = package / f"{name}.{os.getpid()}.partial"
            partial.write_text(text, encoding="utf-8")
            os.replace(partial, package / name)  # whole or absent: builds may run side by side
    return folder
