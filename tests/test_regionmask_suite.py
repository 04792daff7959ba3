"""regionmask's own test_mask.py, with polymask answering its mask routines (tests/regionmask_adapter.py).

regionmask's test files are read from the installed package (``--pyargs
regionmask.tests.test_mask``), never copied.  Every test that passes with
regionmask itself must pass with polymask deciding which region holds each
grid point.
"""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

pytest.importorskip("regionmask")
ROOT = Path(__file__).resolve().parent.parent


def run_suite(folder: Path, name: str, *options: str) -> dict[str, str]:
    """{test id: outcome} of regionmask's test_mask.py run in a subprocess from `folder`."""
    report = folder / f"{name}.xml"
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "POLYMASK_ADAPTER_CALLS": str(folder / "calls")}
    subprocess.run([sys.executable, "-m", "pytest", "--pyargs", "regionmask.tests.test_mask", "-q",
                    "-p", "no:cacheprovider", f"--junitxml={report}", *options],
                   cwd=folder, env=environment, capture_output=True, text=True, timeout=600)
    outcomes = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        outcomes[f"{case.get('classname')}::{case.get('name')}"] = outcome
    return outcomes


def test_regionmask_test_mask_passes_with_polymask_answering(tmp_path):
    own = run_suite(tmp_path, "regionmask")
    calls = tmp_path / "calls"
    assert not calls.exists()
    answered = run_suite(tmp_path, "polymask", "-p", "tests.regionmask_adapter")
    assert int(calls.read_text()) > 100, "polymask answered too few of regionmask's mask calls"
    passing = sorted(test for test, outcome in own.items() if outcome == "passed")
    assert len(passing) > 200
    broken = [test for test in passing if answered.get(test) != "passed"]
    assert not broken, f"{len(broken)} of regionmask's passing tests fail with polymask: {broken[:10]}"
