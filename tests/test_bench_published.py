"""Every published performance figure carries its date, commit, machine, load and command."""

import copy
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import matplotlib.axes
import pytest
from myst_parser.mdit_to_docutils.base import default_slugify

from benchmarks import publish, published_figures
from polymask.bench import main as bench_main
from polymask.bench import parse_args, run_table
from polymask.bench.report import plot_speedups, provenance
from tests._opencl_support import needs_device
from tests.test_bench_groups import ONE_ROUND, ROOT, _run_pytest

PERFORMANCE = ROOT / "docs" / "performance.md"
STATE = {
    "date": "2026-03-04T05:06:07+00:00",
    "polymask": "0.1.0",
    "commit": "c0ffee" * 6 + "abcd",
    "dirty": False,
    "load_before": 0.5,
    "load_after": 0.75,
    "cores": 2,
    "cpu_share": None,
    "busy": [],
}


def blocks(text):
    """{name: contents} of every marked block of a page."""
    return dict(re.findall(r"<!-- bench-([\w-]+): begin -->\n(.*?)<!-- bench-\1: end -->", text, re.S))


def outside_blocks(text):
    return re.sub(r"<!-- bench-([\w-]+): begin -->.*?<!-- bench-\1: end -->", "", text, flags=re.S)


def test_every_figure_block_of_the_page_is_written_from_its_file():
    shown = blocks(PERFORMANCE.read_text(encoding="utf-8"))
    assert set(publish.FIGURES) | {"standard"} == set(shown)
    for name, figure in publish.FIGURES.items():
        written = publish.figure_block(name, figure)
        assert shown[name] == written.split("\n", 1)[1].rsplit("\n", 1)[0] + "\n", name


@pytest.mark.parametrize("name", sorted(publish.FIGURES))
def test_each_block_names_date_commit_machine_load_and_command(name):
    figure = publish.FIGURES[name]
    data = json.loads((ROOT / "docs" / figure.data).read_text(encoding="utf-8"))
    state = data.get("state") or data.get("polymask_state")
    block = blocks(PERFORMANCE.read_text(encoding="utf-8"))[name]
    assert f"- measured {state['date']} (UTC)" in block
    assert f"commit {state['commit'][:12]}" in block
    assert f"load average {state['load_before']:.2f} → {state['load_after']:.2f}" in block
    assert "- CPU: " in block
    command = data.get("command") or data.get("polymask_command") or figure.record
    assert block.startswith(f"`{command}`")
    assert ("The machine was busy" in block) == bool(state["busy"])


#: Pages whose prose may not carry a figure of its own: the README and every page of
#: docs/ but the course's lessons (which compute their figures live) and the changelog.
PAGES = [
    ROOT / "README.md",
    *sorted(
        path
        for path in (ROOT / "docs").rglob("*")
        if path.suffix in (".md", ".rst")
        and path.relative_to(ROOT / "docs").parts[0] != "course"
        and path.name != "changelog.md"
    ),
]
#: A time, a ratio ("38x faster", "(1.5x)", "0.94x the time"), a bandwidth, or the GPU
#: that an unrecorded table was taken on.
FIGURE = re.compile(r"\b\d[\d.,]*\s?(?:ns|µs|us|ms|s|seconds?)\b|\b\d[\d.,]*[x×](?!\w)|\bGB/s\b|H200")
#: Numbers that read like figures but are settings or scales, with what they are.
NOT_FIGURES = {
    "60 s of libFuzzer": "the fuzzing budget of the contributing guide's checks",
    "at most every 2 ms": "how often the thread default reads the load",
    "up to 64x": "the cap of the thread default's back-off",
    "about every 10 ms": "how often a long fill checks for signals",
    "0.25 s per mask": "the time after which a sweep skips a backend",
    "5x finer grid": "the grid pycocotools draws outlines on",
}


def figures_outside_blocks(text):
    """Each figure of a page's prose, in the context it stands in."""
    prose = outside_blocks(text)
    for allowed in NOT_FIGURES:
        prose = prose.replace(allowed, "")
    return [prose[max(0, hit.start() - 30) : hit.end() + 20] for hit in FIGURE.finditer(prose)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_no_figure_stands_outside_the_generated_blocks(page):
    # A time or a speed-up typed into the prose has no date, commit or load:
    # every measured figure lives in a block written from a recorded file.
    found = figures_outside_blocks(page.read_text(encoding="utf-8"))
    assert not found, f"{page.relative_to(ROOT)}: figures with no recorded run: {found}"


@pytest.mark.parametrize(
    "figure",
    [
        "took 1,062 ms",
        "10.7 s for the sweep",
        "about 100 ns each",
        "40-60 µs beyond its kernel",
        "| 38x faster |",
        "0.94x the padded array's time",
        "| 8.68 ms (1) | 13.4 ms (1.5x) |",
        "takes about **0.3x** the time",
        "(9.3x and 27x on one thread)",
        "runs at 2.6-3.8 GB/s",
        "On an NVIDIA H200",
    ],
)
def test_a_figure_typed_into_the_prose_is_found(figure):
    assert figures_outside_blocks(f"Some prose: {figure}, and more.\n")
    assert not figures_outside_blocks(f"<!-- bench-x: begin -->\n{figure}\n<!-- bench-x: end -->\n")


def test_every_link_to_the_recorded_figures_names_a_section_of_the_performance_page():
    # A guide sends its reader to the recorded block instead of quoting it: the
    # link must land on the section that holds it (the docs build makes headings
    # down to ### into anchors with this slug).
    headings = re.findall(r"^#{1,3} (.+)$", PERFORMANCE.read_text(encoding="utf-8"), re.M)
    sections = {default_slugify(heading) for heading in headings}
    links = [
        (page.relative_to(ROOT).as_posix(), anchor)
        for page in PAGES
        for anchor in re.findall(r"performance\.md#([\w-]+)", page.read_text(encoding="utf-8"))
    ]
    assert links and [link for link in links if link[1] not in sections] == []


def test_sizes_and_settings_are_not_taken_for_figures():
    assert not figures_outside_blocks("a 4096x4096 mask, a 100,000 x 100,000 one, 1024², 24 vertices")
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    assert all(phrase in text for phrase in NOT_FIGURES), "drop a setting no page names"


def test_the_speedup_chart_title_names_machine_date_commit_and_load(monkeypatch, tmp_path):
    report = json.loads(publish.DATA.read_text(encoding="utf-8"))
    titles = []
    original = matplotlib.axes.Axes.set_title
    monkeypatch.setattr(
        matplotlib.axes.Axes,
        "set_title",
        lambda axes, label, *args, **kwargs: titles.append(label) or original(axes, label, *args, **kwargs),
    )
    plot_speedups(report, tmp_path / "chart.png")
    state = report["state"]
    title = titles[-1]
    assert report["machine"]["cpu"] in title and state["date"][:10] in title
    assert f"commit {state['commit'][:12]}" in title
    assert f"load {state['load_before']:.2f} → {state['load_after']:.2f}" in title
    assert "busy" not in title
    busy = copy.deepcopy(report)
    busy["state"]["busy"] = ["the load average reached 9.0 on 2 usable core(s)"]
    plot_speedups(busy, tmp_path / "busy.png")
    assert "busy machine: unreliable" in titles[-1]


def test_the_chart_caption_on_the_page_names_where_it_was_measured():
    report = json.loads(publish.DATA.read_text(encoding="utf-8"))
    block = blocks(PERFORMANCE.read_text(encoding="utf-8"))["standard"]
    assert "![speed-ups over pure Python" in block
    assert f"measured on {provenance(report['machine'], report['state'])}" in block


def test_a_report_without_a_state_says_so_in_the_title():
    assert provenance({"cpu": "Test CPU", "cores": 2}, None) == "Test CPU, 2 cores; date, commit and load not recorded"
    assert (
        provenance({"cpu": "Test CPU", "cores": 2}, STATE)
        == "Test CPU, 2 cores; 2026-03-04 05:06 UTC; commit c0ffeec0ffee; load 0.50 → 0.75"
    )


def _suite(busy=()):
    def entry(group, backend, median, iqr=1e-4):
        return {
            "group": group,
            "name": f"test_{backend}",
            "extra_info": {"backend": backend, "matches_contract": True},
            "stats": {"median": median, "iqr": iqr, "rounds": 7},
        }

    return {
        "polymask_state": dict(STATE, busy=list(busy)),
        "polymask_command": "pytest benchmarks/x.py",
        "machine_info": {"cpu": {"brand_raw": "Test CPU", "count": 2}, "python_version": "3.11.7"},
        "version": "5.3.1",
        "benchmarks": [
            entry("coco-1000", "polymask.masks", 0.02),
            entry("coco-1000", "opencv loop", 0.08),
            entry("other", "alone", 0.01),
        ],
    }


def test_a_suite_block_divides_by_its_reference_and_says_where_it_ran():
    text = published_figures.suite_block(_suite(), {"coco-": "opencv loop"})
    assert text.startswith("`pytest benchmarks/x.py`")
    assert "- measured 2026-03-04T05:06:07+00:00 (UTC)" in text and "- CPU: Test CPU (2 CPUs)" in text
    lines = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines() if line.startswith("| ")}
    assert "| 20 ms | 100 µs (0%) | 7 | 0.25 | yes |" in lines["polymask.masks"]  # 0.02 / 0.08
    assert "| 1.00 |" in lines["opencv loop"]
    assert "| — |" in lines["alone"]  # no reference in its group: no ratio
    assert "The machine was busy" not in text
    assert "The machine was busy" in published_figures.suite_block(_suite(["load 9 on 2"]), {})


def test_a_prange_block_shows_medians_spread_and_ratios():
    run = {
        "command": "python -m benchmarks.prange_busy --json x.json",
        "size": 64,
        "vertices": 24,
        "rounds": 4,
        "setting": "one spinning process",
        "state": STATE,
        "machine": {"cpu": "Test CPU", "cores": 2},
        "samples": {"a": [1e-3, 2e-3, 3e-3, 4e-3], "b": [2e-3, 2e-3, 2e-3, 2e-3]},
        "medians": {"a": 2.5e-3, "b": 2e-3},
        "ratios": {"a / b": 1.25},
    }
    text = published_figures.prange_block(run, run["command"])
    assert text.startswith("`python -m benchmarks.prange_busy --json x.json`")
    assert "| a | 2.5 ms | 1.5 ms (60%) | 4 |" in text  # quartiles 1.75 and 3.25 ms
    assert "| b | 2 ms | 0 (0%) | 4 |" in text and "| a / b | 1.25 |" in text


def test_a_pytest_benchmark_file_of_the_suite_records_load_and_command(tmp_path):
    report = tmp_path / "run.json"
    result = _run_pytest(["benchmarks/test_peers.py::test_floor", f"--benchmark-json={report}", *ONE_ROUND], ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    document = json.loads(report.read_text())
    state = document["polymask_state"]
    assert state["load_before"] is not None and state["load_after"] is not None and state["commit"]
    assert isinstance(state["busy"], list)
    assert document["polymask_command"].startswith("pytest benchmarks/test_peers.py::test_floor ")
    text = published_figures.suite_block(document, {})
    assert f"- measured {state['date']} (UTC)" in text


def test_a_fresh_report_publishes_its_chart_caption():
    report = run_table(
        parse_args(
            [
                "--size",
                "48",
                "--vertices",
                "7",
                "--stages",
                "python,scanline",
                "--no-peers",
                "--no-progress",
                "--repeats",
                "3",
                "--quick",
            ]
        ),
        getloadavg=lambda: (0.2, 0.3, 0.3),
        cpu_clock=time.perf_counter,
    )
    performance = publish.block(report, "performance")
    assert "load 0.20 → 0.20" in performance and "speedups.png" in performance
    assert "speedups.png" not in publish.block(report, "readme")


def test_publish_refuses_a_page_without_its_markers(tmp_path):
    page = tmp_path / "page.md"
    with pytest.raises(ValueError, match="has no <!-- bench-batches: begin -->"):
        publish.rewrite("no markers here", "<!-- bench-batches: begin -->\nx\n<!-- bench-batches: end -->", Path(page))


@needs_device
def test_the_gpu_checks_json_names_its_machine_date_commit_and_load(tmp_path):
    # A GPU figure may be published only from a file that says where it ran.
    report_path = tmp_path / "gpu.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "polymask.bench.gpu",
            "--sizes",
            "32",
            "--repeats",
            "1",
            "--overhead-repeats",
            "2",
            "--json",
            str(report_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(report_path.read_text())
    assert report["machine"]["cpu"] and report["machine"]["opencl_device"]
    state = report["state"]
    assert state["date"] and state["commit"] and state["load_before"] is not None and state["load_after"] is not None


def test_from_json_of_a_suite_file_prints_its_date_commit_load_and_command(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_suite(["the load average reached 9.0 on 2 usable core(s)"])))
    assert bench_main(["--from-json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "- **The machine was busy: these figures are unreliable** (the load average reached 9.0" in out
    assert "- measured 2026-03-04T05:06:07+00:00 (UTC), polymask 0.1.0, commit c0ffeec0ffee" in out
    assert "- command: `pytest benchmarks/x.py`" in out and "### coco-1000" in out
    document = _suite()
    del document["polymask_state"]
    path.write_text(json.dumps(document))
    assert bench_main(["--from-json", str(path)]) == 0
    assert "- date, commit and load: not recorded" in capsys.readouterr().out


@pytest.mark.parametrize(
    "state, message",
    [
        ([1], "polymask_state must be a JSON object, got list"),
        ({**STATE, "cores": "two"}, "'cores' must be int, got 'two'"),
        ({**STATE, "cores": True}, "'cores' must be int, got True"),
        ({key: value for key, value in STATE.items() if key != "date"}, "'date' must be str, got 'nothing'"),
        ({**STATE, "busy": [3]}, "'busy' must be a list of strings"),
    ],
)
def test_from_json_refuses_a_malformed_state_by_name(tmp_path, capsys, state, message):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**_suite(), "polymask_state": state}))
    assert bench_main(["--from-json", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
