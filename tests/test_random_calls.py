"""Thousands of random hostile calls of the public API: none may crash, hang or raise an odd error.

tests/random_calls.py draws the calls (see its docstring for the pools of
odd values); each seed runs in a fresh interpreter with its address space
capped at 6 GiB, so a call that asks for an absurd array gets MemoryError
instead of the machine's memory, and a crash or a hang fails the test with
the call that caused it (the script logs each call before making it).
"""
from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

import pytest

from tests._support import run_isolated

SCRIPT = Path(__file__).with_name("random_calls.py")
MEMORY_CAP = 6 * 2**30


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_hostile_calls_end_in_results_or_ordinary_errors(seed, tmp_path):
    log = tmp_path / "call.txt"
    command = [sys.executable, str(SCRIPT), str(seed), "1500"]
    env = {**os.environ, "POLYMASK_RANDOM_CALLS_LOG": str(log)}
    completed = run_isolated(command, 300, env=env, preexec_fn=_cap_memory)
    last_call = log.read_text() if log.exists() else "(none)"
    assert completed is not None, f"seed {seed}: no end within 300 s; the call running: {last_call}"
    assert completed.returncode == 0, (f"seed {seed}: the process ended with {completed.returncode}; "
                                       f"the call running: {last_call}\n{completed.stderr[-3000:]}")
    assert completed.stdout.strip().endswith("odd 0"), f"seed {seed}:\n{completed.stdout[-5000:]}"
