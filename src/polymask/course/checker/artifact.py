"""The technique read from what was built: the module's symbols and the C++ Cython generated.

A comment, a docstring or an unused declaration says nothing about what a
module does; what it links against and what its code calls do.

* **04, 05, 06 call the core.**  The built module's undefined dynamic
  symbols (``nm -D --undefined-only``: what the dynamic linker must find in
  another library) include the core's ``Polygon`` constructor and
  ``Polygon::contains`` -- the C++ library is really called, not a typed
  loop pasted from exercise 03.
* **05 is an extension type.**  A ``cdef class`` compiles to a static type
  object and a deallocator (``__pyx_type_<module>_Polygon``,
  ``__pyx_tp_dealloc_<module>_Polygon`` in the module's symbol table); a
  Python ``class`` compiles to neither.
* **06 uses OpenMP.**  ``prange`` compiles to an OpenMP parallel region, so
  the module calls the OpenMP runtime's fork (``GOMP_parallel`` from GCC,
  ``__kmpc_fork_call`` from LLVM); a thread pool of its own does not.

``nm`` comes with the compiler's binutils; it runs confined like the build.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

#: 04-06: the core's Polygon methods the module must call (demangled names, up to the parenthesis).
CORE_CALLS = ("polymask::Polygon::Polygon(", "polymask::Polygon::contains(")
#: 06: the OpenMP runtime's entry for a parallel region (GCC's libgomp, LLVM's libomp).
OPENMP_FORKS = ("GOMP_parallel", "__kmpc_fork_call")


def symbols(module_path: Path, confine=None, undefined: bool = False) -> list[str]:
    """Demangled symbol lines of the module (`nm -C`; only undefined dynamic ones when `undefined`)."""
    program = shutil.which("nm")
    if program is None:
        raise OSError("the checker reads the built module's symbols with nm (binutils), which is not on PATH")
    command = [program, "-C"] + (["-D", "--undefined-only"] if undefined else ["--defined-only"]) + [str(module_path)]
    environment = None
    with tempfile.TemporaryDirectory(prefix="polymask-nm-") as scratch:
        if confine is not None:
            command, environment = confine(command, Path(scratch))
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=environment)
    if done.returncode != 0:
        raise OSError(f"nm could not read the built module: {done.stderr.strip()[:300]}")
    return done.stdout.splitlines()


def core_call_failure(undefined: list[str]) -> str | None:
    """04-06: why the module does not call the core's Polygon, or None."""
    missing = [name for name in CORE_CALLS if not any(name in line for line in undefined)]
    if not missing:
        return None
    named = " and ".join(f"{name.rstrip('(')}()" for name in missing)
    return (f"the built module never calls {named} of the C++ core (its undefined symbols, what it needs from "
            "the core library, do not include them): the exercise is to wrap the core, so build a core "
            "Polygon from the vertices and ask its contains(px, py, rule) for every pixel.")


def extension_type_failure(defined: list[str], module_name: str) -> str | None:
    """05: why Polygon is not a cdef class (an extension type with a deallocator), or None."""
    stem = f"{len(module_name)}{module_name}_Polygon"
    wanted = (f"__pyx_type_{stem}", f"__pyx_tp_dealloc_{stem}")
    if all(any(re.search(rf"\b{re.escape(name)}\b", line) for line in defined) for name in wanted):
        return None
    return ("its Polygon is not a `cdef class`: the built module has no extension type Polygon with a "
            "deallocator (a Python `class` keeps no C++ polygon and frees nothing). Declare it as "
            "`cdef class Polygon:` holding a `CorePolygon *` made in __cinit__ and deleted in __dealloc__.")


def openmp_failure(undefined: list[str]) -> str | None:
    """06: why the module runs no OpenMP parallel region, or None."""
    if any(fork in line for line in undefined for fork in OPENMP_FORKS):
        return None
    return ("the built module starts no OpenMP parallel region (it never calls the OpenMP runtime), so its rows "
            "are not shared by prange: loop over the rows with cython.parallel.prange(..., nogil=True, "
            "num_threads=threads).")
