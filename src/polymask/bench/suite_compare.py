"""``polymask bench --compare`` on two pytest-benchmark JSON files.

    pytest benchmarks --benchmark-only --benchmark-json=before.json
    pytest benchmarks --benchmark-only --benchmark-json=after.json
    polymask bench --compare before.json after.json

Rows are matched by group and name (a name alone can recur across groups:
the same test at another problem size).  A ``--benchmark-json`` file keeps
every round's time in ``stats.data``; a file saved with ``--benchmark-save``
keeps them only when run with ``--benchmark-save-data``.  With samples on
both sides a row gets the same bootstrap verdict as bench's own tables
(``polymask.bench.verdicts.verdict``); without them only the medians are
compared, and the table says so instead of guessing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import TypedDict

from polymask.bench.records import FilePath
from polymask.bench.report import format_seconds
from polymask.bench.verdicts import verdict


class SuiteRow(TypedDict):
    """One benchmark of a pytest-benchmark file, as the comparison reads it."""

    group: str
    name: str
    median: float
    #: Every round's time, or None when the file kept no samples.
    samples: list[float] | None


#: pytest-benchmark's machine_info fields whose difference the comparison names.
MACHINE_FIELDS = (
    ("cpu", ("cpu", "brand_raw")),
    ("cores", ("cpu", "count")),
    ("node", ("node",)),
    ("python", ("python_version",)),
    ("implementation", ("python_implementation",)),
    ("system", ("system",)),
    ("release", ("release",)),
    ("machine", ("machine",)),
)
NO_GROUP = "(no group)"


def _time(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be a positive number of seconds, got {value!r}"[:200])
    return float(value)


def suite_rows(document: object, path: FilePath) -> dict[tuple[str, str], SuiteRow]:
    """The benchmarks of a pytest-benchmark document by (group, name); ValueError naming what is wrong.

    Two test modules may hold tests of one name in one group; those rows are
    told apart by their full names (``module::test``) instead.
    """
    if not isinstance(document, dict) or not isinstance(document.get("benchmarks"), list):
        raise ValueError(f"{path} is not a pytest-benchmark JSON file (no 'benchmarks' list)")
    found: list[SuiteRow] = []
    full_names: list[object] = []
    for index, entry in enumerate(document["benchmarks"]):
        where = f"{path}: benchmark {index}"
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("name"), str)
            or not isinstance(entry.get("stats"), dict)
        ):
            raise ValueError(
                f"{where} is not in pytest-benchmark's layout (expected an object with 'name' and 'stats')"
            )
        group = entry.get("group")
        if group is not None and not isinstance(group, str):
            raise ValueError(f"{where}: 'group' must be a string or null, got {type(group).__name__}")
        stats = entry["stats"]
        median = _time(stats.get("median"), f"{where}'s median")
        data = stats.get("data")
        if data is not None and not isinstance(data, list):
            raise ValueError(f"{where}: 'stats.data' must be a list of seconds, got {type(data).__name__}")
        samples = None if data is None else [_time(sample, f"{where}'s samples") for sample in data]
        found.append({"group": group or NO_GROUP, "name": entry["name"], "median": median, "samples": samples})
        full_names.append(entry.get("fullname"))
    repeated = Counter((row["group"], row["name"]) for row in found)
    rows: dict[tuple[str, str], SuiteRow] = {}
    for index, (row, full_name) in enumerate(zip(found, full_names)):
        if repeated[row["group"], row["name"]] > 1:
            if not isinstance(full_name, str):
                raise ValueError(
                    f"{path}: benchmark {index} repeats group {row['group']!r} and name "
                    f"{row['name']!r} without a 'fullname' to tell them apart"
                )
            row["name"] = full_name
        if (row["group"], row["name"]) in rows:
            raise ValueError(
                f"{path}: benchmark {index} repeats group {row['group']!r} and name {row['name']!r}; "
                "rows are matched by both"
            )
        rows[row["group"], row["name"]] = row
    return rows


def _lookup(info: object, keys: Sequence[str]) -> object:
    for key in keys:
        if not isinstance(info, dict):
            return None
        info = info.get(key)
    return info


def differences(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """What differs between two pytest-benchmark runs: machine, commit, load (markdown items)."""
    lines = []
    for label, keys in MACHINE_FIELDS:
        old, new = _lookup(before.get("machine_info"), keys), _lookup(after.get("machine_info"), keys)
        if old != new:
            lines.append(f"- machine {label}: {old if old is not None else '—'} → {new if new is not None else '—'}")
    for label, keys in (("commit", ("id",)), ("dirty", ("dirty",))):
        old, new = _lookup(before.get("commit_info"), keys), _lookup(after.get("commit_info"), keys)
        if old != new:
            lines.append(f"- {label}: {old if old is not None else '—'} → {new if new is not None else '—'}")
    for name, document in (("before", before), ("after", after)):
        busy = _lookup(document, ("polymask_state", "busy"))
        if isinstance(busy, list) and busy:
            lines.append(
                f"- {name} was measured on a busy machine ({'; '.join(map(str, busy))}): its figures are unreliable"
            )
        elif busy is None:
            lines.append(f"- {name}: no load recorded (a run outside polymask's benchmarks/ suite)")
    return lines or ["- nothing but the time of the run: same machine and commit"]


def _row_line(old: SuiteRow, new: SuiteRow) -> str:
    ratio = new["median"] / old["median"]
    if old["samples"] is None or new["samples"] is None:
        interval, word = "—", "medians only: no samples in the file"
    else:
        _, low, high, word = verdict(old["samples"], new["samples"])
        interval = "—" if low is None or high is None else f"{low:.3f}–{high:.3f}"
    return (
        f"| {old['name']} | {format_seconds(old['median'])} | {format_seconds(new['median'])} | "
        f"{ratio:.3f} | {interval} | {word} |"
    )


def compare_suites(before: object, after: object, names: tuple[FilePath, FilePath]) -> str:
    """The comparison of two pytest-benchmark documents as markdown, one table per group."""
    old_rows, new_rows = suite_rows(before, names[0]), suite_rows(after, names[1])
    assert isinstance(before, dict) and isinstance(after, dict)  # suite_rows checked both
    lines = [
        f"## polymask bench --compare {names[0]} {names[1]} (pytest-benchmark files)",
        "",
        "What differs between the two runs:",
        *differences(before, after),
    ]
    for label, rows in (("before", old_rows), ("after", new_rows)):
        if any(row["samples"] is None for row in rows.values()):
            lines.append(
                f"- {label} kept no samples (pytest-benchmark writes them to --benchmark-json files, "
                "and to --benchmark-save files only with --benchmark-save-data): its rows are "
                "compared by their medians, without a verdict"
            )
    lines += [
        "",
        "Rows are matched by group and name. ratio: after's median over before's (below 1: after is "
        'faster); interval: its 95% bootstrap interval from the samples; the verdict is "faster" or '
        '"slower" only when the interval excludes 1.',
    ]
    groups = sorted({row["group"] for key, row in old_rows.items() if key in new_rows})
    for group in groups:
        lines += [
            "",
            f"### {group}",
            "",
            "| benchmark | before | after | ratio | 95% interval | verdict |",
            "|---|---:|---:|---:|---:|---|",
        ]
        lines += [
            _row_line(old, new_rows[key]) for key, old in old_rows.items() if key in new_rows and old["group"] == group
        ]
    unmatched = sorted(set(old_rows) ^ set(new_rows))
    if unmatched:
        lines += ["", "Not timed in both runs: " + ", ".join(f"{name} ({group})" for group, name in unmatched) + "."]
    if not groups:
        lines += ["", "No benchmark is in both files."]
    return "\n".join(lines) + "\n"
