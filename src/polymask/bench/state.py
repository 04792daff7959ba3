"""When and in what state a report was measured: date, commit, load, and whether to trust it.

A shared machine gives numbers that move several-fold from run to run, so a
report says how busy the machine was and, like hyperfine, warns when its
figures are unreliable: when the load average exceeded the cores this
process may use, or when the single-threaded rows got far less CPU time
than wall time (other processes had the cores).
"""
from __future__ import annotations

import datetime
import os
import subprocess
from pathlib import Path
from typing import Callable, TypedDict

import polymask

#: The load averages over 1, 5 and 15 minutes (os.getloadavg; a test passes a fake).
LoadAverage = Callable[[], "tuple[float, float, float]"]

#: Below this share of wall time in CPU time, a single-threaded row waited for a core.
CPU_SHARE_BUSY = 0.8


class RunState(TypedDict):
    """The run's date, source and load: the report's ``state``."""

    #: ISO 8601, UTC, when the run started.
    date: str
    polymask: str
    #: The checkout's commit when run from a polymask checkout, else None.
    commit: str | None
    #: Whether the checkout had uncommitted changes (None without a checkout).
    dirty: bool | None
    #: The 1-minute load average before the first timing and after the last (None where unknown).
    load_before: float | None
    load_after: float | None
    cores: int
    #: The median over single-threaded rows of CPU time over wall time (None without such rows).
    cpu_share: float | None
    #: Why the figures are unreliable; empty when the machine looked quiet.
    busy: list[str]


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def load_average(getloadavg: LoadAverage = os.getloadavg) -> float | None:
    try:
        return float(getloadavg()[0])
    except (OSError, AttributeError):  # no load average on this platform
        return None


def _git(folder: Path, *arguments: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), *arguments], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def checkout(folders: list[Path] | None = None) -> tuple[str | None, bool | None]:
    """(commit, dirty) of the polymask checkout polymask runs from or the current folder is in.

    A folder counts when its git top level holds ``src/polymask``; (None,
    None) when there is none or git is not installed.
    """
    if folders is None:
        folders = [Path(polymask.__file__).resolve().parent, Path.cwd()]
    for folder in folders:
        top = _git(folder, "rev-parse", "--show-toplevel")
        if top is None or not (Path(top) / "src" / "polymask").is_dir():
            continue
        commit = _git(folder, "rev-parse", "HEAD")
        changes = _git(folder, "status", "--porcelain", "--untracked-files=no")
        return commit, (None if changes is None else bool(changes))
    return None, None


def busy_reasons(load_before: float | None, load_after: float | None, cores: int,
                 cpu_share: float | None) -> list[str]:
    """Why figures taken in this state are unreliable (empty: the machine looked quiet)."""
    reasons = []
    loads = [load for load in (load_before, load_after) if load is not None]
    if loads and max(loads) > cores:
        reasons.append(f"the load average reached {max(loads):.1f} on {cores} usable core(s)")
    if cpu_share is not None and cpu_share < CPU_SHARE_BUSY:
        reasons.append(f"single-threaded rows got {cpu_share:.0%} of their wall time as CPU time "
                       "(other processes had the cores)")
    return reasons


def start_state(cores: int, getloadavg: LoadAverage = os.getloadavg) -> RunState:
    """The state before the first timing; finish_state completes it."""
    commit, dirty = checkout()
    return {"date": utc_now(), "polymask": polymask.__version__, "commit": commit, "dirty": dirty,
            "load_before": load_average(getloadavg), "load_after": None, "cores": cores, "cpu_share": None,
            "busy": []}


def finish_state(state: RunState, cpu_share: float | None, getloadavg: LoadAverage = os.getloadavg) -> RunState:
    """`state` with the load after the run, the CPU share and the verdict."""
    state["load_after"] = load_average(getloadavg)
    state["cpu_share"] = cpu_share
    state["busy"] = busy_reasons(state["load_before"], state["load_after"], state["cores"], cpu_share)
    return state


def describe(state: RunState) -> list[str]:
    """The header lines (markdown list items) for `state`, the busy warning first."""
    lines = []
    if state["busy"]:
        lines.append(f"- **The machine was busy: these figures are unreliable** ({'; '.join(state['busy'])}). "
                     "Rerun on a quiet machine.")
    source = "not run from a checkout" if state["commit"] is None else \
        f"commit {state['commit'][:12]}{' with uncommitted changes' if state['dirty'] else ''}"
    loads = " → ".join("unknown" if load is None else f"{load:.2f}" for load in (state["load_before"],
                                                                                   state["load_after"]))
    share = "" if state["cpu_share"] is None else f"; CPU time {state['cpu_share']:.0%} of wall time " \
        "on single-threaded rows"
    lines.append(f"- measured {state['date']} (UTC), polymask {state['polymask']}, {source}; "
                 f"load average {loads} on {state['cores']} usable core(s){share}")
    return lines


#: Each key of a RunState and the JSON types its value may have.
_STATE_TYPES: dict[str, tuple[type, ...]] = {
    "date": (str,), "polymask": (str,), "commit": (str, type(None)), "dirty": (bool, type(None)),
    "load_before": (int, float, type(None)), "load_after": (int, float, type(None)), "cores": (int,),
    "cpu_share": (int, float, type(None)), "busy": (list,)}


def checked_state(value: object, where: str) -> RunState:
    """`value` (a state read back from a JSON file) checked key by key; ValueError naming `where` otherwise."""
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a JSON object, got {type(value).__name__}")
    for key, types in _STATE_TYPES.items():
        if not isinstance(value.get(key, ...), types) or (isinstance(value[key], bool) and bool not in types):
            raise ValueError(f"{where}: {key!r} must be {' or '.join(t.__name__ for t in types)}, "
                             f"got {value.get(key, 'nothing')!r}"[:200])
    if not all(isinstance(reason, str) for reason in value["busy"]):
        raise ValueError(f"{where}: 'busy' must be a list of strings")
    state: RunState = value  # type: ignore[assignment]  # checked above, key by key
    return state
