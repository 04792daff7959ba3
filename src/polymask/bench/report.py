"""Turning benchmark rows into the outputs: markdown, JSON, CSV and a chart.

One list of row dicts feeds every output, so the markdown table, the JSON
and the CSV always carry the same numbers.
"""
from __future__ import annotations

import csv
import json

from polymask.bench.records import FilePath, MachineInfo, Problem, Report, Row, Sweep
from polymask.bench.state import RunState, describe
from polymask.course.problems import STANDARD_SEED, STANDARD_SIZE, STANDARD_VERTICES

#: The columns of a row, in CSV order (the samples themselves are in the JSON only).
FIELDS = ("kind", "id", "title", "seconds", "q1", "q3", "cpu_seconds", "extrapolated", "speedup", "seconds_2014",
          "speedup_2014", "x_floor", "pixels_differing", "checked_rows", "convention", "kernel_seconds",
          "transfer_seconds", "note")


def format_seconds(seconds: float | None) -> str:
    """3 significant digits in a unit a human reads at a glance."""
    if seconds is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "—"
    return f"{ratio:.3g}" if ratio < 1000 else f"{ratio:,.0f}"


def is_standard(problem: Problem) -> bool:
    """Whether `problem` is the 2014 course's: the only one its figures compare with."""
    return (problem["rows"], problem["cols"], problem["vertices"], problem["seed"]) == (
        STANDARD_SIZE, STANDARD_SIZE, STANDARD_VERTICES, STANDARD_SEED)


def spread(row: Row) -> str:
    """The samples' interquartile range, and as a share of the median ("—" before samples were kept)."""
    if row.get("q1") is None or row.get("q3") is None or not row["seconds"]:
        return "—"
    width = row["q3"] - row["q1"]
    return f"{format_seconds(width) if width > 0 else '0'} ({width / row['seconds']:.0%})"


def cpu_share(row: Row) -> str:
    """CPU time over wall time: about 1 for one busy thread, more with threads, well below 1 when waiting."""
    if row.get("cpu_seconds") is None or not row["seconds"]:
        return "—"
    return f"{row['cpu_seconds'] / row['seconds']:.2f}"


def _samples(row: Row) -> str:
    return str(len(row["samples"])) if row.get("samples") else "—"


def _stage_line(row: Row, with_2014: bool = True) -> str:
    time = format_seconds(row["seconds"]) + (" *" if row.get("extrapolated") else "")
    differing = "—" if row.get("pixels_differing") is None else str(row["pixels_differing"])
    then = (f" {format_seconds(row.get('seconds_2014'))} | {format_ratio(row.get('speedup_2014'))} |"
            if with_2014 else "")
    return (f"| {row['title']} (`{row['id']}`) | {time} | {format_ratio(row.get('speedup'))} |{then} "
            f"{spread(row)} | {cpu_share(row)} | {_samples(row)} | {format_ratio(row.get('x_floor'))} | {differing} | "
            f"{row.get('note') or ''} |")


def _quick_note(problem: Problem, rows: list[Row]) -> list[str]:
    """The footnote of extrapolated rows: the band they were timed and checked on."""
    checked = sorted({row.get("checked_rows", 0) for row in rows if row.get("extrapolated")})
    if not checked:
        return []
    bands = " or ".join(f"{band} of {problem['rows']} rows ({band / problem['rows']:.0%})" for band in checked)
    return ["", f"\\* extrapolated (`--quick`): timed on a band of {bands} and scaled to the full image; "
                "their pixels differing were counted on that band only."]


def _threads(machine: MachineInfo) -> str:
    """The fills' default thread count and mechanism (reports before the pool said "openmp_threads")."""
    if "threads" not in machine:
        return f"{machine.get('openmp_threads')}"
    return f"{machine['threads']}, {machine.get('threading', 'polymask thread pool')}"


def markdown(report: Report) -> str:
    """The report as markdown: header, the ladder beside 2014, peers, floor."""
    problem, machine, rows = report["problem"], report["machine"], report["rows"]
    with_2014 = is_standard(problem)
    state = describe(report["state"]) if "state" in report else [
        "- measured: date, commit and load unknown (a report written before they were recorded)"]
    lines = [
        f"## polymask bench: {problem['rows']}x{problem['cols']} image, {problem['vertices']} random vertices "
        f"(seed {problem['seed']})",
        "",
        *state,
        f"- CPU: {machine['cpu']} ({machine['cores']} cores usable, default threads: {_threads(machine)})",
        f"- compiler: {machine['compiler']}; Python {machine['python']}, NumPy {machine['numpy']}, "
        f"Cython {machine['cython']}, polymask {machine['polymask']}",
        f"- OpenCL device: {machine['opencl_device']}",
        f"- time is the median of {problem['repeats']} samples ({problem['slow_repeats']} for slow stages)"
        + (", every row timed in the same interleaved rounds; IQR is the samples' interquartile range; "
           "CPU/wall is the process's CPU time over wall time (threads raise it, waiting for a core lowers it)"
           if any(row.get("samples") for row in rows) else "; the samples, their spread and CPU time were not "
           "recorded in this report") + "; speed-ups are over pure Python measured in this run",
        "",
        "| stage | time | speed-up |" + (" 2014 time | 2014 speed-up |" if with_2014 else "")
        + " IQR | CPU/wall | samples | x floor | pixels differing | notes |",
        "|---|---:|---:|" + ("---:|---:|" if with_2014 else "") + "---:|---:|---:|---:|---:|---|",
    ]
    lines += [_stage_line(row, with_2014) for row in rows if row["kind"] in ("stage", "side", "library")]
    lines += _quick_note(problem, rows)
    if not with_2014:
        lines += ["", f"The 2014 columns are left out: the course timed only the standard problem "
                      f"({STANDARD_SIZE}x{STANDARD_SIZE}, {STANDARD_VERTICES} vertices, seed {STANDARD_SEED})."]
    peers = [row for row in rows if row["kind"] == "peer"]
    if peers:
        lines += ["", "| peer | time | speed-up | IQR | CPU/wall | samples | x floor | pixels differing | convention |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for row in peers:
            if row["seconds"] is None:
                lines.append(f"| {row['title']} | — | — | — | — | — | — | — | {row.get('note')} |")
                continue
            lines.append(f"| {row['title']} | {format_seconds(row['seconds'])} | {format_ratio(row.get('speedup'))} | "
                         f"{spread(row)} | {cpu_share(row)} | {_samples(row)} | {format_ratio(row.get('x_floor'))} | "
                         f"{row['pixels_differing']} | {row['convention']} |")
    floor = next((row for row in rows if row["kind"] == "floor"), None)
    if floor:
        lines += ["", f"Memory floor (filling a preallocated {problem['rows']}x{problem['cols']} bool mask once): "
                      f"{format_seconds(floor['seconds'])}"
                      + ("" if spread(floor) == "—" else f" (IQR {spread(floor)})")
                      + ". \"x floor\" is each row's time over it."]
    lines += ["", "— : not measured: the row could not run here, or has no figure to compare with "
                  "(no 2014 time, no pure-Python time in this run)."]
    return "\n".join(lines) + "\n"


def write_json(report: Report | Sweep, path: FilePath) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=2)


def write_csv(report: Report, path: FilePath) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in report["rows"]:
            writer.writerow({field: ("" if row.get(field) is None else row.get(field)) for field in FIELDS})


def plot_speedups(report: Report, path: FilePath) -> None:
    """Speed-ups over pure Python on a log axis, the 2014 bar beside this machine's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import Patch

    rows = [row for row in report["rows"]
            if row["kind"] in ("stage", "side", "peer") and (row.get("speedup") or row.get("speedup_2014"))]
    labels = [_chart_label(row, report.get("machine", {})) for row in rows]
    here = [row.get("speedup") or np.nan for row in rows]
    then = [row.get("speedup_2014") or np.nan for row in rows]
    colours = ["#ff7f0e" if row["kind"] == "peer" else "#1f77b4" for row in rows]
    positions = np.arange(len(rows))
    figure, axes = plt.subplots(figsize=(max(7.0, 0.7 * len(rows)), 5.4))
    axes.bar(positions - 0.2, then, width=0.4, label="2014 course (Xeon 5520, GeForce Titan)", color="#bbbbbb")
    here_label = "this machine" + (" (orange: peer libraries)" if "#ff7f0e" in colours else "")
    bars = axes.bar(positions + 0.2, here, width=0.4, label=here_label, color=colours)
    extrapolated = [bar for bar, row in zip(bars, rows) if row.get("extrapolated")]
    for bar in extrapolated:  # timed on a band of rows and scaled up: say so on the bar
        bar.set_hatch("//")
        bar.set_edgecolor("white")
    if extrapolated:
        axes.bar([np.nan], [np.nan], color="#1f77b4", hatch="//", edgecolor="white",
                 label="extrapolated (timed on a band of rows, scaled up)")
    axes.set_yscale("log")
    axes.set_xticks(positions, labels, rotation=35, ha="right")
    axes.set_ylabel("speed-up over pure Python (log)")
    problem = report["problem"]
    where = provenance(report.get("machine", {}), report.get("state"), load_apart=True)
    axes.set_title(f"polymask: {problem['rows']}x{problem['cols']}, {problem['vertices']} vertices\n{where}",
                   pad=48, fontsize="medium")
    handles, names = axes.get_legend_handles_labels()
    # The legend would draw "this machine" like its first bar, hatched when that one was extrapolated.
    handles = [Patch(facecolor="#1f77b4") if name == here_label else handle for handle, name in zip(handles, names)]
    axes.legend(handles, names, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize="small",
                frameon=False)
    axes.grid(axis="y", which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _chart_label(row: Row, machine: MachineInfo) -> str:
    """The x label of a row: its id, and for OpenCL the kind of device each bar ran on."""
    if row["id"] != "opencl":
        return row["id"]
    device = machine.get("opencl_device", "")
    kind = next((name for name in ("gpu", "cpu", "accelerator") if f"({name}," in device.lower()), "device")
    return f"opencl\n(here: {kind.upper()};\n2014: GPU)"


def plot_sweep(sweep: Sweep, path: FilePath) -> None:
    """Time against the swept parameter, log-log, one line per backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.5, 4.5))
    for backend, points in sweep["series"].items():
        if points:
            xs, ys = zip(*points)
            axes.plot(xs, ys, marker="o", label=backend)
    axes.set_xscale("log", base=2 if sweep["parameter"] in ("size", "threads") else 10)
    axes.set_yscale("log")
    axes.set_xlabel(sweep["parameter"])
    axes.set_ylabel("median time per mask (s), after a warm-up call")
    axes.set_title(sweep_title(sweep), fontsize="small")
    axes.grid(which="both", alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def sweep_problem(sweep: Sweep) -> str:
    """The problem a sweep varies, in words: what is fixed and what sweeps."""
    fixed = {"size": f"{sweep['vertices']} random vertices", "vertices": f"{sweep['size']}x{sweep['size']} image",
             "threads": f"{sweep['size']}x{sweep['size']} image, {sweep['vertices']} random vertices"}
    seed = f", seed {sweep['seed']}" if "seed" in sweep else ""
    return f"over {sweep['parameter']}, {fixed.get(sweep['parameter'], '')}{seed}"


def provenance(machine: MachineInfo, state: RunState | None, load_apart: bool = False) -> str:
    """Where a chart's figures come from: machine, date, commit and load (on a line of its own if `load_apart`)."""
    where = f"{machine.get('cpu', '?')}, {machine.get('cores', '?')} cores"
    if state is None:
        return f"{where}; date, commit and load not recorded"
    commit = "no checkout" if state["commit"] is None else \
        f"commit {state['commit'][:12]}{'+changes' if state['dirty'] else ''}"
    loads = " → ".join("?" if load is None else f"{load:.2f}" for load in (state["load_before"], state["load_after"]))
    busy = "; busy machine: unreliable" if state["busy"] else ""
    return f"{where}; {state['date'][:16].replace('T', ' ')} UTC; {commit}{chr(10) if load_apart else '; '}" \
        f"load {loads}{busy}"


def sweep_title(sweep: Sweep) -> str:
    """The chart's title: the problem, the machine, the date, the commit and the load."""
    return f"polymask sweep {sweep_problem(sweep)}\n{provenance(sweep['machine'], sweep.get('state'), load_apart=True)}"


def sweep_markdown(sweep: Sweep) -> str:
    backends = list(sweep["series"])
    values = sorted({x for points in sweep["series"].values() for x, _ in points})
    differing = sweep.get("differing", {})
    lines = [f"## polymask bench --sweep {sweep_problem(sweep)}", ""]
    if "state" in sweep:
        lines += describe(sweep["state"])
    lines += [f"- CPU: {sweep['machine'].get('cpu', '?')}; each cell is the median time per mask after one "
              "untimed warm-up call; \"(N px)\": pixels that differ from polymask.mask (peers follow their own "
              "conventions)", "",
              f"| {sweep['parameter']} | " + " | ".join(backends) + " |", "|---:|" + "---:|" * len(backends)]
    for value in values:
        cells = []
        for backend in backends:
            seconds = dict(sweep["series"][backend]).get(value)
            off = dict(differing.get(backend, [])).get(value)
            cells.append(format_seconds(seconds) + (f" ({off} px)" if off and seconds is not None else ""))
        lines.append(f"| {value} | " + " | ".join(cells) + " |")
    missing = [backend for backend in backends
               if any(dict(sweep["series"][backend]).get(value) is None for value in values)]
    if missing:
        stopped = sweep.get("stopped", {})
        reasons = "; ".join(f"{backend} took {stopped[backend]}" for backend in missing if backend in stopped)
        lines += ["", f"— : not timed at that value{': ' + reasons if reasons else ''}."]
    return "\n".join(lines) + "\n"
