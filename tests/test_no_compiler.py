"""Without a C++ compiler, building a learner's .pyx says so plainly.

The wheel needs no compiler; the course's Cython exercises compile the learner's
file and do.  These tests hide every compiler from PATH (scripts/wheel.sh also runs
them in an environment that has none) and check the message a learner sees.
"""
from __future__ import annotations

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
    from pathlib import Path

    notebooks = Path(__file__).resolve().parents[1] / "notebooks"
    environment = {**os.environ, "PATH": str(tmp_path), "PYTHONPATH": str(notebooks)}
    environment.pop("CXX", None)
    completed = subprocess.run([sys.executable, "-c", "import lesson"], cwd=tmp_path, env=environment,
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "%%cython cells of lessons 2-6 will not build here: no C++ compiler found" in completed.stdout
