"""Without a C++ compiler, building a learner's .pyx says so plainly.

The wheel needs no compiler; the course's Cython exercises compile the learner's
file and do.  These tests hide every compiler from PATH (scripts/wheel.sh also runs
them in an environment that has none) and check the message a learner sees.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from polymask.course import build as _build


def test_a_missing_compiler_is_named_and_the_build_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv(_build.CACHE_ENV, str(tmp_path / "cache"))
    reason = _build.missing_compiler()
    assert reason is not None and "no C++ compiler found" in reason and "build-essential" in reason
    pyx = tmp_path / "mask.pyx"
    pyx.write_text("def mask(vertices, shape):\n    return None\n", encoding="utf-8")
    result = _build.build_cython(pyx)
    assert not result.ok and result.error == reason


def test_a_compiler_named_by_cxx_is_looked_for(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "my-c++"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    monkeypatch.setenv("CXX", "my-c++ -pthread")
    assert _build.missing_compiler() is None


def test_the_lessons_say_up_front_that_cython_cells_will_not_build(tmp_path):
    import os
    import subprocess
    import sys
    notebooks = Path(__file__).resolve().parents[1] / "notebooks"
    environment = {**os.environ, "PATH": str(tmp_path), "PYTHONPATH": str(notebooks)}
    environment.pop("CXX", None)
    completed = subprocess.run([sys.executable, "-c", "import lesson"], cwd=tmp_path, env=environment,
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "%%cython cells of lessons 2-6 will not build here: no C++ compiler found" in completed.stdout


def _cmake() -> str:
    """The cmake program a source install uses (pip's cmake package, or one on PATH)."""
    import importlib.util
    import shutil

    # Not `import cmake`: with the checkout on sys.path, its cmake/ folder would answer.
    spec = importlib.util.find_spec("cmake")
    if spec is not None and spec.origin and spec.origin.endswith("__init__.py"):
        import cmake

        return str(Path(cmake.CMAKE_BIN_DIR) / "cmake")
    found = shutil.which("cmake")
    if found is None:  # the wheel's compiler-free environment (scripts/wheel.sh) has no CMake either
        pytest.skip("no cmake here")
    return found


@pytest.mark.parametrize("cxx", [None, "no-such-c++ -pthread"])
def test_a_source_install_without_a_compiler_says_what_to_install(tmp_path, cxx):
    import subprocess

    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "cmake").symlink_to(_cmake())
    environment = {"HOME": str(tmp_path), "PATH": str(tools)} | ({} if cxx is None else {"CXX": cxx})
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([str(tools / "cmake"), "-S", str(root), "-B", str(tmp_path / "build")], env=environment,
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode != 0 and "needs a C++17 compiler with OpenMP" in said, said
    assert "apt-get install build-essential" in said and "install a polymask wheel" in said
    assert ("(no-such-c++) was not found" if cxx else "a C++ compiler on PATH") in said
    assert "CMAKE_CXX_COMPILER" not in said, "CMake's own message came first"
