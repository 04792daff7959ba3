"""What the compilers opened for the learner's code, and which of those files are polymask's own.

A name in the source says nothing about the file a build uses: a Cython
``include`` can name polymask's pure-Python stage by any path, a macro can
assemble an ``#include``'s path, an OpenCL kernel can ``#import`` a header.
So the checker asks the tools that resolved the names:

* **Cython** writes the files it read for the module (``cythonize(...,
  depfile=True)``: every ``include`` and ``cimport`` resolved);
* **the C++ compiler** writes every header it opened (``-MD -MF``), after
  macros and include paths did their work;
* **an OpenCL kernel** is preprocessed here by the C preprocessor with the
  include folder the exercise hands out (``cc -E -M``): ``#include`` and
  ``#import`` resolved as the kernel's build resolves them.

Any opened file that lies in polymask's installed package, or in the
checkout's sources of polymask (``csrc/``, ``kernels/``, ``src/polymask/``),
refuses the file; the folders an exercise hands out (the learner-facing
headers, ``precision.h``) are copies in the build cache, outside both.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from polymask.course.build import depfile_paths


def polymask_roots(learner_path: Path) -> list[Path]:
    """The folders whose files are polymask's own: the installed package, and a checkout's sources."""
    import polymask

    roots = [Path(polymask.__file__).resolve().parent]
    for folder in Path(learner_path).resolve().parents:
        if (folder / "csrc" / "include" / "polymask").is_dir():
            roots += [folder / "csrc", folder / "kernels", folder / "src" / "polymask", folder / "build"]
            break
    return roots


def foreign_files(opened: list[str], learner_path: Path) -> list[str]:
    """The files of `opened` that are polymask's own (as their real paths), in order, once each."""
    roots = [str(root) + os.sep for root in polymask_roots(learner_path)]
    found: dict[str, None] = {}
    for name in opened:
        real = os.path.realpath(name)
        if any(real.startswith(root) for root in roots):
            found[real] = None
    return list(found)


def refusal(opened: list[str], learner_path: Path) -> str | None:
    """Why the learner's file may not be run: the polymask files its build opened; None when there are none."""
    foreign = foreign_files(opened, learner_path)
    if not foreign:
        return None
    shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
    return (f"its build opened {shown}: polymask's own code, which this exercise does not hand out (however the "
            "name was written: an include, a cimport, a macro). Use only what the exercise gives you.")


def opencl_opened(kernel: Path, include_dirs: list[str], confine=None) -> list[str] | None:
    """The files the C preprocessor opens for `kernel` with `include_dirs`, or None when no preprocessor runs.

    `confine(command, folder)` runs it in the sandbox, as the builds are.
    """
    program = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if program is None:
        return None
    with tempfile.TemporaryDirectory(prefix="polymask-cl-deps-") as scratch:
        deps = Path(scratch) / "kernel.d"
        command = [program, "-x", "c", "-E", "-M", "-MG", "-MF", str(deps), "-D__OPENCL_VERSION__=120",
                   "-D__OPENCL_C_VERSION__=120", "-w", *[f"-I{folder}" for folder in include_dirs], str(kernel)]
        environment = None
        if confine is not None:
            command, environment = confine(command, Path(scratch))
        try:
            subprocess.run(command, capture_output=True, timeout=60, check=False, cwd=scratch, env=environment,
                           stdin=subprocess.DEVNULL)
            text = deps.read_text(encoding="utf-8", errors="replace")
        except (OSError, subprocess.TimeoutExpired):
            return None
    return depfile_paths(text, kernel.parent)
