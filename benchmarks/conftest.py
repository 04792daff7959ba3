"""Benchmark fixtures.

    pytest benchmarks --benchmark-only                       the full grids
    pytest benchmarks --benchmark-only --benchmark-json=r.json && polymask bench --from-json r.json

In CI the suite runs with --benchmark-disable: each benchmark body runs once
(so the code and its correctness checks cannot rot) and the size and vertex
grids shrink to their smallest entries.

Every benchmark must say which problem it timed: a group set before the
timed call (``pytest.mark.benchmark(group=...)`` or ``benchmark.group =
...``).  pytest-benchmark copies the group into the row when the timing
ends, so one set afterwards is lost; a benchmark whose row has no group
fails here, at teardown, timed or not.

A ``--benchmark-json`` file also gets ``polymask_state``: the UTC date,
polymask's version and commit, and the load average before and after the
session (``polymask.bench.state``), so a published figure carries the
machine's load beside pytest-benchmark's own machine and commit info.
"""
import shlex

import pytest

from polymask.bench.machine import usable_cores
from polymask.bench.state import finish_state, start_state


def pytest_configure(config):
    # Read by the test modules' parametrization (tiny grids when disabled).
    config.polymask_fast_mode = bool(config.getoption("benchmark_disable", False))
    config.polymask_state = start_state(usable_cores())


def pytest_benchmark_update_json(config, benchmarks, output_json):
    # No CPU share: pytest-benchmark times wall clock only, so the busy verdict rests on the load.
    output_json["polymask_state"] = finish_state(dict(config.polymask_state), cpu_share=None)
    output_json["polymask_command"] = shlex.join(["pytest", *config.invocation_params.args])


def ungrouped(fixture) -> str | None:
    """Why the benchmark `fixture` has no group, or None when it has one."""
    stats = getattr(fixture, "stats", None)  # None until timed, and always under --benchmark-disable
    if stats is not None and getattr(stats, "group", None) is None:
        return ("its timed row has no group: set benchmark.group (or pytest.mark.benchmark(group=...)) "
                "before the timed call, not after it")
    if stats is None and getattr(fixture, "group", None) is None:
        return "it sets no group: set benchmark.group or pytest.mark.benchmark(group=...) before the timed call"
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    # The call's report, kept on the item: a skipped or failed test is not
    # also blamed for its group.
    report = yield
    if report.when == "call":
        item.polymask_call_passed = report.passed
    return report


@pytest.fixture(autouse=True)
def every_benchmark_has_a_group(request):
    yield
    fixture = getattr(request.node, "funcargs", {}).get("benchmark")
    if fixture is None or not getattr(request.node, "polymask_call_passed", False):
        return
    reason = ungrouped(fixture)
    if reason is not None:
        pytest.fail(f"{request.node.nodeid}: {reason}", pytrace=False)
