"""Smoke run of benchmarks/sweep_cost.py: its cases build, and its table has a row for each.

    python -m benchmarks.sweep_cost

is the measurement (a few minutes: 30,000 crossing edges and 10^7-vertex
outlines); here only the small cases run once, and what each call returns
is checked against the contract's own definitions where they are cheap.
"""
from __future__ import annotations

import numpy as np

import polymask
from benchmarks import sweep_cost


def test_the_script_prints_a_row_per_case(capsys):
    sweep_cost.main(["--quick"])
    table = capsys.readouterr().out
    for name in sweep_cost.QUICK_CASES:
        assert f"| {name} |" in table, table


def test_the_cases_are_what_they_say():
    # A crossing polygon stays inside its rows of centres and crosses itself
    # a lot; an outline has the vertices asked for and fills about pi*0.45^2.
    vertices, shape = sweep_cost.case_problem("crossings-1000-1")
    assert shape == (1, sweep_cost.WIDTH) and vertices.shape == (1000, 2)
    assert vertices[:, 1].min() > -0.5 and vertices[:, 1].max() < 0.5
    vertices, shape = sweep_cost.case_problem("outline-10000-100")
    assert shape == (100, 100) and vertices.shape == (10_000, 2)
    fraction = polymask.coverage(vertices, shape).sum() / 100**2
    assert abs(fraction - np.pi * 0.45**2) < 0.03, fraction
