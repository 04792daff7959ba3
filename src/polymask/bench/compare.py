"""``polymask bench --compare BEFORE.json AFTER.json``: did anything get faster or slower?

Each row both reports timed is compared from its samples: the ratio of the
medians (after over before) and a 95% bootstrap interval of that ratio
(each report's samples resampled with replacement, NumPy only).  The
verdict is "faster" when the whole interval lies below 1, "slower" when it
lies above 1, and "no detectable change" otherwise; rows with fewer than
three samples on either side say so instead of guessing.  Above the table,
every way the two runs differ (machine, software, problem, commit, load)
is listed, since a ratio across machines measures the machines too.

Two pytest-benchmark JSON files are compared the same way, row by row
(``polymask.bench.suite_compare``); a bench table and a pytest-benchmark
file are refused together, since their rows name different things.
"""
from __future__ import annotations

from polymask.bench.from_json import bench_report, is_bench_report, read_document
from polymask.bench.records import FilePath, Report, Row
from polymask.bench.report import format_seconds
from polymask.bench.verdicts import verdict

#: Machine and run fields whose difference the comparison names, with their labels.
MACHINE_FIELDS = ("cpu", "cores", "threads", "openmp", "compiler", "python", "numpy", "cython", "polymask",
                  "opencl_device", "platform")
PROBLEM_FIELDS = ("rows", "cols", "vertices", "seed", "repeats", "slow_repeats", "threads", "quick")


def _field(value: object) -> str:
    return "—" if value is None else str(value)


def differences(before: Report, after: Report) -> list[str]:
    """What differs between the two runs, one markdown item each ("same ..." when nothing does)."""
    lines = []
    for what, fields, first, second in (("machine", MACHINE_FIELDS, before["machine"], after["machine"]),
                                        ("problem", PROBLEM_FIELDS, before["problem"], after["problem"])):
        for name in fields:
            old, new = first.get(name), second.get(name)
            if old != new:
                lines.append(f"- {what} {name}: {_field(old)} → {_field(new)}")
    states = before.get("state"), after.get("state")
    for name in ("commit", "dirty"):
        old, new = (None if state is None else state[name] for state in states)  # type: ignore[literal-required]
        if old != new:
            lines.append(f"- {name}: {_field(old)} → {_field(new)}")
    for label, state in zip(("before", "after"), states):
        if state is None:
            lines.append(f"- {label}: no date, commit or load recorded (an older report)")
        elif state["busy"]:
            lines.append(f"- {label} was measured on a busy machine ({'; '.join(state['busy'])}): "
                         "its figures are unreliable")
    return lines or ["- nothing but the time of the run: same machine, software, problem and commit"]


def _row_line(old: Row, new: Row) -> str:
    ratio, low, high, word = verdict(old.get("samples") or [], new.get("samples") or [])
    shown = "—" if ratio is None else f"{ratio:.3f}"
    interval = "—" if low is None or high is None else f"{low:.3f}–{high:.3f}"
    return (f"| {old['title']} (`{old['id']}`) | {format_seconds(old['seconds'])} | {format_seconds(new['seconds'])} | "
            f"{shown} | {interval} | {word} |")


def compare(before: Report, after: Report, names: tuple[str, str] = ("before", "after")) -> str:
    """The comparison of two reports as markdown."""
    lines = [f"## polymask bench --compare {names[0]} {names[1]}", "", "What differs between the two runs:",
             *differences(before, after), "",
             "ratio: after's median over before's (below 1: after is faster); interval: its 95% bootstrap "
             "interval from the samples; the verdict is \"faster\" or \"slower\" only when the interval "
             "excludes 1.", "",
             "| row | before | after | ratio | 95% interval | verdict |", "|---|---:|---:|---:|---:|---|"]
    after_rows = {row["id"]: row for row in after["rows"]}
    unmatched = []
    for old in before["rows"]:
        new = after_rows.pop(old["id"], None)
        if new is None or old["seconds"] is None or new["seconds"] is None:
            unmatched.append(old["id"])
            continue
        lines.append(_row_line(old, new))
    unmatched += list(after_rows)
    if unmatched:
        lines += ["", f"Not timed in both runs: {', '.join(sorted(set(unmatched)))}."]
    return "\n".join(lines) + "\n"


def file_kind(document: object, path: FilePath) -> str:
    """"bench" or "pytest-benchmark": which kind of file `document` is; ValueError for anything else."""
    if is_bench_report(document):
        return "bench"
    if isinstance(document, dict) and isinstance(document.get("benchmarks"), list):
        return "pytest-benchmark"
    if isinstance(document, dict) and "series" in document:
        raise ValueError(f"{path} is a polymask bench --sweep file; a sweep cannot be compared")
    found = f"an object with keys {sorted(document)[:8]}" if isinstance(document, dict) else \
        f"a JSON {type(document).__name__}"
    raise ValueError(f"{path} is neither a polymask bench --json table ('problem' and 'rows') nor a "
                     f"pytest-benchmark JSON file (a 'benchmarks' list); found {found}")


def compare_files(before: FilePath, after: FilePath) -> str:
    """Read two ``polymask bench --json`` files, or two pytest-benchmark files, and compare them.

    ValueError / OSError on a bad file, and on one file of each kind.
    """
    documents = [read_document(path) for path in (before, after)]
    kinds = [file_kind(document, path) for document, path in zip(documents, (before, after))]
    if kinds[0] != kinds[1]:
        raise ValueError(f"{before} is a {kinds[0]} file and {after} a {kinds[1]} file; compare two polymask "
                         "bench --json tables or two pytest-benchmark files")
    if kinds[0] == "pytest-benchmark":
        from polymask.bench.suite_compare import compare_suites

        return compare_suites(documents[0], documents[1], (before, after))
    reports = [bench_report(document, path) for document, path in zip(documents, (before, after))]
    return compare(reports[0], reports[1], (str(before), str(after)))
