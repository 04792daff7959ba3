"""The pytest-benchmark suite says what it times: every row in a group that names its problem.

pytest-benchmark copies ``benchmark.group`` into a row when the timing ends,
so a group set after the timed call is lost and the row lands in no group.
Two checks: every benchmark test in ``benchmarks/`` sets its group before
its first timed call (read from the source, so it covers the whole suite at
no cost), and a few cheap benchmarks timed for real in one round come out
of ``--benchmark-json`` with the groups they should have.
"""
import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
FULL_GROUP = "standard 1024x1024, 24 vertices"
#: One timed round, no warm-up, no calibration beyond one call: a check of labels, not of speed.
ONE_ROUND = ["--benchmark-only", "--benchmark-min-rounds=1", "--benchmark-max-time=0", "--benchmark-warmup=off",
             "--benchmark-min-time=0", "-p", "no:cacheprovider", "-q"]


def _is_group_marker(node: ast.AST) -> bool:
    """`node` is ``pytest.mark.benchmark(group=...)``."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "benchmark"
            and any(keyword.arg == "group" for keyword in node.keywords))


def _timed_lines(function: ast.FunctionDef) -> list[int]:
    """Lines of the timed calls: ``benchmark(...)`` and ``benchmark.pedantic(...)``."""
    lines = []
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            callee = node.func
            if isinstance(callee, ast.Name) and callee.id == "benchmark":
                lines.append(node.lineno)
            elif (isinstance(callee, ast.Attribute) and callee.attr == "pedantic"
                  and isinstance(callee.value, ast.Name) and callee.value.id == "benchmark"):
                lines.append(node.lineno)
    return lines


def _group_lines(function: ast.FunctionDef) -> list[int]:
    """Lines where `function` assigns ``benchmark.group``."""
    return [node.lineno for node in ast.walk(function) if isinstance(node, ast.Assign)
            and any(isinstance(target, ast.Attribute) and target.attr == "group"
                    and isinstance(target.value, ast.Name) and target.value.id == "benchmark"
                    for target in node.targets)]


def _helpers_given_the_fixture(function: ast.FunctionDef, functions: dict[str, ast.FunctionDef]) -> list[str]:
    """Functions of the module that `function` hands ``benchmark`` to."""
    names = []
    for node in ast.walk(function):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions
                and any(isinstance(arg, ast.Name) and arg.id == "benchmark" for arg in node.args)):
            names.append(node.func.id)
    return names


def _groups_before_timing(function: ast.FunctionDef, functions: dict[str, ast.FunctionDef]) -> bool:
    timed, grouped = _timed_lines(function), _group_lines(function)
    if timed:
        return bool(grouped) and min(grouped) < min(timed)
    helpers = _helpers_given_the_fixture(function, functions)
    return bool(helpers) and all(_groups_before_timing(functions[name], functions) for name in helpers)


def ungrouped_benchmarks(path: Path) -> list[str]:
    """The benchmark tests of `path` that do not set a group before their first timed call."""
    module = ast.parse(path.read_text(encoding="utf-8"))
    functions = {node.name: node for node in module.body if isinstance(node, ast.FunctionDef)}
    module_marked = any(isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)
                        and any(_is_group_marker(sub) for sub in ast.walk(node.value)) for node in module.body)
    missing = []
    for name, function in functions.items():
        if not name.startswith("test_") or "benchmark" not in [arg.arg for arg in function.args.args]:
            continue
        if module_marked or any(_is_group_marker(decorator) for decorator in function.decorator_list):
            continue
        if not _groups_before_timing(function, functions):
            missing.append(f"{path.name}::{name}")
    return missing


def test_every_benchmark_sets_its_group_before_the_timed_call():
    files = sorted(BENCHMARKS.glob("test_*.py"))
    assert len(files) > 10
    missing = [name for path in files for name in ungrouped_benchmarks(path)]
    assert not missing, f"these benchmarks set no group before their timed call: {missing}"


def test_the_source_check_catches_a_group_set_after_the_call(tmp_path):
    late = tmp_path / "test_late.py"
    late.write_text(textwrap.dedent("""
        def test_late(benchmark):
            benchmark(sum, [1, 2])
            benchmark.group = "too late"

        def test_early(benchmark):
            benchmark.group = "in time"
            benchmark(sum, [1, 2])

        def helper(benchmark):
            benchmark(sum, [1])

        def test_through_a_helper(benchmark):
            helper(benchmark)
    """))
    assert ungrouped_benchmarks(late) == ["test_late.py::test_late", "test_late.py::test_through_a_helper"]


def _run_pytest(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *arguments], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_timed_rows_carry_the_group_of_the_problem_they_timed(tmp_path):
    report = tmp_path / "run.json"
    result = _run_pytest(["benchmarks/test_stage_ladder.py::test_stage[python]",
                          "benchmarks/test_stage_ladder.py::test_stage[scanline]",
                          "benchmarks/test_peers.py::test_floor",
                          "benchmarks/test_mask_vs_opencv.py::test_memory_floor",
                          f"--benchmark-json={report}", *ONE_ROUND], ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = {entry["fullname"].split("::")[-1]: entry for entry in json.loads(report.read_text())["benchmarks"]}
    assert all(entry["group"] for entry in rows.values()), {name: entry["group"] for name, entry in rows.items()}
    # The slow stage is timed on 128x128: a group of its own that says so,
    # and the table polymask bench draws it in, scaled.
    python = rows["test_stage[python]"]
    assert python["group"] == "standard polygon scaled to 128x128, 24 vertices"
    assert python["extra_info"]["scale"] == 64 and python["extra_info"]["scaled_group"] == FULL_GROUP
    assert rows["test_stage[scanline]"]["group"] == FULL_GROUP == rows["test_floor"]["group"]
    assert rows["test_memory_floor[standard-1024-24]"]["group"] == "standard-1024-24"
    for entry in rows.values():  # no row timed on a smaller problem sits raw in a full-size group
        assert entry["extra_info"].get("scale", 1.0) == 1.0 or entry["group"] != FULL_GROUP


def test_scanline_is_timed_once_on_the_standard_problem():
    # polymask.mask on the standard problem is the ladder's scanline row; the
    # peers' file must not time it again under another name.
    listed = _run_pytest(["benchmarks/test_peers.py", "benchmarks/test_stage_ladder.py", "--collect-only", "-q",
                          "--benchmark-disable", "-p", "no:cacheprovider"], ROOT)
    assert listed.returncode == 0, listed.stdout[-2000:]
    assert "test_stage[scanline]" in listed.stdout and "test_peers.py::test_polymask" not in listed.stdout


GROUP_LATE = """
from benchmarks._support import record


def test_record_given_the_group(benchmark):
    result = benchmark(sum, [1, 2])
    record(benchmark, backend="sum", result=result, expected=3, group="sum of two")


def test_group_set_after_the_call(benchmark):
    benchmark(sum, [1, 2])
    benchmark.group = "too late"
"""


def test_a_late_group_fails_and_record_keeps_its_group(tmp_path):
    # A benchmark that sets its group only after the timing fails (the
    # suite's conftest check); record(group=...) still files its row.
    folder = tmp_path / "late"
    folder.mkdir()
    (folder / "conftest.py").write_text("from benchmarks.conftest import every_benchmark_has_a_group  # noqa: F401\n"
                                        "from benchmarks.conftest import pytest_runtest_makereport  # noqa: F401\n")
    (folder / "test_late_group.py").write_text(GROUP_LATE)
    report = tmp_path / "run.json"
    result = _run_pytest([str(folder), f"--benchmark-json={report}", f"--rootdir={folder}", *ONE_ROUND], ROOT)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "test_group_set_after_the_call: its timed row has no group" in result.stdout
    assert "2 passed, 1 error" in result.stdout, result.stdout[-2000:]  # the late one fails at teardown
    groups = {entry["name"]: entry["group"] for entry in json.loads(report.read_text())["benchmarks"]}
    assert groups == {"test_record_given_the_group": "sum of two", "test_group_set_after_the_call": None}


def test_the_histogram_option_draws_each_group(tmp_path):
    # --benchmark-histogram draws with pygal, which the test extra installs.
    result = _run_pytest(["benchmarks/test_peers.py::test_floor", f"--benchmark-histogram={tmp_path / 'floor'}",
                          *ONE_ROUND], ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert [path.name for path in tmp_path.glob("*.svg")] == ["floor-standard_1024x1024,_24_vertices.svg"]
