"""``polymask bench --compare`` on pytest-benchmark JSON files: rows matched by group and name."""

import copy
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from polymask.bench import main as bench_main
from polymask.bench.verdicts import ratio_interval
from tests.test_bench_compare import synthetic_pair as synthetic_bench_pair


def _benchmark(group, name, samples, keep_samples=True):
    stats = {"median": float(np.median(samples)), "mean": float(np.mean(samples)), "rounds": len(samples)}
    if keep_samples:
        stats["data"] = [float(sample) for sample in samples]
    return {
        "group": group,
        "name": name,
        "fullname": f"benchmarks/test_x.py::{name}",
        "params": None,
        "param": None,
        "extra_info": {},
        "options": {},
        "stats": stats,
    }


def synthetic_suites(keep_samples=True):
    """Two pytest-benchmark documents with known factors per (group, name).

    The same name sits in two groups with opposite changes, so a comparison
    that matched by name alone would mix them up.
    """
    rng = np.random.default_rng(11)

    def noisy(scale, count=15):
        return scale * (1 + 0.02 * rng.standard_normal(count))

    factors = {
        ("small", "test_mask[polymask]"): 0.5,
        ("large", "test_mask[polymask]"): 2.0,
        ("small", "test_mask[opencv]"): 1.0,
        (None, "test_floor"): 1.0,
    }
    machine = {
        "node": "a",
        "cpu": {"brand_raw": "Test CPU A", "count": 2},
        "python_version": "3.11.7",
        "python_implementation": "CPython",
        "system": "Linux",
        "release": "6.1",
        "machine": "x86_64",
    }
    state = {
        "date": "2026-01-01T00:00:00+00:00",
        "polymask": "0.1.0",
        "commit": "a" * 40,
        "dirty": False,
        "load_before": 0.2,
        "load_after": 0.3,
        "cores": 2,
        "cpu_share": None,
        "busy": [],
    }
    before = {
        "machine_info": machine,
        "commit_info": {"id": "a" * 40, "dirty": False},
        "datetime": "2026-01-01T00:00:00",
        "version": "5.3.1",
        "polymask_state": state,
        "benchmarks": [_benchmark(group, name, noisy(1e-3), keep_samples) for group, name in factors],
    }
    after = copy.deepcopy(before)
    after["machine_info"]["cpu"]["brand_raw"] = "Test CPU B"
    after["commit_info"]["id"] = "b" * 40
    after["benchmarks"] = [
        _benchmark(group, name, noisy(1e-3 * factor), keep_samples) for (group, name), factor in factors.items()
    ]
    return before, after


def tables(text):
    """{(group, name): cells} from the comparison's markdown."""
    rows, group = {}, None
    for line in text.splitlines():
        if line.startswith("### "):
            group = line[4:]
        elif line.startswith("| ") and not line.startswith(("| benchmark |", "|---")):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[group, cells[0]] = cells
    return rows


def run_compare(tmp_path, capsys, before, after):
    paths = [tmp_path / "before.json", tmp_path / "after.json"]
    for path, document in zip(paths, (before, after)):
        path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    status = bench_main(["--compare", str(paths[0]), str(paths[1])])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_rows_are_matched_by_group_and_name_with_their_verdicts(tmp_path, capsys):
    status, out, _ = run_compare(tmp_path, capsys, *synthetic_suites())
    assert status == 0
    rows = tables(out)
    assert rows["small", "test_mask[polymask]"][-1] == "faster"
    assert abs(float(rows["small", "test_mask[polymask]"][3]) - 0.5) < 0.03
    assert rows["large", "test_mask[polymask]"][-1] == "slower"
    assert abs(float(rows["large", "test_mask[polymask]"][3]) - 2.0) < 0.1
    assert rows["small", "test_mask[opencv]"][-1] == "no detectable change"
    assert rows["(no group)", "test_floor"][-1] == "no detectable change"
    assert "- machine cpu: Test CPU A → Test CPU B" in out and f"- commit: {'a' * 40} → {'b' * 40}" in out


def test_without_samples_the_medians_are_compared_and_no_verdict_given(tmp_path, capsys):
    before, after = synthetic_suites(keep_samples=False)
    status, out, _ = run_compare(tmp_path, capsys, before, after)
    assert status == 0
    assert "before kept no samples" in out and "after kept no samples" in out
    for cells in tables(out).values():
        assert cells[-1] == "medians only: no samples in the file" and cells[4] == "—"
    assert abs(float(tables(out)["small", "test_mask[polymask]"][3]) - 0.5) < 0.03


def test_samples_on_one_side_only_still_give_no_verdict(tmp_path, capsys):
    before, _ = synthetic_suites()
    _, after = synthetic_suites(keep_samples=False)
    _, out, _ = run_compare(tmp_path, capsys, before, after)
    assert "after kept no samples" in out and "before kept no samples" not in out
    assert {cells[-1] for cells in tables(out).values()} == {"medians only: no samples in the file"}


def test_rows_in_one_run_only_are_listed_and_busy_runs_named(tmp_path, capsys):
    before, after = synthetic_suites()
    after["benchmarks"] = after["benchmarks"][1:]  # ("small", "test_mask[polymask]") is gone
    after["polymask_state"] = dict(after["polymask_state"], busy=["the load average reached 9.0 on 2 usable core(s)"])
    _, out, _ = run_compare(tmp_path, capsys, before, after)
    assert "Not timed in both runs: test_mask[polymask] (small)." in out
    assert ("small", "test_mask[polymask]") not in tables(out)
    assert "after was measured on a busy machine (the load average reached 9.0" in out


@pytest.mark.parametrize(
    "first, second, message",
    [
        ("suite", "bench", "before.json is a pytest-benchmark file and {tmp}/after.json a bench file; compare two"),
        ("bench", "suite", "before.json is a bench file and {tmp}/after.json a pytest-benchmark file; compare two"),
        ("suite", '{"parameter": "size", "series": {}}', "after.json is a polymask bench --sweep file"),
        (
            "suite",
            "[1, 2]",
            "is neither a polymask bench --json table ('problem' and 'rows') nor a pytest-benchmark "
            "JSON file (a 'benchmarks' list); found a JSON list",
        ),
        ("suite", '{"rows": 3}', "found an object with keys ['rows']"),
        ("suite", '{"benchmarks": [{"name": "x"}]}', "benchmark 0 is not in pytest-benchmark's layout"),
        ("suite", '{"benchmarks": [{"name": "x", "stats": {"median": 0}}]}', "median must be a positive number"),
        (
            "suite",
            '{"benchmarks": [{"name": "x", "stats": {"median": 1, "data": [1, "a"]}}]}',
            "samples must be a positive number of seconds, got 'a'",
        ),
        (
            "suite",
            '{"benchmarks": [{"name": "x", "group": 3, "stats": {"median": 1}}]}',
            "'group' must be a string or null, got int",
        ),
        (
            "suite",
            '{"benchmarks": [{"name": "x", "stats": {"median": 1}}, {"name": "x", "stats": {"median": 2}}]}',
            "benchmark 0 repeats group '(no group)' and name 'x' without a 'fullname' to tell them apart",
        ),
        (
            "suite",
            '{"benchmarks": [{"name": "x", "fullname": "a::x", "stats": {"median": 1}}, '
            '{"name": "x", "fullname": "a::x", "stats": {"median": 2}}]}',
            "benchmark 1 repeats group '(no group)' and name 'a::x'; rows are matched by both",
        ),
    ],
)
def test_mixed_and_unknown_files_are_refused_by_name(tmp_path, capsys, first, second, message):
    documents = {"suite": synthetic_suites()[0], "bench": synthetic_bench_pair()[0]}
    status, out, err = run_compare(tmp_path, capsys, documents.get(first, first), documents.get(second, second))
    assert status == 2 and out == ""
    assert message.format(tmp=tmp_path) in err


def test_one_test_name_in_two_modules_is_told_apart_by_its_full_name(tmp_path, capsys):
    before, after = synthetic_suites()
    for document, scale in ((before, 1e-3), (after, 3e-3)):
        twin = _benchmark("small", "test_mask[opencv]", [scale] * 5)
        twin["fullname"] = "benchmarks/test_other.py::test_mask[opencv]"
        document["benchmarks"].append(twin)
    _, out, _ = run_compare(tmp_path, capsys, before, after)
    rows = tables(out)
    assert rows["small", "benchmarks/test_other.py::test_mask[opencv]"][3] == "3.000"
    assert rows["small", "benchmarks/test_x.py::test_mask[opencv]"][-1] == "no detectable change"


def test_a_bootstrap_of_very_many_samples_stays_bounded_and_right():
    # pytest-benchmark keeps every round; 300,000 of them must not need
    # gigabytes, and the interval must still hold the true ratio.
    rng = np.random.default_rng(5)
    before = 1e-6 * (1 + 0.05 * rng.standard_normal(300_000))
    after = 1.2e-6 * (1 + 0.05 * rng.standard_normal(300_000))
    ratio, low, high = ratio_interval(before, after)
    assert low < 1.2 < high and low > 1.1 and abs(ratio - 1.2) < 0.01


BENCHMARK_FILE = textwrap.dedent("""
    import time
    import pytest

    @pytest.mark.benchmark(group="sleeps")
    @pytest.mark.parametrize("seconds", [0.001, 0.002])
    def test_sleep(benchmark, seconds):
        benchmark.pedantic(time.sleep, args=(seconds,), rounds=5, iterations=1)
""")


def test_two_real_pytest_benchmark_runs_compare(tmp_path):
    # The layout pytest-benchmark writes, not only the synthetic one above.
    (tmp_path / "test_sleeps.py").write_text(BENCHMARK_FILE)
    for name in ("first", "second"):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--benchmark-only",
                f"--benchmark-json={tmp_path / name}.json",
                str(tmp_path / "test_sleeps.py"),
            ],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "polymask.bench",
            "--compare",
            str(tmp_path / "first.json"),
            str(tmp_path / "second.json"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = tables(done.stdout)
    assert set(rows) == {("sleeps", "test_sleep[0.001]"), ("sleeps", "test_sleep[0.002]")}
    assert all(cells[-1] in ("faster", "slower", "no detectable change") for cells in rows.values())
