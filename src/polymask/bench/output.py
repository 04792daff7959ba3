"""``polymask bench``'s output: checked before the run where it can be, one line and exit 2 where it fails after.

A file option must name a file the run can write (its folder exists and is
writable; --plot's extension a format matplotlib writes) and --stages known
stages, or the run does not start (argparse's usage error, exit 2).  What
can only fail while writing (a full disk, a closed pipe) raises
OutputFailed, which polymask bench reports in one line with exit 2.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable, TypeVar

from polymask.bench.records import FilePath

#: What an output writes: a report or a sweep.
Record = TypeVar("Record")


class OutputFailed(Exception):
    """Writing a result failed after the run (a full disk, a closed pipe): one line, exit 2."""


def check_output_path(parser: argparse.ArgumentParser, option: str, path: str) -> None:
    """The file can be written: its folder exists, and it is not a folder itself (checked before the run)."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        parser.error(f"{option} {path!r} is a directory; expected a file name")
    if not folder.is_dir():
        what = "is not a directory" if folder.exists() else "does not exist"
        parser.error(f"{option} {path!r}: the folder {str(folder)!r} {what}; create it first")
    if not os.access(folder, os.W_OK):
        parser.error(f"{option} {path!r}: the folder {str(folder)!r} is not writable")
    # Permissions do not tell everything (root, read-only mounts, /proc): open
    # the file for appending, as the run will write it, and undo a creation.
    existed = target.exists()
    try:
        with open(target, "a"):
            pass
    except OSError as error:
        parser.error(f"{option} {path!r} cannot be written: {error.strerror or error}")
    if not existed:
        target.unlink()


def check_stages(parser: argparse.ArgumentParser, stages: str) -> None:
    """--stages names known stages (exit 2 before the run otherwise)."""
    if stages == "all":
        return
    from polymask.course import stages as stage_registry

    unknown = sorted(set(stages.split(",")) - set(stage_registry.ids()))
    if unknown:
        parser.error(f"--stages: unknown stages {unknown}; choose from {', '.join(stage_registry.ids())} or all")


def check_plot_format(parser: argparse.ArgumentParser, path: str) -> None:
    """--plot names a file matplotlib can write (by its extension), and matplotlib is installed."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        parser.error("--plot needs matplotlib, which is not installed: pip install matplotlib")
    formats = FigureCanvasBase.get_supported_filetypes()
    extension = Path(path).suffix.lower().lstrip(".")
    if extension not in formats:
        parser.error(f"--plot {path!r}: matplotlib cannot write {('.' + extension) if extension else 'a file without'} "
                     f"an extension; use one of {', '.join('.' + name for name in sorted(formats))}")


def output(what: str, write: Callable[[Record, FilePath], None], record: Record, path: FilePath) -> None:
    """Run write(record, path); an OSError becomes OutputFailed naming `what`."""
    try:
        write(record, path)
    except OSError as error:
        raise OutputFailed(f"cannot write {what}: {error.strerror or error}") from None


def print_table(text: str) -> None:
    """Print `text` and flush, so a full or closed stdout fails here, not at exit."""
    try:
        print(text)
        sys.stdout.flush()
    except OSError as error:
        # Point stdout at the null device so the interpreter's flush at exit does not fail again.
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
        raise OutputFailed(f"cannot write the table to standard output: {error.strerror or error}") from None
