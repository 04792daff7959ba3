"""The worker's process tree as /proc shows it: who is below whom, and the CPU each thread used."""
from __future__ import annotations

import os


def process_table() -> dict[int, tuple[int, str]]:
    """{pid: (parent pid, state)} of every process now."""
    table = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:  # it ended meanwhile
                continue
            table[int(entry.name)] = (int(fields[1]), fields[0].decode())
    return table


def descendants(roots: set[int], table: dict | None = None) -> set[int]:
    """Every process below `roots` (not the roots themselves)."""
    table = process_table() if table is None else table
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def stat_ticks(path: str) -> tuple[int, int] | None:
    """(utime + stime, cutime + cstime) in clock ticks from a /proc stat file, or None when it is gone."""
    try:
        with open(path, "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def task_times(folder: str, ticks: int) -> tuple[float, float]:
    """(CPU seconds, runnable-waiting seconds) of one thread: schedstat's nanoseconds, else stat's ticks."""
    try:
        with open(f"{folder}/schedstat") as schedstat:
            run, wait = (int(value) for value in schedstat.read().split()[:2])
    except (OSError, ValueError):
        run, wait = 0, -1
    if run > 0 or ticks == 0:
        return run / 1e9, wait / 1e9
    return ticks / os.sysconf("SC_CLK_TCK"), float("nan")  # no schedstat here: ticks, and no waiting time
