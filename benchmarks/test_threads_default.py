"""pytest-benchmark view of benchmarks/threads_default.py: each case at default threads and at threads=1.

    pytest benchmarks/test_threads_default.py --benchmark-only --benchmark-group-by=group

Compare within a group (one case): the default call must not be slower
than ``threads=1``.  Run ``python -m benchmarks.threads_default`` for the
same cases alternated call by call, idle and with the other cores busy.
In CI (``--benchmark-disable``) each runs once on small inputs, and the
script's smoke run checks it still works.
"""
from __future__ import annotations

import pytest

from benchmarks import threads_default
from benchmarks._support import record


@pytest.fixture(scope="module")
def quick(request):
    return request.config.polymask_fast_mode


@pytest.mark.parametrize("threads", [None, 1], ids=["default", "threads=1"])
@pytest.mark.parametrize("case", threads_default.CASES)
def test_default_threads_beside_one(benchmark, quick, case, threads):
    call, _ = threads_default.case_call(case, quick)
    expected = call(1)
    benchmark.group = f"threads-{case}"
    result = benchmark(call, threads)
    record(benchmark, backend=f"threads={threads or 'default'}", result=result, expected=expected)
    assert benchmark.extra_info["matches_contract"]


def test_the_script_runs_idle_and_busy(capsys):
    threads_default.main(["--quick", "--cases", "small-8192", "coco-1000"])
    table = capsys.readouterr().out
    for setting in ("idle", "busy"):
        assert f"| small-8192 | {setting} |" in table and f"| coco-1000 | {setting} |" in table
