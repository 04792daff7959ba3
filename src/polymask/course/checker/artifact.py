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
* **03 calls the cdef function in a typed loop.**  In the C++ Cython
  generated, ``mask``'s own code calls the C function ``point_inside``
  compiled to inside a counted C ``for`` loop -- not a NumPy expression
  beside a dummy ``cdef point_inside``.

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


def _function_bodies(generated: str, pattern: str) -> list[str]:
    """The bodies of the generated C functions whose definition line matches `pattern`."""
    bodies = []
    for match in re.finditer(rf"^[^\n;]*{pattern}[^\n;]*\)\s*{{\s*$", generated, re.MULTILINE):
        end = generated.find("\n}\n", match.end())
        bodies.append(generated[match.end():end if end >= 0 else len(generated)])
    return bodies


def _called_in_loop(body: str, calls: set[str]) -> bool:
    """Whether one of `calls` appears inside the block of a C loop: a counted `for` (not `for (;;)`, Python
    iteration) or a `while` (Cython's `while` loops compile to `while (1)` with the test inside)."""
    names = "|".join(re.escape(call) for call in sorted(calls))
    depth, loop_depths, pending_loop = 0, [], False
    for token in re.finditer(rf"for \((?!;;)|while \(|\{{|\}}|\b(?:{names})\(", body):
        text = token.group(0)
        if text.startswith(("for", "while")):
            pending_loop = True
        elif text == "{":
            depth += 1
            if pending_loop:
                loop_depths.append(depth)
                pending_loop = False
        elif text == "}":
            while loop_depths and loop_depths[-1] >= depth:
                loop_depths.pop()
            depth -= 1
        elif loop_depths:
            return True
    return False


def _calls(body: str, calls: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(call)}\(", body) for call in calls)


def typed_call_failure(generated: str, module_name: str) -> str | None:
    """03: why `mask` does not call the cdef point_inside inside a typed loop, or None.

    The loop may be a `for` or a `while`, in `mask` itself or in cdef functions it
    calls (a column loop in a helper, called per row): a cdef function counts as
    looping over point_inside when it calls it, or such a function, inside a loop.
    """
    prefix = f"{len(module_name)}{module_name}_"
    call = f"__pyx_f_{prefix}point_inside"
    helpers = {}
    for match in re.finditer(rf"^[^\n;(]*\b(__pyx_f_{prefix}\w+)\([^\n;]*\)\s*{{\s*$", generated, re.MULTILINE):
        end = generated.find("\n}\n", match.end())
        helpers[match.group(1)] = generated[match.end():end if end >= 0 else len(generated)]
    helpers.pop(call, None)
    looping: set[str] = set()  # the helpers that call point_inside in a loop, directly or through others
    while True:
        found = {name for name, body in helpers.items()
                 if name not in looping and (_called_in_loop(body, {call}) or (looping and _calls(body, looping)))}
        if not found:
            break
        looping |= found
    bodies = _function_bodies(generated, rf"__pyx_pf_{prefix}\d*mask\(")
    if any(_called_in_loop(body, {call}) or (looping and _calls(body, looping)) for body in bodies):
        return None
    return ("its mask() does not call the cdef point_inside inside a typed loop (the C++ Cython generated "
            "has no such call in mask's code, nor in a cdef function it calls): the exercise is a loop over the "
            "pixels, with typed indices, that asks the cdef point_inside about each one -- not a NumPy expression.")
