"""The 2014 columns carry the 2014 course notes' figures, and nothing else.

The notes timed eight stages on a 1024x1024 image and a random 24-vertex
polygon (dual quad-core Xeon 5520 @ 2.27 GHz, GeForce Titan).  They give
no time for the vectorised NumPy stage, Numba or the scanline fill: those
rows show none, wherever a 2014 column appears (the registry, the bench
report, the README and the performance page).
"""
import re
from pathlib import Path

import pytest

from polymask.bench import report
from polymask.course import stages

ROOT = Path(__file__).resolve().parents[1]

#: Stage id -> (seconds, speed-up over pure Python), exactly as the 2014 notes print them.
NOTES_2014 = {"python": ("36 s", "1"), "python_numpy": ("450 s", "0.08"), "cython_plain": ("9 s", "4"),
              "cython_typed": ("3.6 s", "10"), "cython_cpp": ("270 ms", "133"), "cython_class": ("118 ms", "305"),
              "cython_prange": ("20 ms", "1,800"), "opencl": ("3 ms", "12,000")}


def _shown(stage):
    """The stage's 2014 time and speed-up as the report prints them ("—": none)."""
    speedup = stage.speedup_2014
    if speedup is not None and speedup < 1:
        speedup = round(speedup, 2)  # the notes print 0.08 (36 / 450)
    return report.format_seconds(stage.seconds_2014), report.format_ratio(speedup)


@pytest.mark.parametrize("stage", stages.STAGES, ids=lambda stage: stage.id)
def test_registry_gives_the_notes_figures_or_none(stage):
    assert _shown(stage) == NOTES_2014.get(stage.id, ("—", "—"))


def test_the_report_prints_the_registry_figures():
    for stage in stages.STAGES:
        row = {"kind": "stage", "id": stage.id, "title": stage.title, "seconds": None,
               "seconds_2014": stage.seconds_2014, "speedup_2014": stage.speedup_2014}
        columns = [cell.strip() for cell in report._stage_line(row).split("|")]
        assert columns[4] == report.format_seconds(stage.seconds_2014), stage.id
        assert (columns[5] == "—") == (stage.id not in NOTES_2014), stage.id


@pytest.mark.parametrize("page", ["README.md", "docs/performance.md"])
def test_published_tables_carry_the_notes_figures(page):
    rows = {}
    for line in (ROOT / page).read_text(encoding="utf-8").splitlines():
        found = re.match(r"\| .* \(`(\w+)`\) \|", line)
        if found and found.group(1) in stages.ids():
            columns = [cell.strip() for cell in line.split("|")]
            rows[found.group(1)] = (columns[4], columns[5])
    assert rows, f"{page} has no stage table"
    for stage_id, (seconds, speedup) in rows.items():
        expected_seconds, expected_speedup = NOTES_2014.get(stage_id, ("—", "—"))
        assert seconds == expected_seconds, (page, stage_id)
        assert speedup.replace(",", "") == expected_speedup.replace(",", ""), (page, stage_id)
