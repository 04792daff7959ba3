"""Exercise 06d: the learner writes the build, the checker runs it and reads what it made.

The learner's file is a ``setup.py``.  The checker copies it into an empty
folder beside the module the exercise hands out
(``polymask/course/handouts/mask.pyx``, whatever the learner's own copy
says), runs ``python setup.py build_ext --inplace`` there inside the
sandbox, with polymask's own files hidden where a mount namespace allows,
and judges the module it finds by what that module is:

* **C++, optimised, exact.**  The handed-out source keeps one string in
  the built module that the preprocessor wrote from ``__cplusplus``,
  ``_OPENMP``, ``__OPTIMIZE__`` and ``__FAST_MATH__``: the language, whether
  the OpenMP flag reached the compiler, whether any optimisation level was
  on, and whether fast-math (which lets the compiler reorder the crossing
  rule's arithmetic) was.  The checker reads it from the file's bytes.
* **OpenMP linked.**  The module must call the OpenMP runtime's fork
  (``nm -D``, as exercise 06) and name an OpenMP runtime among the
  libraries it needs (``readelf -d``): compiled with ``-fopenmp`` but linked
  without it, the module does not even load.
* **Threads run.**  Then the module goes through exercise 06's checks: the
  cases, and the thread check that reads from ``/proc`` how two threads
  shared the rows.

The build is cached by the content of the two files, like a ``.pyx`` build.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from polymask.course.checker import artifact, source

#: The file the learner writes, and what marks an exercise as one whose build the learner writes.
BUILD_FILE = "setup.py"
#: The module the build must make (its Extension's name) from the handed-out source.
MODULE_NAME = "mask"
HANDOUT = Path(__file__).resolve().parent.parent / "handouts" / f"{MODULE_NAME}.pyx"
#: The command the checker runs in the build folder.
BUILD_COMMAND = ("setup.py", "build_ext", "--inplace")
_REPORT = re.compile(rb"polymask-build-report: ([ -~]{1,200})\x00")
#: The most of the build's output kept for the report (its end: the errors are there).
OUTPUT_KEPT = 256 * 1024
#: Names of OpenMP runtimes a module may need (GCC's, LLVM's, Intel's).
OPENMP_RUNTIMES = ("libgomp", "libomp", "libiomp")


def is_build_exercise(exercise) -> bool:
    """Whether the learner's file for `exercise` is the build, not the module."""
    return exercise.filename == BUILD_FILE


def build(learner_path: Path, box, hide: tuple = (), timeout: float = 600.0):
    """Run the learner's setup.py on the handed-out mask.pyx, confined; a polymask.course.build.BuildResult."""
    from polymask import __version__
    from polymask.course.build import BuildResult, cache_dir, readable_build_error

    setup_text = source.read_source(learner_path)
    handout = HANDOUT.read_text(encoding="utf-8")
    key = hashlib.sha256(json.dumps([setup_text, handout, __version__, sys.version, sys.executable]).encode())
    target_dir = cache_dir() / f"setup-{key.hexdigest()[:20]}"
    cached = _modules(target_dir)
    if cached:
        return BuildResult(True, cached[0], MODULE_NAME, "", "")
    with tempfile.TemporaryDirectory(prefix="polymask-setup-") as scratch:
        folder = Path(scratch)
        (folder / f"{MODULE_NAME}.pyx").write_text(handout, encoding="utf-8")
        (folder / BUILD_FILE).write_text(setup_text, encoding="utf-8")
        command, environment = [sys.executable, *BUILD_COMMAND], None
        if box.enforced:
            command = box.command(command, folder, hide=hide)
            environment = box.environment(dict(os.environ), folder)
        # The output goes to a file the build cannot reach by name, and only its end is read:
        # a build that prints without end fills no memory here.
        with tempfile.TemporaryFile() as log:
            try:
                done = subprocess.run(
                    command, stdout=log, stderr=subprocess.STDOUT, timeout=timeout, cwd=folder, env=environment
                )
            except subprocess.TimeoutExpired:
                return BuildResult(
                    False, None, MODULE_NAME, "", f"the build took longer than {timeout:.0f} s and was stopped"
                )
            output = _tail(log)
        made = _modules(folder)
        if done.returncode != 0:
            return BuildResult(
                False, None, MODULE_NAME, "", readable_build_error(output, folder / BUILD_FILE, learner_path)
            )
        if not made:
            return BuildResult(
                False,
                None,
                MODULE_NAME,
                "",
                (
                    f"the build ended without error but made no extension module named {MODULE_NAME!r} (no "
                    f"{MODULE_NAME}*.so in the folder it ran in, nor below it): give setup() an "
                    f'Extension({MODULE_NAME!r}, ["{MODULE_NAME}.pyx"], ...), cythonized. '
                    "What it printed, last lines:\n" + "\n".join(output.splitlines()[-15:])
                ),
            )
        target_dir.mkdir(parents=True, exist_ok=True)
        module_path = target_dir / made[0].name
        shutil.copyfile(made[0], module_path)
        return BuildResult(True, module_path, MODULE_NAME, "", "")


def _tail(log) -> str:
    """The last OUTPUT_KEPT bytes of the open file `log`, as text."""
    size = log.seek(0, os.SEEK_END)
    log.seek(max(0, size - OUTPUT_KEPT))
    return log.read().decode("utf-8", errors="replace")


def _modules(folder: Path) -> list[Path]:
    """Extension modules called MODULE_NAME in `folder` or below it."""
    if not folder.is_dir():
        return []
    return sorted(
        path
        for pattern in (f"{MODULE_NAME}.*.so", f"{MODULE_NAME}.so", f"{MODULE_NAME}.*.pyd")
        for path in folder.rglob(pattern)
    )


def build_report(module_path: Path) -> dict[str, str] | None:
    """{'language': 'C++', 'openmp': 'yes', ...} as the compiler wrote it into the module, or None."""
    found = _REPORT.search(Path(module_path).read_bytes())
    if found is None:
        return None
    return dict(part.split("=", 1) for part in found.group(1).decode("ascii").split() if "=" in part)


def needed_libraries(module_path: Path, confine=None) -> list[str]:
    """The shared libraries the module names as NEEDED (``readelf -d``), run confined like the build."""
    program = shutil.which("readelf")
    if program is None:
        raise OSError("the checker reads the built module's libraries with readelf (binutils), which is not on PATH")
    command, environment = [program, "-d", str(module_path)], None
    with tempfile.TemporaryDirectory(prefix="polymask-readelf-") as scratch:
        if confine is not None:
            command, environment = confine(command, Path(scratch))
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=environment)
    if done.returncode != 0:
        raise OSError(f"readelf could not read the built module: {done.stderr.strip()[:300]}")
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", done.stdout)


def module_failure(module_path: Path, confine=None) -> str | None:
    """Why the module the learner's build made is not C++ with OpenMP, optimised and exact; None when it is."""
    made = build_report(module_path)
    if made is None:
        return (
            f"made a module {MODULE_NAME!r} that was not compiled from the handed-out {MODULE_NAME}.pyx (it lacks "
            "the build report that file's source puts in every build): build the mask.pyx beside setup.py."
        )
    if made.get("language") != "C++":
        return (
            "built mask.pyx as C (the compiler did not define __cplusplus): Cython wrote C and a C compiler "
            "built it. The course's modules are C++ (they wrap the C++ core); ask the Extension for C++."
        )
    if made.get("openmp") != "yes":
        return (
            "compiled mask.pyx without OpenMP (the compiler did not define _OPENMP): the `#pragma omp` lines "
            "prange wrote were ignored, so the loop would run on one thread. The compiler needs its OpenMP "
            "flag when it compiles."
        )
    if made.get("optimized") != "yes":
        return (
            "compiled mask.pyx without optimisation (the compiler did not define __OPTIMIZE__, as at -O0): "
            "every loop index and coordinate goes through memory. Ask for an optimisation level."
        )
    if made.get("fast-math") == "yes":
        return (
            "compiled mask.pyx with fast-math (the compiler defined __FAST_MATH__): it may reorder and fuse the "
            "crossing rule's arithmetic, and the contract promises bit-for-bit results. Keep the optimisation "
            "level, drop fast-math."
        )
    undefined = artifact.symbols(module_path, confine, undefined=True)
    if not any(fork in line for line in undefined for fork in artifact.OPENMP_FORKS):
        return (
            "made a module that starts no OpenMP parallel region (it never calls the OpenMP runtime's fork), "
            "though the compiler saw its OpenMP flag: is mask.pyx the one built?"
        )
    needed = needed_libraries(module_path, confine)
    if not any(name.startswith(OPENMP_RUNTIMES) for name in needed):
        listed = ", ".join(needed) or "none"
        return (
            "compiled mask.pyx with OpenMP but did not link the OpenMP runtime: the module calls it, yet names "
            f"no OpenMP library among those it needs ({listed}), so it cannot load. The linker needs the OpenMP "
            "flag too."
        )
    return None
