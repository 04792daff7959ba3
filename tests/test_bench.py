"""The benchmark runner, checked for what it prints and writes, not for timings."""
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import polymask
from polymask.bench import main as bench_main
from polymask.bench.from_json import table_from_pytest_benchmark
from polymask.bench.report import format_seconds
from polymask.course import peers, stages

SMALL = ["--size", "48", "--vertices", "7", "--repeats", "1", "--no-progress"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench")
    paths = {kind: folder / f"report.{kind}" for kind in ("json", "csv", "png")}
    capture = subprocess.run(
        [sys.executable, "-m", "polymask.bench", *SMALL, "--quick",
         "--json", str(paths["json"]), "--csv", str(paths["csv"]), "--plot", str(paths["png"])],
        capture_output=True, text=True, check=True)
    return capture.stdout, paths


def table_rows(markdown):
    """{id: cells} for every table row that names a backend in backticks or a peer title."""
    rows = {}
    for line in markdown.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            match = re.search(r"\(`([a-z_0-9]+)`\)", cells[0])
            rows[match.group(1) if match else cells[0]] = cells
    return rows


def test_every_stage_row_is_present(small_run):
    rows = table_rows(small_run[0])
    for stage in stages.STAGES:
        assert stage.id in rows, f"stage {stage.id} missing from the table"


def test_every_installed_peer_row_is_present(small_run):
    rows = table_rows(small_run[0])
    installed = [peer for peer in peers.PEERS if peer.availability()[0]]
    assert installed, "the test extra installs the peers; none imports"
    for peer in installed:
        assert peer.title in rows, f"peer {peer.id} missing from the table"


def test_available_stages_are_timed_and_match_the_contract(small_run):
    report = json.loads(small_run[1]["json"].read_text())
    by_id = {row["id"]: row for row in report["rows"]}
    for stage_id, status in polymask.available_backends().items():
        row = by_id[stage_id]
        if status.available:
            assert row["seconds"] > 0 and row["pixels_differing"] == 0, row
        else:
            assert row["seconds"] is None and "not available" in row["note"]


def test_the_librarys_opencl_call_sits_beside_the_course_rung(small_run):
    rows = table_rows(small_run[0])
    names = list(rows)
    assert names.index("opencl_mask") == names.index("opencl") + 1, "right below the course's OpenCL rung"
    cells = rows["opencl_mask"]
    assert cells[0].startswith("polymask.opencl.mask, the library's default (") and cells[-2] == "0", cells


def test_json_and_csv_carry_the_numbers_of_the_table(small_run):
    markdown, paths = small_run
    rows = table_rows(markdown)
    report = json.loads(paths["json"].read_text())
    with open(paths["csv"], newline="") as handle:
        csv_rows = {row["id"]: row for row in csv.DictReader(handle)}
    checked = 0
    for row in report["rows"]:
        if row["seconds"] is None or row["kind"] == "floor":
            continue
        key = row["id"] if row["kind"] != "peer" else row["title"]
        assert rows[key][1].rstrip(" *") == format_seconds(row["seconds"])
        assert float(csv_rows[row["id"]]["seconds"]) == pytest.approx(row["seconds"], rel=1e-12)
        assert int(csv_rows[row["id"]]["pixels_differing"]) == row["pixels_differing"]
        checked += 1
    assert checked >= 3
    floor = next(row for row in report["rows"] if row["kind"] == "floor")
    assert format_seconds(floor["seconds"]) in markdown


def test_quick_marks_slow_stages_as_extrapolated(small_run):
    report = json.loads(small_run[1]["json"].read_text())
    timed_slow = 0
    for row in report["rows"]:
        if row["kind"] in ("stage", "side") and row["seconds"] is not None:
            assert row["extrapolated"] == stages.get(row["id"]).slow
            timed_slow += stages.get(row["id"]).slow
    assert ("extrapolated" in small_run[0]) == (timed_slow > 0)


def test_header_names_the_machine(small_run):
    markdown = small_run[0]
    for needle in ("CPU:", "cores usable", "default threads: ", "thread pool", "compiler:", "NumPy", "Cython",
                   "OpenCL device:"):
        assert needle in markdown


def test_header_names_the_cython_that_compiled_the_stages(small_run, monkeypatch):
    from polymask.bench import machine
    from polymask.course.stages import cython_typed

    built = ".".join(re.match(r"_cython_(\d+)_(\d+)_(\d+)", type(cython_typed.mask).__module__).groups())
    assert f"Cython {built} (compiled the stages)" in small_run[0]
    # Cython absent at run time (pip builds in an isolated environment): the stages still say.
    monkeypatch.setattr(machine, "_package_version", lambda name: "not installed")
    assert machine.stages_cython() == f"{built} (compiled the stages)"


def test_plot_is_a_valid_png(small_run):
    png = small_run[1]["png"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    assert matplotlib.image.imread(small_run[1]["png"]).shape[0] > 100


def test_from_json_reads_a_real_pytest_benchmark_file(tmp_path):
    output = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "benchmarks/test_mask_vs_opencv.py", "-k", "standard", "--benchmark-only",
                    "--benchmark-min-rounds=3", "--benchmark-max-time=0.05", f"--benchmark-json={output}"],
                   check=True, capture_output=True)
    document = json.loads(output.read_text())
    table = table_from_pytest_benchmark(output)
    for entry in document["benchmarks"]:
        assert format_seconds(entry["stats"]["median"]) in table
    assert "`scanline`" in table or "polymask" in table
    assert "standard-1024-24" in table


def test_from_json_rejects_a_file_that_is_not_pytest_benchmark(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"rows": []}')
    with pytest.raises(ValueError, match="not a pytest-benchmark JSON file"):
        table_from_pytest_benchmark(path)


def test_sweep_writes_a_table_and_a_plot(tmp_path, capsys):
    plot = tmp_path / "sweep.png"
    assert bench_main(["--sweep", "threads", "--size", "64", "--repeats", "1", "--no-progress",
                       "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("| threads | scanline") for line in out.splitlines())
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_cli_entry_point_passes_options_through(capsys):
    from polymask.cli import main

    assert main(["bench", "--stages", "scanline", "--no-peers", *SMALL]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert "scanline" in rows and "python" not in rows


def test_bad_options_are_reported(capsys):
    with pytest.raises(SystemExit):
        bench_main(["--size", "0"])
    assert "--size must be at least 1, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        bench_main(["--stages", "warp_drive", *SMALL])
    assert stopped.value.code == 2 and "unknown stages ['warp_drive']" in capsys.readouterr().err


def test_the_bench_package_keeps_only_the_cli_entry_in_its_init():
    # Issue 12: table, sweep and progress live in their own modules; the
    # notebook and the CLI still find parse_args, run_table and main here.
    from polymask import bench
    from polymask.bench import progress, sweep, table

    assert bench.run_table is table.run_table and bench.run_sweep is sweep.run_sweep
    assert hasattr(progress, "Progress") and callable(bench.parse_args) and callable(bench.main)
    # Their sizes (bench/__init__.py at most 150 lines) are capped by scripts/lint.py.


@pytest.mark.wallclock  # the ratio bound holds only where the two calls get the same machine
def test_alternating_ratio_script_prints_every_case():
    # benchmarks/alternating.py measures the all_touched / centre ratio
    # with the two calls alternated; a smoke run keeps it working.
    root = Path(__file__).resolve().parents[1]
    capture = subprocess.run([sys.executable, "-m", "benchmarks.alternating", "--quick"],
                             capture_output=True, text=True, check=True, cwd=root)
    rows = [line for line in capture.stdout.splitlines() if line.startswith("| ") and "ms)" not in line]
    assert [row.split("|")[1].strip() for row in rows] == ["label-image", "outline-1000", "random-1000", "star-1000"]
    for row in rows:
        ratio = float(row.split("|")[4])
        assert ratio > 0.5, row  # all_touched does at least the centre rule's work
    refused = subprocess.run([sys.executable, "-m", "benchmarks.alternating", "--pairs", "0"],
                             capture_output=True, text=True, cwd=root)
    assert refused.returncode == 2 and "--pairs must be at least 1, got 0" in refused.stderr


def _one_benchmark(**changes):
    """A minimal pytest-benchmark document, one entry, with `changes` made to it."""
    entry = {"name": "test_x", "group": "g", "stats": {"median": 0.5},
             "extra_info": {"backend": "scanline", "matches_contract": True}}
    for key, value in changes.items():
        if key == "median":
            entry["stats"]["median"] = value
        else:
            entry["extra_info"][key] = value
    return {"benchmarks": [entry]}


@pytest.mark.parametrize("changes", [{"median": 0}, {"median": -1.0}, {"median": "fast"}, {"median": float("nan")},
                                     {"matches_contract": "yes"}, {"matches_contract": [1]},
                                     {"pixels_differing": "3"}, {"scale": 0}],
                         ids=["zero-median", "negative-median", "string-median", "nan-median", "string-matches",
                              "list-matches", "string-pixels", "zero-scale"])
def test_from_json_refuses_values_that_cannot_be_what_they_name(tmp_path, capsys, changes):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_one_benchmark(**changes)))
    assert bench_main(["--from-json", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("polymask bench: cannot read --from-json") and "benchmark 0" in err
    assert "Traceback" not in err


def test_from_json_still_reads_the_minimal_document(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_one_benchmark()))
    assert bench_main(["--from-json", str(path)]) == 0
    assert "`scanline`" in capsys.readouterr().out


def test_from_json_refuses_deep_nesting_special_files_and_huge_files(tmp_path, capsys):
    import os

    from polymask.bench.from_json import MAX_JSON_BYTES

    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it would block forever
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:
        handle.truncate(MAX_JSON_BYTES + 10)
    for path, words in [(nested, "nests its JSON too deeply"), (fifo, "is not a regular file"),
                        ("/dev/zero", "is not a regular file"), (huge, "is larger than")]:
        assert bench_main(["--from-json", str(path)]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, err


def test_an_output_file_that_cannot_be_written_stops_the_run_before_it_starts(tmp_path, capsys):
    target = "/proc/version"  # exists, readable, never writable (even by root)
    with pytest.raises(SystemExit) as stopped:
        bench_main(["--json", target, "--stages", "scanline", "--no-peers", *SMALL])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"--json {target!r} cannot be written" in err
    # A file that can be written is not left behind by the check.
    fresh = tmp_path / "fresh.json"
    assert bench_main(["--json", str(fresh), "--stages", "scanline", "--no-peers", *SMALL]) == 0
    assert json.loads(fresh.read_text())


def test_the_chart_marks_extrapolated_bars_and_the_opencl_device(tmp_path):
    pytest.importorskip("matplotlib")
    from unittest import mock

    from matplotlib.figure import Figure

    from polymask.bench import report

    rows = [{"kind": "stage", "id": "python", "speedup": 1.0, "speedup_2014": 1.0, "extrapolated": True},
            {"kind": "stage", "id": "cython_typed", "speedup": 50.0, "speedup_2014": 10.0},
            {"kind": "stage", "id": "opencl", "speedup": 90.0, "speedup_2014": 12000.0}]
    machine = {"opencl_device": "pthread-Some CPU (cpu, 2 compute units, fp64: yes; OpenCL 3.0 PoCL)"}
    saved = []
    with mock.patch.object(Figure, "savefig", lambda figure, *args, **kwargs: saved.append(figure)):
        report.plot_speedups({"rows": rows, "problem": {"rows": 64, "cols": 64, "vertices": 24},
                              "machine": machine}, str(tmp_path / "chart.png"))
    axes = saved[0].axes[0]
    labels = [label.get_text() for label in axes.get_xticklabels()]
    assert labels[2] == "opencl\n(here: CPU;\n2014: GPU)"
    hatched = [patch.get_height() for patch in axes.patches if patch.get_hatch() == "//"]
    assert [height for height in hatched if height == height] == [1.0]  # python's bar of this run (nan: legend)
    legend = axes.get_legend()
    entries = dict(zip([text.get_text() for text in legend.get_texts()], legend.legend_handles))
    assert entries["extrapolated (timed on a band of rows, scaled up)"].get_hatch() == "//"
    assert not entries["this machine"].get_hatch()  # not drawn like the first (extrapolated) bar
