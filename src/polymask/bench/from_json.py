"""``polymask bench --from-json``: the table from a pytest-benchmark JSON file.

    pytest benchmarks --benchmark-only --benchmark-json=run.json
    polymask bench --from-json run.json

Each benchmark's ``extra_info`` says which backend it timed (``backend``),
and may say by how much to scale its time to the group's full problem
(``scale``, for slow stages timed on a smaller image) and in which group's
table the scaled time belongs (``scaled_group``: the full problem's group,
as the raw time sits in a group of its own).  Benchmarks are grouped by
``group`` (the problem), one table per group, with speed-ups over pure
Python and ratios to the memory floor when those are in the group.

A file ``polymask bench --json`` wrote is read too: its own table is printed
again, from its samples.
"""
from __future__ import annotations

import json
import math
import os
import stat
from collections import defaultdict
from typing import TypedDict

from polymask.bench.records import FilePath, Report
from polymask.bench.report import format_ratio, format_seconds, markdown
from polymask.bench.state import checked_state, describe
from polymask.course import peers as peer_registry
from polymask.course import stages as stage_registry


def _describe(backend: str) -> tuple[str, float | None]:
    """(title, 2014 seconds) of a backend id."""
    if backend in stage_registry.ids():
        stage = stage_registry.get(backend)
        return stage.title, stage.seconds_2014
    try:
        return peer_registry.get(backend).title, None
    except ValueError:
        return backend, None


#: Largest file read: pytest-benchmark's files are kilobytes to a few megabytes.
MAX_JSON_BYTES = 64 * 2**20


class BenchmarkRow(TypedDict):
    """One benchmark of a pytest-benchmark file, as a row of its group's table."""

    #: The backend it timed (``extra_info["backend"]``, else the benchmark's name).
    id: str
    title: str
    #: The median, scaled to the group's problem by ``extra_info["scale"]``.
    seconds: float
    extrapolated: bool
    seconds_2014: float | None
    matches_contract: bool | None
    pixels_differing: int | None
    #: The benchmark's name as the file has it (any JSON value).
    name: object


def _json_object(value: object, what: str) -> dict[str, object]:
    """`value` as a JSON object; TypeError naming `what` otherwise."""
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def read_document(path: FilePath) -> object:
    """The JSON document in the regular file at `path`, read with bounds; ValueError / OSError otherwise.

    Only a regular file is opened (a FIFO would block, /dev/zero never ends),
    at most MAX_JSON_BYTES of it is read, and nesting deeper than Python's
    parser can follow is an error, not a crash.
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{path} is not a regular file")
    with open(path, "rb") as handle:
        text = handle.read(MAX_JSON_BYTES + 1)
    if len(text) > MAX_JSON_BYTES:
        raise ValueError(f"{path} is larger than {MAX_JSON_BYTES // 2**20} MiB; "
                         "a pytest-benchmark file is a few megabytes at most")
    try:
        return json.loads(text.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 text ({error.reason} at byte {error.start})") from None
    except RecursionError:
        raise ValueError(f"{path} nests its JSON too deeply to be a pytest-benchmark file") from None


def load_rows(path: FilePath, document: object = None) -> dict[str, list[BenchmarkRow]]:
    """Rows per group from a pytest-benchmark JSON file (`document`: its contents, already read)."""
    if document is None:
        document = read_document(path)
    if not isinstance(document, dict) or not isinstance(document.get("benchmarks"), list):
        raise ValueError(f"{path} is not a pytest-benchmark JSON file (no 'benchmarks' list)")
    groups: defaultdict[str, list[BenchmarkRow]] = defaultdict(list)
    for index, entry in enumerate(document["benchmarks"]):
        try:
            _add_row(groups, entry)
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise ValueError(f"{path}: benchmark {index} is not in pytest-benchmark's layout "
                             f"({type(error).__name__}: {error})") from None
    return dict(groups)


def _positive(value: object, what: str) -> float:
    """`value` as a finite number > 0 (a time, a scale); ValueError naming `what` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be a positive number, got {value!r}"[:200])
    return float(value)


def _add_row(groups: defaultdict[str, list[BenchmarkRow]], item: object) -> None:
    """One benchmark as a row of its group (KeyError / TypeError / ValueError when the layout is not
    pytest-benchmark's or a value cannot be what it names)."""
    entry = _json_object(item, "a benchmark")
    info = _json_object(entry.get("extra_info", {}), "extra_info")
    backend = info.get("backend") or entry.get("name", "?")
    group = info.get("scaled_group") or entry.get("group") or "(no group)"
    if not isinstance(backend, str) or not isinstance(group, str):
        raise TypeError("backend, name and group must be strings")
    matches = info.get("matches_contract")
    if matches not in (True, False, None) or not isinstance(matches, (bool, type(None))):
        raise ValueError(f"matches_contract must be true, false or absent, got {matches!r}"[:200])
    differing = info.get("pixels_differing")
    if differing is not None and (isinstance(differing, bool) or not isinstance(differing, int) or differing < 0):
        raise ValueError(f"pixels_differing must be a count, got {differing!r}"[:200])
    scale = _positive(info.get("scale", 1.0), "scale")
    title, seconds_2014 = _describe(backend)
    groups[group].append({
        "id": backend,
        "title": title,
        "seconds": _positive(_json_object(entry["stats"], "stats")["median"], "the median time") * scale,
        "extrapolated": scale != 1.0,
        "seconds_2014": seconds_2014,
        "matches_contract": matches,
        "pixels_differing": differing,
        "name": entry.get("name"),
    })


def is_bench_report(document: object) -> bool:
    """Whether `document` is what ``polymask bench --json`` writes for the table."""
    return isinstance(document, dict) and isinstance(document.get("rows"), list) and "problem" in document


def bench_report(document: object, path: FilePath) -> Report:
    """`document` checked as a ``polymask bench --json`` table; ValueError naming what is missing otherwise."""
    if not is_bench_report(document):
        raise ValueError(f"{path} is not a polymask bench --json table (no 'problem' and 'rows'); "
                         "a --sweep file cannot be compared or printed as a table")
    assert isinstance(document, dict)
    for key in ("problem", "machine"):
        if not isinstance(document.get(key), dict):
            raise ValueError(f"{path}: '{key}' must be a JSON object, got {type(document.get(key)).__name__}")
    for index, row in enumerate(document["rows"]):
        if not isinstance(row, dict) or not {"kind", "id", "title", "seconds"} <= set(row):
            raise ValueError(f"{path}: row {index} is not a bench row (expected kind, id, title and seconds)")
        seconds = row["seconds"]
        if seconds is not None:
            _positive(seconds, f"row {index}'s seconds")
        for sample in row.get("samples") or []:
            _positive(sample, f"row {index}'s samples")
    report: Report = document  # type: ignore[assignment]  # checked above, key by key
    return report


def table_from_json(path: FilePath) -> str:
    """The table of a ``polymask bench --json`` file, or the tables of a pytest-benchmark file."""
    document = read_document(path)
    if is_bench_report(document):
        try:
            return markdown(bench_report(document, path))
        except (KeyError, TypeError) as error:
            raise ValueError(f"{path} is not in polymask bench's --json layout ({type(error).__name__}: {error})") \
                from None
    return table_from_pytest_benchmark(path, document)


def suite_state(document: object, path: FilePath) -> list[str]:
    """The header lines of a pytest-benchmark file: the date, commit and load benchmarks/ records."""
    if not isinstance(document, dict) or "polymask_state" not in document:
        return ["- date, commit and load: not recorded (a file written outside polymask's benchmarks/)"]
    lines = describe(checked_state(document["polymask_state"], f"{path}: polymask_state"))
    command = document.get("polymask_command")
    return lines + ([f"- command: `{command}`"] if isinstance(command, str) else [])


def table_from_pytest_benchmark(path: FilePath, document: object = None) -> str:
    if document is None:
        document = read_document(path)
    lines = [f"## polymask bench --from-json {path}", "", *suite_state(document, path), ""]
    for group, rows in load_rows(path, document).items():
        python = next((r["seconds"] for r in rows if r["id"] == "python"), None)
        floor = next((r["seconds"] for r in rows if r["id"] == "floor"), None)
        lines += [f"### {group}", "",
                  "| backend | time (median) | speed-up | 2014 time | x floor | matches contract |",
                  "|---|---:|---:|---:|---:|---|"]
        for row in sorted(rows, key=lambda r: r["seconds"], reverse=True):
            measured = row["id"] != "floor"  # the floor is the yardstick, not a contender
            speedup = python / row["seconds"] if python and measured else None
            x_floor = row["seconds"] / floor if floor and measured else None
            matches = {True: "yes", False: "no", None: "—"}[row["matches_contract"]]
            if row["pixels_differing"]:
                matches += f" ({row['pixels_differing']} px differ)"
            time = format_seconds(row["seconds"]) + (" *" if row["extrapolated"] else "")
            lines.append(f"| {row['title']} (`{row['id']}`) | {time} | {format_ratio(speedup)} | "
                         f"{format_seconds(row['seconds_2014'])} | {format_ratio(x_floor)} | {matches} |")
        lines.append("")
    return "\n".join(lines)
