"""``polymask bench`` keeps every sample, times rows in interleaved rounds, and judges the machine's state."""
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

import polymask
from polymask.bench import main as bench_main
from polymask.bench import parse_args, run_table
from polymask.bench.report import markdown
from polymask.bench.state import busy_reasons
from polymask.bench.timing import Contender, interleaved

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--size", "48", "--vertices", "7", "--stages", "python,cython_typed,scanline", "--no-peers",
        "--no-progress", "--repeats", "5"]


def quiet_load():
    return (0.05, 0.05, 0.05)


@pytest.fixture(scope="module")
def quiet_report():
    # A quiet machine, faked: no load, and CPU time read from the wall clock
    # (so every single-threaded sample got all of its wall time as CPU).
    return run_table(parse_args([*TINY, "--quick"]), getloadavg=quiet_load, cpu_clock=time.perf_counter)


def test_every_sample_is_kept_with_its_cpu_time(quiet_report):
    rows = {row["id"]: row for row in quiet_report["rows"]}
    for name in ("cython_typed", "scanline", "floor"):
        assert len(rows[name]["samples"]) == 5 == len(rows[name]["cpu_samples"])
    # The pure-Python baseline, every speed-up's denominator: at least 3 samples.
    assert len(rows["python"]["samples"]) == 3 and rows["python"]["extrapolated"]
    for row in rows.values():
        assert row["seconds"] == statistics.median(row["samples"])
        assert row["q1"] <= row["seconds"] <= row["q3"]
        assert all(sample > 0 for sample in row["samples"])


def test_the_table_shows_the_spread_and_cpu_time(quiet_report):
    lines = markdown(quiet_report).splitlines()
    header_line = next(line for line in lines if line.startswith("| stage |"))
    header = [cell.strip() for cell in header_line.strip("|").split("|")]
    assert {"time", "IQR", "CPU/wall", "samples"} <= set(header)
    python = next(line for line in lines if "(`python`)" in line)
    cells = dict(zip(header, (cell.strip() for cell in python.strip("|").split("|"))))
    assert cells["samples"] == "3" and cells["IQR"].endswith("%)") and cells["CPU/wall"] == "1.00"


def test_a_quiet_state_gives_no_warning(quiet_report):
    state = quiet_report["state"]
    assert state["busy"] == [] and state["load_before"] == state["load_after"] == 0.05
    assert state["cpu_share"] == pytest.approx(1.0, abs=1e-3)
    assert "busy" not in markdown(quiet_report)


def test_the_header_records_date_version_commit_and_load(quiet_report):
    state = quiet_report["state"]
    assert state["polymask"] == polymask.__version__
    assert abs(time.time() - _parse_utc(state["date"])) < 3600
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0 and Path.cwd().resolve() == ROOT:  # run from this checkout
        assert state["commit"] == head.stdout.strip() and state["dirty"] in (True, False)
    table = markdown(quiet_report)
    assert f"measured {state['date']} (UTC), polymask {polymask.__version__}" in table
    assert "load average 0.05 → 0.05" in table


def _parse_utc(text):
    import datetime

    return datetime.datetime.fromisoformat(text).timestamp()


def test_slow_repeats_below_three_are_refused(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_main([*TINY, "--slow-repeats", "2"])
    assert exit_info.value.code == 2
    assert "--slow-repeats must be at least 3, got 2" in capsys.readouterr().err


def test_contenders_are_sampled_in_interleaved_rounds():
    order = []
    contenders = [Contender(name, lambda name=name: order.append(name), wanted, calibrated=True)
                  for name, wanted in (("a", 3), ("b", 3), ("c", 1))]
    interleaved(contenders, cpu_clock=time.perf_counter)
    # One sample of each per round, the order reversed every other round (c is done after one).
    assert order == ["a", "b", "c", "b", "a", "a", "b"]
    assert [len(contender.wall) for contender in contenders] == [3, 3, 1]


@pytest.mark.parametrize("load_before, load_after, cores, share, expected", [
    (0.3, 0.5, 2, 0.98, []),
    (None, None, 2, None, []),
    (3.5, 1.0, 2, 0.98, ["the load average reached 3.5 on 2 usable core(s)"]),
    (0.5, 0.5, 4, 0.4, ["single-threaded rows got 40% of their wall time as CPU time (other processes had the cores)"]),
])
def test_busy_reasons(load_before, load_after, cores, share, expected):
    assert busy_reasons(load_before, load_after, cores, share) == expected


SPIN = "while True: pass"


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="pins processes to one core (Linux)")
def test_spinning_processes_make_the_table_warn(tmp_path):
    # Two busy loops and the bench share one core, so the bench gets about a
    # third of its wall time as CPU time, whatever else the machine does.
    core = min(os.sched_getaffinity(0))

    def pin():
        os.sched_setaffinity(0, {core})

    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], preexec_fn=pin) for _ in range(2)]
    try:
        report = tmp_path / "busy.json"
        done = subprocess.run([sys.executable, "-m", "polymask.bench", *TINY, "--quick", "--json", str(report)],
                              capture_output=True, text=True, preexec_fn=pin, timeout=600)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    assert done.returncode == 0, done.stderr[-2000:]
    assert "**The machine was busy: these figures are unreliable**" in done.stdout
    state = json.loads(report.read_text())["state"]
    assert state["busy"] and state["cores"] == 1 and state["cpu_share"] < 0.8


def test_slow_stages_on_the_full_image_get_three_samples_checked_whole():
    report = run_table(parse_args(["--size", "24", "--vertices", "7", "--stages", "python", "--no-peers",
                                   "--no-progress", "--repeats", "3"]),
                       getloadavg=quiet_load, cpu_clock=time.perf_counter)
    python = report["rows"][0]
    assert len(python["samples"]) == 3 and not python["extrapolated"]
    assert python["checked_rows"] == 24 and python["pixels_differing"] == 0
    assert "extrapolated" not in markdown(report)


def test_cpu_time_counts_the_work_of_a_forked_child():
    # A stage that holds the GIL runs a long call in a forked child: its CPU time must count.
    from polymask.bench.timing import process_cpu_seconds

    before = process_cpu_seconds()
    child = os.fork()
    if child == 0:  # burn 0.2 s of CPU, then leave without running the parent's cleanup
        end = time.process_time() + 0.2
        while time.process_time() < end:
            pass
        os._exit(0)
    os.waitpid(child, 0)
    assert process_cpu_seconds() - before >= 0.15
