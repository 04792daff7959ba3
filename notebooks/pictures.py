"""The pictures the lessons draw: each saves a PNG and returns what it shows.

A lesson calls one of these and then `show`s the file, so the picture is made
from this run's numbers, on this machine.  Each function returns the
figures it drew, so the text under a picture can print them too.  The files
go to a folder of their own in the system's temporary directory
($POLYMASK_PICTURES_DIR to choose another), never beside the notebooks: a
lesson run in place leaves the source tree as it found it.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files, not windows: the notebook displays the PNG
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

#: The colour cython -a gives a line that calls into Python the most.
_YELLOW = np.array([1.0, 1.0, 0.0])

#: Where the pictures are written.
PICTURES_DIR = Path(os.environ.get("POLYMASK_PICTURES_DIR") or Path(tempfile.gettempdir()) / "polymask-lessons")


def where(name: str) -> Path:
    """The file a picture called `name` is written to (PICTURES_DIR/name)."""
    PICTURES_DIR.mkdir(parents=True, exist_ok=True)
    return PICTURES_DIR / Path(name).name


def show(name: str) -> None:
    """Display the picture called `name` in the notebook."""
    from IPython.display import Image, display

    display(Image(filename=str(where(name))))


def _save(figure, name: str) -> None:
    figure.tight_layout()
    figure.savefig(where(name), dpi=90)
    plt.close(figure)


def draw_mask(vertices, mask, path: str = "mask.png") -> int:
    """The polygon's outline over its mask (pixels inside in blue); returns the pixels inside."""
    figure, axes = plt.subplots(figsize=(4.5, 4.5))
    axes.imshow(mask, cmap="Blues", interpolation="nearest", vmin=0, vmax=1.6)
    closed = np.vstack([vertices, vertices[:1]])
    axes.plot(closed[:, 0], closed[:, 1], color="#d62728", linewidth=1.2, label="polygon (x = col, y = row)")
    axes.set_title(f"{mask.shape[0]}x{mask.shape[1]} mask: {int(mask.sum()):,} pixels inside")
    axes.set_xlabel("col (x)")
    axes.set_ylabel("row (y)")
    axes.legend(loc="lower right", fontsize=7)
    _save(figure, path)
    return int(mask.sum())


def annotation_scores(source: str) -> list[tuple[str, int]]:
    """(line, score) for every line of a .pyx `source`, as ``cython -a`` shades it.

    The score counts the Python C-API calls Cython wrote for the line: 0 is
    white (plain C), the larger the yellower.
    """
    with tempfile.TemporaryDirectory() as folder:
        pyx = Path(folder) / "annotated.pyx"
        pyx.write_text(source, encoding="utf-8")
        subprocess.run([sys.executable, "-m", "cython", "-a", "-3", "--cplus", str(pyx)],
                       check=True, capture_output=True, text=True)
        html = (Path(folder) / "annotated.html").read_text(encoding="utf-8")
    scores = [int(score) for score in re.findall(r'class="cython line score-(\d+)"', html)]
    lines = source.splitlines()
    return list(zip(lines, scores + [0] * (len(lines) - len(scores))))


def annotation_pair(left: str, right: str, titles: tuple[str, str], path: str) -> list[tuple[int, int]]:
    """Two .pyx sources side by side, each line shaded as ``cython -a`` shades it.

    Returns (yellow lines, code lines) for each side: a code line is one that
    is neither blank nor a comment, a yellow line one with a score above 0.
    """
    sides = [annotation_scores(left), annotation_scores(right)]
    height = max(len(side) for side in sides)
    figure, axes_pair = plt.subplots(1, 2, figsize=(13, 0.19 * height + 0.9))
    counts = []
    for axes, side, title in zip(axes_pair, sides, titles):
        code = [(line, score) for line, score in side if line.strip() and not line.lstrip().startswith("#")]
        yellow = sum(1 for _, score in code if score > 0)
        counts.append((yellow, len(code)))
        for number, (line, score) in enumerate(side):
            # cython -a's own scale: one C-API call is already clearly yellow, many are deep yellow.
            colour = tuple(_YELLOW + (1.0 - _YELLOW) / (1.0 + score / 5.0)) if score else (1.0, 1.0, 1.0)
            axes.add_patch(plt.Rectangle((0, height - number - 1), 1, 1, color=colour, transform=axes.transData))
            axes.text(0.01, height - number - 0.5, line[:88], family="monospace", fontsize=6.5, va="center")
        axes.set_xlim(0, 1)
        axes.set_ylim(0, height)
        axes.set_xticks([])
        axes.set_yticks([])
        axes.set_title(f"{title}\n{yellow} of {len(code)} code lines yellow", fontsize=9)
    _save(figure, path)
    return counts


def thread_scaling(threads: list[int], seconds: dict[str, list[float]], baseline: float, cores: int,
                   load: float | None, path: str = "scaling.png") -> None:
    """Speed-up over one baseline time (the same for every line) against the thread count;
    the ideal is one core per thread, so it stops rising at `cores`, which is marked, with
    the load average measured beside the timings."""
    figure, axes = plt.subplots(figsize=(5.5, 3.6))
    for label, values in seconds.items():
        axes.plot(threads, [baseline / value for value in values], marker="o", label=label)
    axes.plot(threads, [min(count, cores) for count in threads], color="#999999", linestyle=":",
              label=f"ideal: one core per thread, at most {cores}")
    axes.axvline(cores, color="#d62728", linewidth=0.8, linestyle="--", label=f"{cores} usable cores")
    axes.set_xticks(threads)
    axes.set_xlabel("threads")
    axes.set_ylabel("speed-up over the 1-thread baseline")
    load_text = "no load average here" if load is None else f"load average {load:.1f}"
    axes.set_title(f"{cores} usable cores, {load_text} during the timings", fontsize=9)
    axes.legend(fontsize=7)
    _save(figure, path)


def timing_bars(measured: dict, title: str, path: str) -> None:
    """One bar per timing (its median) with a line from its fastest to its slowest repeat."""
    names = list(measured)
    medians = [measured[name].seconds * 1e3 for name in names]
    low = [medians[i] - min(measured[name].wall) * 1e3 for i, name in enumerate(names)]
    high = [max(measured[name].wall) * 1e3 - medians[i] for i, name in enumerate(names)]
    figure, axes = plt.subplots(figsize=(6, 0.45 * len(names) + 1.2))
    positions = np.arange(len(names))
    axes.barh(positions, medians, xerr=[low, high], color="#1f77b4", ecolor="#333333", capsize=3)
    axes.set_yticks(positions, names, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlabel("ms (bar: median; line: fastest to slowest repeat)")
    axes.set_title(title, fontsize=9)
    _save(figure, path)


def memory_over_time(series: dict[str, list[int]], path: str = "leak.png") -> None:
    """Bytes held by the C++ polygons alive in the process after each object made and dropped."""
    figure, axes = plt.subplots(figsize=(5.5, 3.2))
    for label, values in series.items():
        axes.plot(range(1, len(values) + 1), [value / 2**20 for value in values], label=label)
    axes.set_xlabel("objects made and dropped")
    axes.set_ylabel("MiB held by live C++ polygons")
    axes.legend(fontsize=8)
    _save(figure, path)


def kernel_against_transfer(timings: dict[str, dict], device: str, path: str = "kernel_transfer.png") -> None:
    """For each kernel, its time on the device beside the time of its copies (OpenCL events)."""
    names = list(timings)
    kernel = [timings[name]["kernel_s"] * 1e3 for name in names]
    transfer = [timings[name]["transfer_s"] * 1e3 for name in names]
    figure, axes = plt.subplots(figsize=(5.5, 2.8))
    positions = np.arange(len(names))
    axes.barh(positions + 0.2, kernel, height=0.4, label="kernel", color="#1f77b4")
    axes.barh(positions - 0.2, transfer, height=0.4, label="transfers (upload + download)", color="#ff7f0e")
    axes.set_yticks(positions, [f"{name} kernel" for name in names])
    axes.set_xscale("log")
    axes.set_xlabel("ms (log scale, medians of OpenCL events)")
    axes.set_title(f"device: {device}"[:80], fontsize=8)
    axes.legend(fontsize=7)
    _save(figure, path)


def spans_on_a_row(vertices, mask, row: int, x_cross, path: str = "spans.png") -> None:
    """One row of the mask: the polygon, the row's crossings, and the spans between them."""
    figure, axes = plt.subplots(figsize=(6, 4.2))
    axes.imshow(mask, cmap="Greys", interpolation="nearest", vmin=0, vmax=4)
    closed = np.vstack([vertices, vertices[:1]])
    axes.plot(closed[:, 0], closed[:, 1], color="#555555", linewidth=0.8)
    axes.axhline(row, color="#1f77b4", linewidth=0.6)
    starts = np.sort(np.ceil(x_cross))
    for first, end in zip(starts[0::2], starts[1::2]):
        axes.plot([first, end - 1], [row, row], color="#2ca02c", linewidth=4, solid_capstyle="butt")
    axes.plot(x_cross, [row] * len(x_cross), "x", color="#d62728", markersize=7, label="x_cross")
    axes.plot([], [], color="#2ca02c", linewidth=4, label="spans [ceil(a1), ceil(a2)), ...")
    axes.set_title(f"row {row}: {len(x_cross)} crossings, {len(x_cross) // 2} spans", fontsize=9)
    axes.legend(fontsize=7, loc="lower right")
    _save(figure, path)
