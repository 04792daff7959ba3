"""The published figures other than the speed-up table, each written from its recorded JSON file.

``benchmarks.publish`` puts each block below between its markers in
docs/performance.md.  Every block opens with where its figures came from
(date, commit, machine, load, and the busy warning when the load said so)
and the command that reproduces its file, so no figure stands without
them:

* ``sweep-vertices``: a ``polymask bench --sweep vertices --json`` file;
* ``prange-busy``: a ``python -m benchmarks.prange_busy --json`` file;
* ``coverage-floor``: a ``python -m benchmarks.test_coverage_floor --json`` file;
* ``batches`` and ``fields``: pytest-benchmark ``--benchmark-json`` files of
  the suite in benchmarks/, whose ``polymask_state`` and ``polymask_command``
  benchmarks/conftest.py records; each group's rows are shown with their
  median, IQR and time over a named reference row of the same group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from polymask.bench.report import format_seconds, sweep_markdown
from polymask.bench.state import describe

#: A JSON document as json.load returns it.
Document = dict[str, Any]


def _not_recorded(what: str) -> list[str]:
    return [f"- {what}: not recorded in this file"]


def sweep_block(sweep: Document, command: str) -> str:
    """The sweep's table as ``polymask bench`` prints it, below its command."""
    lines = sweep_markdown(sweep).rstrip("\n").splitlines()[2:]  # the page has its own heading
    return "\n".join([f"`{command}`", "", *lines])


def prange_block(run: Document, command: str) -> str:
    """The threaded per-pixel stages beside one busy core: medians and the ratios the lessons quote."""
    state = describe(run["state"]) if "state" in run else _not_recorded("date, commit and load")
    lines = [
        f"`{command}`",
        "",
        *state,
        f"- CPU: {run['machine']['cpu']} ({run['machine']['cores']} cores usable); {run['size']}x{run['size']}, "
        f"{run['vertices']} random vertices, {run['rounds']} rotating rounds, {run['setting']} "
        "(its own spinning process is part of the load above)",
        "",
        "| contender | median | IQR | samples |",
        "|---|---:|---:|---:|",
    ]
    for name, samples in run["samples"].items():
        lines.append(
            f"| {name} | {format_seconds(run['medians'][name])} | {_iqr(samples, run['medians'][name])} | "
            f"{len(samples)} |"
        )
    lines += ["", "| ratio of medians | value |", "|---|---:|"]
    lines += [f"| {label} | {value:.2f} |" for label, value in run["ratios"].items()]
    return "\n".join(lines)


def coverage_floor_block(run: Document) -> str:
    """Coverage over the mask and over its write floor, and its cost per boundary cell, per case."""
    state = describe(run["state"]) if "state" in run else _not_recorded("date, commit and load")
    clock = ("wall time" if run["clock"] == "wall" else
             "CPU time (a busy machine: the default-thread rows sum their threads' CPU time)")
    lines = [
        f"`{run['command']}`",
        "",
        *state,
        f"- CPU: {run['machine']['cpu']} ({run['machine']['cores']} cores usable); {clock}; "
        f"{run['rounds']} alternated rounds a case, each ratio the median of the rounds' own ratios",
        "",
        "| polygon, image | threads | uint8 / mask | uint8 / uint8 floor | float32 / float32 floor "
        "| ns per boundary cell | boundary cells |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in run["rows"]:
        lines.append(
            f"| {row['polygon']}, {row['size']}x{row['size']} | {row['threads'] or 'default'} "
            f"| {row['uint8_over_mask']:.2f}x | {row['uint8_over_floor']:.2f}x | {row['float32_over_floor']:.2f}x "
            f"| {row['ns_per_boundary_cell']:.1f} | {row['boundary_cells']:,} |"
        )
    return "\n".join(lines)


def _iqr(samples: Sequence[float], median: float) -> str:
    if len(samples) < 2:
        return "—"
    q1, q3 = np.percentile(samples, [25, 75])
    return f"{format_seconds(q3 - q1) if q3 > q1 else '0'} ({(q3 - q1) / median:.0%})"


def suite_header(document: Document) -> list[str]:
    """Where a pytest-benchmark file's figures came from: its state, machine and command."""
    state = document.get("polymask_state")
    lines = describe(state) if state else _not_recorded("load (run outside benchmarks/)")
    machine = document.get("machine_info", {})
    cpu = machine.get("cpu", {})
    lines.append(
        f"- CPU: {cpu.get('brand_raw', '?')} ({cpu.get('count', '?')} CPUs); Python "
        f"{machine.get('python_version', '?')}; pytest-benchmark {document.get('version', '?')}"
    )
    return lines


def backend(entry: Document) -> str:
    """What a benchmark timed: its extra_info's backend, else its name."""
    return str(entry.get("extra_info", {}).get("backend") or entry["name"])


def suite_block(document: Document, references: Mapping[str, str]) -> str:
    """One table per group of a pytest-benchmark file; `references`: group prefix -> the backend the
    ratio column divides by (groups with no reference get no ratios)."""
    lines = [f"`{document.get('polymask_command', 'command not recorded')}`", "", *suite_header(document)]
    groups: dict[str, list[Document]] = {}
    for entry in document["benchmarks"]:
        groups.setdefault(entry["group"] or "(no group)", []).append(entry)
    for group, entries in groups.items():
        reference_name = next((name for prefix, name in references.items() if group.startswith(prefix)), None)
        reference = next((entry for entry in entries if backend(entry) == reference_name), None)
        over = f"time / {reference_name}'s" if reference else "time / reference"
        lines += [
            "",
            f"**{group}**",
            "",
            f"| timed | median | IQR | rounds | {over} | matches |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for entry in sorted(entries, key=lambda entry: entry["stats"]["median"]):
            stats, info = entry["stats"], entry.get("extra_info", {})
            ratio = "—" if reference is None else f"{stats['median'] / reference['stats']['median']:.2f}"
            matches = {True: "yes", False: "no"}.get(info.get("matches_contract"), "—")
            lines.append(
                f"| {backend(entry)} | {format_seconds(stats['median'])} | "
                f"{format_seconds(stats['iqr']) if stats.get('iqr') else '0'} "
                f"({stats.get('iqr', 0) / stats['median']:.0%}) | {stats['rounds']} | {ratio} | {matches} |"
            )
    return "\n".join(lines)
