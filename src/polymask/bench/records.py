"""The records ``polymask bench`` passes around: its options, the table's rows, a report, a sweep.

Rows, reports and sweeps are plain dicts, spelt here as TypedDicts: they are
what ``--json`` writes, key for key and in the order the run fills them in,
and what the markdown, the CSV and the charts read.
"""
from __future__ import annotations

import argparse
import os
from typing import Literal, TypedDict, Union

from polymask.bench.state import RunState

#: A file the outputs write (``--json``, ``--csv``, ``--plot``).
FilePath = Union[str, "os.PathLike[str]"]

#: What a row of the table is: a rung of the ladder (or a side stage), the
#: library's own OpenCL call, a peer library, or the memory floor.  (A Union of
#: Literals, so that it is a Union at run time too, as type checkers see it.)
RowKind = Union[Literal["stage"], Literal["side"], Literal["library"], Literal["peer"], Literal["floor"]]


class BenchOptions(argparse.Namespace):
    """``polymask bench``'s options, as ``polymask.bench.parse_args`` returns them."""

    size: int
    vertices: int
    seed: int
    repeats: int
    slow_repeats: int
    threads: int
    stages: str
    no_peers: bool
    quick: bool
    json: str | None
    csv: str | None
    plot: str | None
    sweep: str | None
    from_json: str | None
    compare: list[str] | None
    no_progress: bool


class _RowFields(TypedDict):
    kind: RowKind
    id: str
    title: str
    #: Median seconds of one mask here over its samples (scaled up when extrapolated); None when the
    #: row cannot run here.
    seconds: float | None
    #: "contract", or how a peer's answer may differ from it.
    convention: str


class Row(_RowFields, total=False):
    """One row of the table; the keys below appear where they apply."""

    #: Timed on a band of rows and scaled to the full image (``--quick``); set on every row once timed.
    extrapolated: bool
    #: Every timed sample, seconds per mask (scaled like ``seconds``), in the order taken.
    samples: list[float]
    #: The process's CPU seconds per mask in each sample (all its threads).
    cpu_samples: list[float]
    #: The samples' first and third quartiles, and their median CPU time.
    q1: float
    q3: float
    cpu_seconds: float
    #: Calls averaged in one sample.
    calls_per_sample: int
    #: Whether the row may use several threads (its CPU time can exceed its wall time).
    threaded: bool
    #: Rows of the mask its pixels_differing was counted on (fewer than the image's under --quick).
    checked_rows: int
    #: Over pure Python in this run (None without a pure Python time).
    speedup: float | None
    #: The 2014 course's figures (stages only; None where the course had none).
    seconds_2014: float | None
    speedup_2014: float | None
    #: seconds over the memory floor's.
    x_floor: float
    #: Pixels that differ from polymask.mask's (None when the row did not run).
    pixels_differing: int | None
    #: The OpenCL per-pixel kernel's time split, from OpenCL events.
    kernel_seconds: float
    transfer_seconds: float
    note: str


class Problem(TypedDict):
    """The problem the table was timed on, and how."""

    rows: int
    cols: int
    vertices: int
    seed: int
    repeats: int
    slow_repeats: int
    threads: int
    quick: bool


class _MachineFields(TypedDict):
    cpu: str
    cores: int
    openmp: bool
    compiler: str
    python: str
    numpy: str
    cython: str
    polymask: str
    opencl_device: str
    platform: str


class MachineInfo(_MachineFields, total=False):
    """What a report was measured on (``polymask.bench.machine.machine_info``)."""

    #: The production fills' default thread count and how they thread; reports
    #: written before polymask's thread pool had ``openmp_threads`` instead.
    threads: int
    threading: str
    openmp_threads: int


class _ReportFields(TypedDict):
    problem: Problem
    machine: MachineInfo
    rows: list[Row]


class Report(_ReportFields, total=False):
    """The speed-up table: ``run_table``'s result and ``--json``'s document."""

    #: When and in what state it was measured (reports before this key have none).
    state: RunState


class Sweep(TypedDict):
    """``run_sweep``'s result and ``--sweep --json``'s document."""

    #: "size", "vertices" or "threads".
    parameter: str
    size: int
    vertices: int
    seed: int
    #: Per backend, (value of the parameter, median seconds) for each value it ran at.
    series: dict[str, list[tuple[int, float]]]
    #: Per backend, (value, pixels differing from polymask.mask) at each value it ran at.
    differing: dict[str, list[tuple[int, int]]]
    #: Per backend, why it stopped before the largest values (absent: it ran at every value).
    stopped: dict[str, str]
    machine: MachineInfo
    state: RunState
