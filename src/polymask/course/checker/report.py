"""The checker's verdict and how it reads: CheckResult, pictures of a difference, the text.

Everything a learner reads is written here, so the wording of a FAIL
lives in one place: which phase failed, which polygon, how many pixels
are extra or missing, and a small picture ('+' a pixel you set that
should be clear, '-' one you missed).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

LEGEND = "'#' inside in both, '.' outside in both, '+' you set it but it is outside, '-' you missed it"
#: The most characters of one piece of the learner's text a report quotes.
QUOTED_LIMIT = 4000
#: The words a verdict line starts with (only the report's first line may).
VERDICT_WORDS = ("PASS", "FAIL", "ERROR", "INCONCLUSIVE")
_CONTROL = {code: "?" for code in (*range(0, 9), *range(11, 32), 127)}  # all but tab and newline


def quoted(text, limit: int = QUOTED_LIMIT, keep_end: bool = False) -> str:
    """Text the learner controls, as the report shows it: every line indented behind '  | '.

    Nothing of it can start a line of the report (so no quoted line reads as a
    verdict), control characters that move a terminal's cursor (carriage return,
    escapes) become '?', and it is cut to `limit` characters (its last ones when `keep_end`).
    """
    text = str(text)
    if len(text) > limit and keep_end:
        text = f"[{len(text) - limit:,} characters before these ...]\n" + text[-limit:]
    elif len(text) > limit:
        text = text[:limit] + f" [... {len(text) - limit:,} more characters]"
    return "\n".join("  | " + line for line in text.translate(_CONTROL).split("\n"))


def inline(text, limit: int = 400) -> str:
    """Text the learner controls, kept on the line the report started (newlines and control characters: '?')."""
    text = str(text).replace("\n", " ").translate(_CONTROL)
    return text if len(text) <= limit else text[:limit] + " [...]"


def no_forged_verdicts(report: str) -> str:
    """`report` with every line after the first that starts like a verdict indented (a last safeguard)."""
    first, *rest = report.split("\n")
    return "\n".join([first] + [f"  | {line}" if line.startswith(VERDICT_WORDS) else line for line in rest])


@dataclass
class CheckResult:
    """The checker's verdict.  ``passed`` is the bool; str()/repr() is the report for humans."""

    exercise: str
    path: str
    #: "pass", "wrong" (ran, but a mask or a check failed), "error" (not built/loaded, bad usage)
    #: or "inconclusive" (the machine was too busy to judge the technique).
    status: str
    #: The report, as printed.
    report: str
    #: One dict per failing case: case, kind, message, and for wrong masks extra/missing/picture.
    failures: list = field(default_factory=list)
    #: The phase that failed ("cases", "timing", "the thread check", ...), None when passed.
    phase: str | None = None
    #: Seconds per mask on the timing problem (median of the repeats, when passed and timed).
    seconds: float | None = None
    #: Every repeat's seconds per mask (min, median and max are shown).
    repeat_seconds: list = field(default_factory=list)
    previous_stage: str | None = None
    previous_seconds: float | None = None
    time_shape: tuple | None = None

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def exit_code(self) -> int:
        return {"pass": 0, "wrong": 1, "inconclusive": 3}.get(self.status, 2)

    @property
    def speedup(self) -> float | None:
        if self.seconds and self.previous_seconds:
            return self.previous_seconds / self.seconds
        return None

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return self.report

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython shows the report, not a dataclass dump
        printer.text(self.report)


def difference_picture(got: np.ndarray, expected: np.ndarray, max_rows: int = 24, max_cols: int = 60) -> str:
    """A small text picture of where two bool masks differ, cropped around the differences."""
    differ = got != expected
    rows, cols = np.nonzero(differ)
    if rows.size == 0:
        return "(no difference)"
    margin = 2
    top, bottom = max(0, rows.min() - margin), min(got.shape[0], rows.max() + margin + 1)
    left, right = max(0, cols.min() - margin), min(got.shape[1], cols.max() + margin + 1)
    note = ""
    if bottom - top > max_rows or right - left > max_cols:
        # Too big to show whole: centre the window on the first difference.
        first_row, first_col = rows[0], cols[0]
        top = max(0, min(first_row - max_rows // 2, got.shape[0] - max_rows))
        left = max(0, min(first_col - max_cols // 2, got.shape[1] - max_cols))
        bottom, right = min(got.shape[0], top + max_rows), min(got.shape[1], left + max_cols)
        note = " (part of it, around the first difference)"
    symbols = np.full(got.shape, ".", dtype="<U1")
    symbols[got & expected] = "#"
    symbols[got & ~expected] = "+"
    symbols[~got & expected] = "-"
    lines = [f"rows {top}..{bottom - 1}, columns {left}..{right - 1}{note}:"]
    for row in range(top, bottom):
        lines.append(f"  {row:4d} " + "".join(symbols[row, left:right]))
    return "\n".join(lines)


def wrong_mask_failure(case, got: np.ndarray, expected: np.ndarray) -> dict:
    """The failure record of a mask that differs from the reference."""
    return dict(case_record(case), kind="wrong", extra=int(np.count_nonzero(got & ~expected)),
                missing=int(np.count_nonzero(~got & expected)), inside=int(np.count_nonzero(expected)),
                pixels=int(expected.size), picture=difference_picture(got, expected))


def case_record(case) -> dict:
    return {"case": case.name, "shape": list(case.shape), "n_vertices": len(case.vertices),
            "vertices": np.round(case.vertices, 3).tolist()[:8]}


def format_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def failure_text(failure: dict) -> str:
    rows, cols = failure["shape"]
    head = f"case {failure['case']!r} ({failure['n_vertices']} vertices on a {rows}x{cols} image)"
    if failure["kind"] == "wrong":
        total = failure["extra"] + failure["missing"]
        return (f"{head}: {total} pixels differ from polymask.mask -- {failure['extra']} extra (+), "
                f"{failure['missing']} missing (-); the right mask has {failure['inside']} of "
                f"{failure['pixels']} pixels inside.\n  first vertices (x, y): {failure['vertices']}\n"
                + failure["picture"])
    if failure["kind"] == "raised":
        return f"{head}: your mask() raised\n" + quoted(failure["message"])
    return f"{head}: {inline(failure['message'])}"


def cases_report(label: str, source, failures: list, count: int, size: int) -> str:
    """The FAIL text for wrong cases: the first in full, a line for the next few, names for the rest."""
    lines = [f"FAIL {label}: {source} is wrong on {len(failures)} of {count} cases "
             f"(the polygon set of the tests, {size}x{size} images, and the 1e300 extremes).", ""]
    first = failures[0]
    if first["kind"] == "wrong":
        lines.append(f"legend: {LEGEND}")
    lines.append(failure_text(first) + "\n")
    for failure in failures[1:5]:
        lines.append(failure_text(failure).split("\n")[0])
    if len(failures) > 5:
        lines.append("also wrong: " + ", ".join(f["case"] for f in failures[5:]))
    return "\n".join(lines).rstrip()


def timing_lines(side: int, scaled_note: str, yours: list, previous: list, compare_with: str, role: str,
                 busy_note: str) -> list[str]:
    """The timing table: min / median / max of the repeats for yours and the stage before."""
    lines = [f"time on the standard problem, {side}x{side}, 24 vertices{scaled_note}, "
             f"{len(yours)} repeat{'s' if len(yours) != 1 else ''} (min / median / max):"]

    def row(name, values):
        low, middle, high = min(values), float(np.median(values)), max(values)
        return (f"  {name:<48} {format_seconds(low):>10} {format_seconds(middle):>10} "
                f"{format_seconds(high):>10}")

    lines.append(row("yours", yours))
    if previous:
        lines.append(row(f"{compare_with} ({role})", previous))
        lines.append(f"  speed-up over {compare_with}: {np.median(previous) / np.median(yours):.1f}x "
                     "(medians)")
    if busy_note:
        lines.append(f"  note: {busy_note}")
    return lines


def ended_report(ended, fail, tail, result, label, learner_path) -> CheckResult:
    """The FAIL for a worker that stopped answering: timeout, crash, refusal, protocol violation."""
    output = ""
    if tail.strip():
        lines = tail.rstrip().splitlines()
        dropped = lines[:1] if len(lines) > 12 and lines[0].endswith("earlier bytes of output dropped]") else []
        lines = dropped + [line if len(line) <= 300 else line[:300] + " [...]" for line in lines[-12:]]
        output = "\noutput of your code (its last lines):\n" + quoted("\n".join(lines), keep_end=True)
    how, phase = ended.how, ended.phase
    if how == "timeout":
        return fail(f"did not finish {phase} within {ended.limit:g} s, its time limit (an endless loop? a loop "
                    "index that never advances?); it was stopped, with everything it started.", phase)
    if how.startswith("refused: "):
        return fail(f"was stopped while running ({phase}): the checker does not allow what it did; compute the "
                    "mask yourself, in this process.\n  What was refused:\n" + quoted(how[len("refused: "):]), phase)
    if how.startswith("raised: "):
        return fail(f"failed during {phase}: your code raised\n" + quoted(how[len("raised: "):]) + output, phase)
    if how.startswith("protocol: "):
        return fail(f"broke the checker's protocol during {phase} ({how[len('protocol: '):]}): something in "
                    "the worker wrote on the checker's private channel." + output, phase)
    return fail(f"crashed the Python process ({how}) during {phase}: in compiled code this is usually a NULL "
                "or out-of-range pointer; in Python, an exit or a kill." + output, phase)


def busy_note(seconds: list) -> str:
    """A warning when the timings cannot be trusted much: a loaded machine or a wide spread."""
    notes = []
    try:
        load = os.getloadavg()[0]
        cores = os.cpu_count() or 1
        if load > 0.8 * cores:
            notes.append(f"the machine looks busy (load average {load:.1f} on {cores} cores)")
    except OSError:  # no load average on this platform
        pass
    if len(seconds) >= 2 and min(seconds) > 0 and max(seconds) / min(seconds) > 1.5:
        notes.append(f"the repeats vary {max(seconds) / min(seconds):.1f}x")
    return "; ".join(notes) + ("; compare medians, and re-run when it is quiet" if notes else "")
