"""rasterio's own rasterize and geometry_mask tests, with polymask burning (tests/rasterio_adapter.py).

rasterio's tests/test_features.py and conftest.py come from rasterio's sdist
on PyPI (tests/rasterio_tests.py), never copied into this repository.  The
tests named ``rasterize`` or ``geometry_mask`` run twice in subprocesses:
with GDAL burning, then with polymask burning behind rasterio's own
argument checks.  Every test that passes with GDAL must pass with polymask.
Not judged: output written to a dataset (``dst_path=``; polymask fills
arrays, so those burns stay GDAL's and are not counted as polymask's).
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from tests.rasterio_tests import rasterio_tests

ROOT = Path(__file__).resolve().parent.parent
#: The tests polymask does not answer: their output goes to a dataset.
DATASET_OUTPUT = ("test_rasterize_to_dataset", "test_rasterize_to_file")


def run_suite(report: Path, burn: str, calls: Path) -> dict[str, str]:
    """{test name: outcome} of rasterio's rasterize and geometry_mask tests, GDAL or polymask burning."""
    python_path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    environment = {
        **os.environ,
        "PYTHONPATH": python_path,
        "POLYMASK_ADAPTER_BURN": burn,
        "POLYMASK_ADAPTER_CALLS": str(calls),
    }
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "rasterio_tests/test_features.py",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.rasterio_adapter",
            "-k",
            "rasterize or geometry_mask",
            f"--junitxml={report}",
        ],
        cwd=rasterio_tests(),
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    outcomes = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        outcomes[str(case.get("name"))] = outcome
    return outcomes


def test_rasterios_feature_tests_pass_with_polymask_burning(tmp_path):
    own = run_suite(tmp_path / "gdal.xml", "gdal", tmp_path / "gdal-calls")
    assert not (tmp_path / "gdal-calls").exists()
    answered = run_suite(tmp_path / "polymask.xml", "polymask", tmp_path / "calls")
    assert int((tmp_path / "calls").read_text()) >= 30, "polymask answered too few of rasterio's burns"
    passing = sorted(test for test, outcome in own.items() if outcome == "passed")
    assert len(passing) >= 40
    broken = [test for test in passing if answered.get(test) != "passed"]
    assert not broken, f"{len(broken)} of rasterio's passing tests fail with polymask burning: {broken}"
    assert {test.split("[")[0] for test in passing} >= {
        "test_rasterize_line",
        "test_rasterize_multiline",
        "test_rasterize_point",
        "test_rasterize_merge_alg_add",
    }
