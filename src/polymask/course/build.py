"""Building a learner's Cython file against the installed polymask.

Owns what a .pyx outside this package needs to compile like the stages do:
the C++ core's headers and shared library (installed into the package by
CMake: ``polymask/include`` and ``polymask/lib``; a learner's module links the
very library polymask's own modules link, so it shares their thread pool), the folder from which
``cimport polymask.core`` finds ``core.pxd``, and the flags the contract
demands (C++17, ``-ffp-contract=off``; ``-fopenmp`` where asked or where
the core itself was built with OpenMP).

The build runs Cython's own machinery (``Cython.Build.cythonize`` and
setuptools' ``build_ext``) in a child process, so compiler output can be
captured whole and shown to the learner as text, not as a traceback.
Built modules are cached by the hash of their source and flags: checking
the same file twice compiles it once.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

import polymask
from polymask import _build_flags
from polymask._install_dirs import get_include, get_library_dirs
from polymask.course.learner_headers import learner_include_dir

PACKAGE_DIR = Path(polymask.__file__).resolve().parent
#: Where built modules are cached (default: ~/.cache/polymask/build).
CACHE_ENV = "POLYMASK_BUILD_CACHE"


def cython_include_path() -> list[str]:
    """Where Cython looks for ``polymask/core.pxd``: the folder that holds the package."""
    return [str(PACKAGE_DIR.parent)]


def compile_flags(*, openmp: bool = False, link_core: bool = False) -> tuple[list[str], list[str]]:
    """(compile args, link args) for a learner's C++ extension.

    The floating-point and OpenMP flags come from polymask/_build_flags.py,
    which CMake generated while building the core: one source for both.
    """
    compile_args = [f"-std=c++{_build_flags.CXX_STANDARD}", "-O2", *_build_flags.FP_FLAGS,
                    "-DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION"]
    link_args: list[str] = []
    if link_core:
        # The shared core brings its own dependencies (threads, OpenMP); the
        # module only needs to find it when it is imported.
        link_args.extend(f"-Wl,-rpath,{folder}" for folder in get_library_dirs())
    if openmp:
        compile_args.extend(_build_flags.OPENMP_FLAGS)
        link_args.extend(_build_flags.OPENMP_FLAGS)
    return compile_args, link_args


@dataclass
class BuildResult:
    """What building one .pyx gave: the extension module's path, or the error text."""

    ok: bool
    #: The built extension module (when ok).
    module_path: Path | None
    #: The module name to import it under.
    module_name: str
    #: The C++ Cython generated (for checks on the code itself, e.g. "uses prange").
    generated_cpp: str
    #: The readable error (when not ok): Cython's or the compiler's messages.
    error: str
    #: Every file Cython and the C++ compiler read for the module (their dependency output), absolute.
    opened: tuple = ()


# Runs in the child process: argv[1] is a JSON job.  Cython and the
# compiler print their errors to stdout/stderr, which the parent captures.
_BUILD_SCRIPT = r"""
import json, sys
job = json.loads(sys.argv[1])
from setuptools import Distribution, Extension
from Cython.Build import cythonize
extension = Extension(job["name"], [job["pyx"]], language="c++",
                      include_dirs=job["include_dirs"], library_dirs=job["library_dirs"],
                      libraries=job["libraries"], extra_compile_args=job["compile_args"],
                      extra_link_args=job["link_args"])
modules = cythonize([extension], include_path=job["cython_include_path"], quiet=True,
                    compiler_directives={"language_level": 3}, force=True, depfile=True)
# One fixed description: whatever `# distutils:` lines asked for, only the generated source is compiled,
# with exactly the paths, libraries and flags the job names.
for module in modules:
    module.sources = module.sources[:1]
    module.include_dirs, module.library_dirs = job["include_dirs"], job["library_dirs"]
    module.libraries, module.runtime_library_dirs, module.extra_objects = job["libraries"], [], []
    module.extra_compile_args, module.extra_link_args = job["compile_args"] + ["-MD", "-MF", job["depfile"]], \
        job["link_args"]
    module.define_macros, module.undef_macros, module.depends = [], [], []
distribution = Distribution({"ext_modules": modules, "script_name": "polymask-build"})
command = distribution.get_command_obj("build_ext")
command.build_lib = job["out"]
command.build_temp = job["temp"]
distribution.run_command("build_ext")
"""


def missing_compiler() -> str | None:
    """Why no learner's .pyx can be built here (no C++ compiler on PATH), or None when one is found.

    The wheel runs everything else without a compiler; the course's Cython lessons
    (``polymask check`` of a .pyx, ``%%cython``) compile the learner's code and need one.
    """
    if os.name != "posix":  # MSVC is found by setuptools through the registry, not PATH
        return None
    command = os.environ.get("CXX") or sysconfig.get_config_var("CXX") or "c++"
    compiler = shlex.split(command)[0] if command.strip() else "c++"
    if shutil.which(compiler) or shutil.which("c++"):
        return None
    return (f"no C++ compiler found: {compiler!r} is not on PATH. Building a Cython exercise "
            "(polymask check of a .pyx file, %%cython in a notebook) compiles it; install one "
            "(Debian/Ubuntu: apt-get install build-essential; macOS: xcode-select --install; "
            "Windows: Visual Studio Build Tools) or set CXX. Everything else in polymask runs without one.")


def cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV)
    if base:
        return Path(base)
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "polymask" / "build"


def build_cython(path: str | Path, *, openmp: bool = False, link_core: bool = False,
                 timeout: float = 600.0, confine=None) -> BuildResult:
    """Compile the learner's .pyx at `path` as a C++ extension module (cached by content).

    `confine(command, folder)`, when given, returns (command, environment) that run
    the build's child process confined, with `folder` (its scratch folder) writable.
    """
    from polymask import __version__

    source_path = Path(path)
    source = source_path.read_text(encoding="utf-8")
    compile_args, link_args = compile_flags(openmp=openmp, link_core=link_core)
    # What the exercise hands out, not the whole core (see polymask/course/learner_headers.py).
    learner_dirs = [str(learner_include_dir(get_include(), cache_dir()))] if link_core else []
    include_dirs = list(learner_dirs)
    try:
        import numpy

        include_dirs.append(numpy.get_include())
    except ImportError:  # numpy is a dependency; keep the build going regardless
        pass
    library_dirs = get_library_dirs() if link_core else []
    libraries = ["polymask_core"] if link_core else []
    key = hashlib.sha256(json.dumps(
        [source, compile_args, link_args, include_dirs, library_dirs, libraries, __version__,
         sys.version, sys.executable]).encode()).hexdigest()[:20]
    # A unique module name per content: two different files both called
    # mask.pyx can be loaded side by side in one process.
    name = f"learner_{re.sub(r'[^0-9A-Za-z_]', '_', source_path.stem)}_{key}"
    target_dir = cache_dir() / key
    built = sorted(target_dir.glob(f"{name}*.so")) + sorted(target_dir.glob(f"{name}*.pyd"))
    generated = target_dir / f"{name}.cpp"
    opened_list = target_dir / "opened.txt"
    if built and generated.is_file() and opened_list.is_file():
        return BuildResult(True, built[0], name, generated.read_text(encoding="utf-8"), "",
                           tuple(opened_list.read_text(encoding="utf-8").splitlines()))
    no_compiler = missing_compiler()
    if no_compiler:
        return BuildResult(False, None, name, "", no_compiler)

    with tempfile.TemporaryDirectory(prefix="polymask-build-") as scratch:
        scratch_dir = Path(scratch)
        pyx = scratch_dir / f"{name}.pyx"
        pyx.write_text(source, encoding="utf-8")
        out_dir = scratch_dir / "out"
        job = {"name": name, "pyx": str(pyx), "include_dirs": include_dirs, "library_dirs": library_dirs,
               "libraries": libraries, "compile_args": compile_args, "link_args": link_args,
               "cython_include_path": learner_dirs, "out": str(out_dir),
               "temp": str(scratch_dir / "temp"), "depfile": str(scratch_dir / "compiled.d")}
        command, environment = [sys.executable, "-c", _BUILD_SCRIPT, json.dumps(job)], None
        if confine is not None:
            command, environment = confine(command, scratch_dir)
        try:
            completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=scratch,
                                       env=environment)
        except subprocess.TimeoutExpired:
            return BuildResult(False, None, name, "", f"the build took longer than {timeout:.0f} s and was stopped")
        output = (completed.stdout or "") + (completed.stderr or "")
        produced = sorted(out_dir.glob(f"{name}*.so")) + sorted(out_dir.glob(f"{name}*.pyd"))
        if completed.returncode != 0 or not produced:
            return BuildResult(False, None, name, "", readable_build_error(output, pyx, source_path))
        target_dir.mkdir(parents=True, exist_ok=True)
        module_path = target_dir / produced[0].name
        shutil.copyfile(produced[0], module_path)
        generated_cpp = pyx.with_suffix(".cpp")
        generated_text = generated_cpp.read_text(encoding="utf-8") if generated_cpp.is_file() else ""
        generated.write_text(generated_text, encoding="utf-8")
        opened = _opened_files(scratch_dir, pyx)
        opened_list.write_text("\n".join(opened), encoding="utf-8")
        return BuildResult(True, module_path, name, generated_text, "", tuple(opened))


def depfile_paths(text: str, relative_to: str | os.PathLike) -> list[str]:
    """The prerequisites of a make-style dependency file (targets dropped), as absolute paths."""
    joined = text.replace("\\\n", " ")
    found = []
    for line in joined.splitlines():
        _, colon, rest = line.partition(": ")
        if not colon:
            continue
        for name in re.findall(r"(?:\\ |[^\s])+", rest):
            found.append(os.path.join(os.fspath(relative_to), name.replace("\\ ", " ")))
    return found


def _opened_files(scratch_dir: Path, pyx: Path) -> list[str]:
    """What Cython (its .dep file) and the C++ compiler (-MD) read for the module, as absolute paths."""
    opened = []
    for deps in (pyx.with_suffix(".cpp.dep"), scratch_dir / "compiled.d"):
        if deps.is_file():
            opened += depfile_paths(deps.read_text(encoding="utf-8", errors="replace"), scratch_dir)
    return list(dict.fromkeys(opened))


def readable_build_error(output: str, built_path: Path, learner_path: Path) -> str:
    """The part of a failed build's output a learner needs: Cython's error blocks, else the
    compiler's error lines with their context, else the output's tail; paths are the learner's."""
    text = output.replace(str(built_path), str(learner_path))
    text = text.replace(built_path.stem, learner_path.stem)
    # Cython names the file relative to where it ran: give the learner's full path.
    lines = [re.sub(rf"^{re.escape(learner_path.name)}:(?=\d+:\d+: )", f"{learner_path}:", line)
             for line in text.splitlines()]
    # Cython: "Error compiling Cython file:" then the quoted source and "file:line:col: message".
    blocks, index = [], 0
    while index < len(lines):
        if lines[index].startswith("Error compiling Cython file"):
            end = index + 1
            while end < len(lines) and not re.match(rf"^{re.escape(str(learner_path))}:\d+:\d+: ", lines[end]):
                end += 1
            blocks.append("\n".join(lines[index:end + 1]))
            index = end + 1
        else:
            index += 1
    if blocks:
        return "Cython could not compile your file:\n\n" + "\n\n".join(blocks)
    # The C++ compiler (or linker): each error line and the two lines that show where.
    picked = []
    for number, line in enumerate(lines):
        if re.search(r"\b(fatal )?error\b", line) and "Traceback" not in line and not line.startswith(
                ("distutils.", "setuptools.", "error: command", "Cython.Compiler")):
            picked.extend(lines[number:number + 3])
    if picked:
        return "the C++ compiler or linker failed:\n\n" + "\n".join(dict.fromkeys(picked))
    return "the build failed:\n\n" + "\n".join(lines[-30:])
