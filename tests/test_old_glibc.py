"""POLYMASK_OLD_GLIBC: the wheels' link (cmake/OldGlibc.cmake) loads on glibc 2.28.

The core is built here with the option, and its dynamic section read with objdump:
no glibc version newer than 2.28, no libstdc++ to find on the user's machine, none of
libstdc++'s symbols exported.  A program built against that core catches the core's
exceptions by type, linked as the wheel's modules are and as a learner's module is,
and a timed wait on the steady clock lasts as long as asked.  scripts/wheel.sh checks
each wheel as a whole with `auditwheel repair --plat manylinux_2_28_x86_64`.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOOR = (2, 28)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (sys.platform.startswith("linux") and platform.machine() == "x86_64" and platform.libc_ver()[0] == "glibc"),
        reason="POLYMASK_OLD_GLIBC is for x86-64 Linux with glibc",
    ),
]


def _run(*command: str | Path, cwd: Path | None = None) -> str:
    completed = subprocess.run([str(word) for word in command], cwd=cwd, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, f"{command}:\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}"
    return completed.stdout


@pytest.fixture(scope="module")
def old_glibc_core(tmp_path_factory) -> Path:
    """The build folder of the core, configured with POLYMASK_OLD_GLIBC=ON."""
    build = tmp_path_factory.mktemp("old-glibc")
    cmake = shutil.which("cmake") or str(Path(sys.executable).with_name("cmake"))
    _run(
        cmake,
        "-S",
        ROOT,
        "-B",
        build,
        "-DPOLYMASK_BUILD_PYTHON=OFF",
        "-DPOLYMASK_OLD_GLIBC=ON",
        "-DCMAKE_BUILD_TYPE=Release",
    )
    _run(cmake, "--build", build, "--target", "polymask_core", "--parallel", "2")
    return build


def _versions_needed(elf: Path, ignoring: tuple[str, ...] = ()) -> dict[str, set[tuple[int, ...]]]:
    """Each version name's family (GLIBC, GLIBCXX, ...) and the versions the file needs."""
    needed: dict[str, set[tuple[int, ...]]] = {}
    for line in _run("objdump", "-T", elf).splitlines():
        if line.split()[-1:] and line.split()[-1] in ignoring:
            continue
        for family, number in re.findall(r"\b(GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)\b", line):
            needed.setdefault(family, set()).add(tuple(int(part) for part in number.split(".")))
    return needed


def test_the_core_needs_glibc_2_28_at_most_and_no_libstdcxx(old_glibc_core):
    core = old_glibc_core / "libpolymask_core.so"
    needed = _versions_needed(core)
    assert max(needed["GLIBC"]) <= FLOOR, sorted(needed["GLIBC"])
    assert "GLIBCXX" not in needed and "CXXABI" not in needed, needed
    libraries = re.findall(r"NEEDED\s+(\S+)", _run("objdump", "-p", core))
    assert "libstdc++.so.6" not in libraries, libraries
    # The pthread functions are bound at GLIBC_2.2.5, which glibc before 2.34 keeps there.
    assert "libpthread.so.0" in libraries, libraries
    assert "libgcc_s.so.1" in libraries, libraries  # one unwinder for every module


def test_the_core_exports_polymask_and_nothing_of_libstdcxx(old_glibc_core):
    exported = _run("nm", "-D", "--defined-only", "--demangle", old_glibc_core / "libpolymask_core.so")
    names = [line.split(" ", 2)[2] for line in exported.splitlines() if line.count(" ") >= 2]
    assert names and all("polymask" in name for name in names), [n for n in names if "polymask" not in n][:10]


def test_the_shim_defines_what_it_replaces_inside_each_object(old_glibc_core):
    dynamic = _run("objdump", "-T", old_glibc_core / "libpolymask_core.so")
    for newer in ("pthread_cond_clockwait", "arc4random", "__libc_single_threaded", "_dl_find_object"):
        assert not re.search(rf"\s{newer}$", dynamic, re.MULTILINE), f"{newer} is still looked up in glibc"


@pytest.mark.parametrize("linked_as", ["wheel module", "learner module"])
def test_exceptions_of_the_core_are_caught_by_type_in_another_object(old_glibc_core, tmp_path, linked_as):
    compiler = shutil.which("g++")
    assert compiler, "g++ is needed to build the probe"
    program = tmp_path / "across_modules"
    sources: list[str | Path] = [ROOT / "tests" / "old_glibc" / "across_modules.cpp"]
    options = ["-std=c++17", "-O1", "-pthread", "-I", ROOT / "csrc" / "include"]
    if linked_as == "wheel module":
        shim = tmp_path / "old_glibc.o"
        _run("gcc", "-c", "-O2", "-fPIC", ROOT / "csrc" / "compat" / "old_glibc.c", "-o", shim)
        sources.append(shim)
        options += ["-static-libstdc++", "-Wl,--exclude-libs,ALL"]
    _run(
        compiler,
        *options,
        *sources,
        "-o",
        program,
        "-L",
        old_glibc_core,
        "-lpolymask_core",
        f"-Wl,-rpath,{old_glibc_core}",
    )
    output = _run(program)
    assert "invalid_argument: polymask::Polygon: ring_ends" in output, output
    assert "Interrupted caught" in output, output
    waited = float(re.search(r"wait_for: timed out after ([0-9.]+) s", output).group(1))
    assert 0.2 <= waited < 10, output
    if linked_as == "wheel module":
        # An executable's start-up code calls __libc_start_main at its newest version; a
        # shared object, as every part of the wheel is, has no start-up code.
        needed = _versions_needed(program, ignoring=("__libc_start_main",))
        assert max(needed["GLIBC"]) <= FLOOR and "GLIBCXX" not in needed, needed
