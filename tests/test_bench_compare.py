"""``polymask bench --compare`` and ``--from-json`` on bench's own JSON."""
import copy
import json
import subprocess
import sys

import numpy as np
import pytest

from polymask.bench import main as bench_main
from polymask.bench.compare import compare
from polymask.bench.verdicts import ratio_interval, verdict

MACHINE = {"cpu": "Test CPU A", "cores": 2, "threads": 2, "openmp": True, "compiler": "GNU 12.2.0",
           "python": "3.11.7", "numpy": "2.0", "cython": "3.1", "polymask": "0.1.0", "opencl_device": "none",
           "platform": "Linux"}
PROBLEM = {"rows": 64, "cols": 64, "vertices": 7, "seed": 2014, "repeats": 9, "slow_repeats": 3, "threads": 0,
           "quick": False}


def _row(name, samples):
    return {"kind": "stage", "id": name, "title": name.title(), "seconds": float(np.median(samples)),
            "convention": "contract", "samples": [float(sample) for sample in samples]}


def synthetic_pair():
    """Two reports whose rows differ by known factors: 0.5x, 2x, 1x, and one with a single sample."""
    rng = np.random.default_rng(7)

    def noisy(scale):
        return scale * (1 + 0.02 * rng.standard_normal(9))

    state = {"date": "2026-01-01T00:00:00+00:00", "polymask": "0.1.0", "commit": "a" * 40, "dirty": False,
             "load_before": 0.1, "load_after": 0.2, "cores": 2, "cpu_share": 0.99, "busy": []}
    before = {"problem": PROBLEM, "machine": MACHINE, "state": state,
              "rows": [_row("halved", noisy(1e-3)), _row("doubled", noisy(1e-3)), _row("same", noisy(1e-3)),
                       _row("once", [1e-3])]}
    after = copy.deepcopy(before)
    after["machine"]["cpu"] = "Test CPU B"
    after["state"]["commit"] = "b" * 40
    after["rows"] = [_row("halved", noisy(0.5e-3)), _row("doubled", noisy(2e-3)), _row("same", noisy(1e-3)),
                     _row("once", [2e-3])]
    return before, after


def verdicts(text):
    rows = {}
    for line in text.splitlines():
        if line.startswith("| ") and "(`" in line:
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[0].split("`")[1]] = cells
    return rows


def test_known_differences_get_their_verdicts():
    before, after = synthetic_pair()
    rows = verdicts(compare(before, after))
    assert rows["halved"][-1] == "faster" and abs(float(rows["halved"][3]) - 0.5) < 0.03
    assert rows["doubled"][-1] == "slower" and abs(float(rows["doubled"][3]) - 2) < 0.1
    assert rows["same"][-1] == "no detectable change"
    assert rows["once"][-1].startswith("too few samples")


def test_what_differs_between_the_runs_is_named():
    before, after = synthetic_pair()
    text = compare(before, after)
    assert "- machine cpu: Test CPU A → Test CPU B" in text
    assert f"- commit: {'a' * 40} → {'b' * 40}" in text
    assert "numpy" not in text.split("| row |")[0]  # the same on both sides: not listed
    after["state"]["busy"] = ["the load average reached 9.0 on 2 usable core(s)"]
    assert "after was measured on a busy machine" in compare(before, after)


def test_a_run_against_itself_changes_nothing():
    before, _ = synthetic_pair()
    text = compare(before, before)
    assert "nothing but the time of the run" in text
    assert all(cells[-1] in ("no detectable change",) or cells[-1].startswith("too few")
               for cells in verdicts(text).values())


def test_the_interval_holds_the_true_ratio():
    # An independent check of the bootstrap: samples drawn around a known
    # ratio of 1.5 give an interval around 1.5 that excludes 1.
    rng = np.random.default_rng(3)
    before, after = 1 + 0.05 * rng.standard_normal(15), 1.5 * (1 + 0.05 * rng.standard_normal(15))
    ratio, low, high = ratio_interval(before, after)
    assert low < 1.5 < high and low > 1 and low <= ratio <= high
    assert verdict(after, before)[3] == "faster"


def test_compare_from_the_command_line(tmp_path, capsys):
    before, after = synthetic_pair()
    paths = [tmp_path / "before.json", tmp_path / "after.json"]
    for path, report in zip(paths, (before, after)):
        path.write_text(json.dumps(report))
    assert bench_main(["--compare", str(paths[0]), str(paths[1])]) == 0
    assert verdicts(capsys.readouterr().out)["halved"][-1] == "faster"


@pytest.mark.parametrize("content, message", [
    ('{"benchmarks": []}', "is a bench file and"),
    ('{"problem": {}, "machine": {}, "rows": [{"id": "x"}]}', "row 0 is not a bench row"),
    ('{"problem": {}, "machine": {}, "rows": [{"kind": "stage", "id": "x", "title": "x", "seconds": -1}]}',
     "row 0's seconds must be a positive number, got -1"),
])
def test_compare_refuses_what_is_not_a_bench_table(tmp_path, capsys, content, message):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(synthetic_pair()[0]))
    bad.write_text(content)
    assert bench_main(["--compare", str(good), str(bad)]) == 2
    assert message in capsys.readouterr().err


def test_from_json_prints_a_bench_report_as_the_run_did(tmp_path):
    report = tmp_path / "run.json"
    run = subprocess.run([sys.executable, "-m", "polymask.bench", "--size", "48", "--vertices", "7", "--stages",
                          "python,scanline", "--no-peers", "--no-progress", "--quick", "--repeats", "3",
                          "--json", str(report)], capture_output=True, text=True, check=True)
    again = subprocess.run([sys.executable, "-m", "polymask.bench", "--from-json", str(report)],
                           capture_output=True, text=True, check=True)
    assert again.stdout == run.stdout
    document = json.loads(report.read_text())
    assert all(len(row["samples"]) >= 3 for row in document["rows"])
    # And a run compared with itself through the files.
    same = subprocess.run([sys.executable, "-m", "polymask.bench", "--compare", str(report), str(report)],
                          capture_output=True, text=True, check=True)
    assert set(cells[-1] for cells in verdicts(same.stdout).values()) == {"no detectable change"}


def test_from_json_shows_a_scaled_stage_in_the_full_problems_table(tmp_path, capsys):
    # A slow stage timed at 128x128 sits in its own pytest-benchmark group;
    # polymask bench shows it in the full problem's table, scaled and marked.
    full = "standard 1024x1024, 24 vertices"
    document = {"benchmarks": [
        {"name": "test_stage[scanline]", "group": full, "stats": {"median": 5e-5},
         "extra_info": {"backend": "scanline", "scale": 1.0}},
        {"name": "test_stage[python]", "group": "standard polygon scaled to 128x128, 24 vertices",
         "stats": {"median": 0.03}, "extra_info": {"backend": "python", "scale": 64.0, "scaled_group": full}}]}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document))
    assert bench_main(["--from-json", str(path)]) == 0
    table = capsys.readouterr().out
    assert f"### {full}" in table and "128x128" not in table
    python = next(line for line in table.splitlines() if "(`python`)" in line)
    assert "| 1.92 s * |" in python  # 30 ms x 64
