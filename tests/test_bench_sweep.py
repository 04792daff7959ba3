"""``polymask bench --sweep`` and the table's options: warm-up, --stages, "—", titles, 2014 columns, --quick."""
import copy
import time

import numpy as np
import pytest

import polymask
from polymask.bench import parse_args, run_sweep, run_table
from polymask.bench import sweep as sweeps
from polymask.bench.report import markdown, sweep_markdown, sweep_title
from polymask.course import peers
from polymask.course.problems import STANDARD_SEED, STANDARD_SIZE, STANDARD_VERTICES

COLD_SECONDS = 0.3


def cold_peer():
    """A peer whose first call costs COLD_SECONDS (a JIT, say) and whose answer is one pixel off."""
    calls = []

    def fill(vertices, shape):
        if not calls:
            time.sleep(COLD_SECONDS)
        calls.append(shape)
        mask = polymask.mask(vertices, shape)
        mask[0, 0] = not mask[0, 0]
        return mask

    return peers.Peer("opencv", "a cold peer", "one pixel off", "numpy", fill)


@pytest.fixture
def swept(monkeypatch):
    peer = cold_peer()
    monkeypatch.setattr(peers, "PEERS", (peer,))
    monkeypatch.setattr(peers, "get", lambda peer_id: peer)
    monkeypatch.setitem(sweeps.SWEEP_VALUES, "vertices", [3, 10])
    args = parse_args(["--sweep", "vertices", "--size", "64", "--repeats", "1", "--stages", "scanline",
                       "--no-progress"])
    return run_sweep(args, getloadavg=lambda: (0.1, 0.1, 0.1))


def test_the_first_call_is_a_warm_up_not_a_timing(swept):
    # Timed cold, the peer's first point would be COLD_SECONDS.
    assert [value for value, _ in swept["series"]["opencv"]] == [3, 10]
    assert all(seconds < COLD_SECONDS / 3 for _, seconds in swept["series"]["opencv"])


def test_stages_are_honoured_and_pixels_checked_per_point(swept):
    assert list(swept["series"]) == ["scanline", "opencv"]
    assert swept["differing"] == {"scanline": [(3, 0), (10, 0)], "opencv": [(3, 1), (10, 1)]}
    table = sweep_markdown(swept)
    assert "| 3 |" in table and "(1 px)" in table and "warm-up" in table


def test_a_sweep_refuses_stages_it_does_not_time():
    with pytest.raises(SystemExit, match="--sweep times only scanline, cython_prange, numba, opencl; "
                                         "--stages python names none of them"):
        run_sweep(parse_args(["--sweep", "size", "--stages", "python", "--no-progress"]))


def test_dashes_are_explained(monkeypatch, swept):
    stopped = copy.deepcopy(swept)
    stopped["series"]["opencv"] = stopped["series"]["opencv"][:1]
    stopped["stopped"] = {"opencv": "over 0.25 s per mask at vertices=3, so the larger values were skipped"}
    table = sweep_markdown(stopped)
    assert "| 10 |" in table and "| — |" in table
    assert "— : not timed at that value: opencv took over 0.25 s per mask at vertices=3" in table
    assert "— :" not in sweep_markdown(swept)  # nothing missing, nothing to explain


def test_the_plot_title_names_problem_machine_and_date(swept):
    title = sweep_title(swept)
    assert "over vertices, 64x64 image, seed 2014" in title
    assert swept["machine"]["cpu"] in title and swept["state"]["date"][:10] in title


@pytest.fixture(scope="module")
def small_report():
    return run_table(parse_args(["--size", "48", "--vertices", "7", "--stages", "python,scanline", "--no-peers",
                                 "--no-progress", "--repeats", "3", "--quick"]),
                     getloadavg=lambda: (0.1, 0.1, 0.1), cpu_clock=time.perf_counter)


def test_the_2014_columns_only_for_the_standard_problem(small_report):
    table = markdown(small_report)
    assert "| 2014 time" not in table and "The 2014 columns are left out" in table
    standard = copy.deepcopy(small_report)
    standard["problem"].update(rows=STANDARD_SIZE, cols=STANDARD_SIZE, vertices=STANDARD_VERTICES,
                               seed=STANDARD_SEED)
    table = markdown(standard)
    assert "| 2014 time | 2014 speed-up |" in table and "left out" not in table
    python = next(line for line in table.splitlines() if "(`python`)" in line)
    assert "| 36 s | 1 |" in python


def test_quick_says_how_much_of_the_mask_it_checked(small_report):
    python = next(row for row in small_report["rows"] if row["id"] == "python")
    band = python["checked_rows"]
    assert band < 48 and python["extrapolated"]
    # The band checked is the band timed: its reference is polymask.mask on it.
    assert f"timed on a band of {band} of 48 rows ({band / 48:.0%})" in markdown(small_report)
    assert "pixels differing were counted on that band only" in markdown(small_report)
    assert np.all([row["checked_rows"] == 48 for row in small_report["rows"] if row["id"] == "scanline"])
