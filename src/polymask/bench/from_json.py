"""``polymask bench --from-json``: the table from a pytest-benchmark JSON file.

    pytest benchmarks --benchmark-only --benchmark-json=run.json
    polymask bench --from-json run.json

Each benchmark's ``extra_info`` says which backend it timed (``backend``),
and may say by how much to scale its time to the group's full problem
(``scale``, for slow stages timed on a smaller image).  Benchmarks are
grouped by ``group`` (the problem), one table per group, with speed-ups over
pure Python and ratios to the memory floor when those are in the group.
"""
from __future__ import annotations

import json
from collections import defaultdict

from polymask import peers as peer_registry
from polymask import stages as stage_registry
from polymask.bench.report import format_ratio, format_seconds


def _describe(backend: str) -> tuple[str, float | None]:
    """(title, 2014 seconds) of a backend id."""
    if backend in stage_registry.ids():
        stage = stage_registry.get(backend)
        return stage.title, stage.seconds_2014
    try:
        return peer_registry.get(backend).title, None
    except ValueError:
        return backend, None


def load_rows(path) -> dict[str, list[dict]]:
    """Rows per group from a pytest-benchmark JSON file."""
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    if not isinstance(document, dict) or not isinstance(document.get("benchmarks"), list):
        raise ValueError(f"{path} is not a pytest-benchmark JSON file (no 'benchmarks' list)")
    groups = defaultdict(list)
    for index, entry in enumerate(document["benchmarks"]):
        try:
            _add_row(groups, entry)
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise ValueError(f"{path}: benchmark {index} is not in pytest-benchmark's layout "
                             f"({type(error).__name__}: {error})") from None
    return dict(groups)


def _add_row(groups, entry: dict) -> None:
    """One benchmark as a row of its group (KeyError / TypeError when the layout is not pytest-benchmark's)."""
    info = entry.get("extra_info", {})
    backend = info.get("backend") or entry.get("name", "?")
    title, seconds_2014 = _describe(backend)
    groups[entry.get("group") or "(no group)"].append({
        "id": backend,
        "title": title,
        "seconds": float(entry["stats"]["median"]) * float(info.get("scale", 1.0)),
        "extrapolated": float(info.get("scale", 1.0)) != 1.0,
        "seconds_2014": seconds_2014,
        "matches_contract": info.get("matches_contract"),
        "pixels_differing": info.get("pixels_differing"),
        "name": entry.get("name"),
    })


def table_from_pytest_benchmark(path) -> str:
    lines = [f"## polymask bench --from-json {path}", ""]
    for group, rows in load_rows(path).items():
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
