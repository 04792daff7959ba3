"""Smoke run of benchmarks/prange_busy.py: every contender timed, the ratios printed.

The figures themselves come from ``python -m benchmarks.prange_busy`` (41
rounds at 1024x1024 with one core busy); here it runs once, small, so the
script keeps working.
"""
from __future__ import annotations

from benchmarks import prange_busy


def test_the_script_prints_every_contender_and_ratio(capsys):
    medians = prange_busy.main(["--quick"])
    table = capsys.readouterr().out
    for name in ("cython_typed", "cython_class", "cython_prange, 1 thread", "cython_prange, 2 threads",
                 "cython_prange static, 2 threads"):
        assert f"| {name} |" in table and medians[name] > 0
    assert "cython_prange 2 threads / 1 thread: " in table
    assert "one spinning process" in table
