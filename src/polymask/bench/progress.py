"""The progress bar of ``polymask bench``: rich on stderr, or plain lines without rich.

stdout stays clean markdown, so a table can be piped into a file while the
bar shows which row is being timed.
"""
from __future__ import annotations

import sys


class Progress:
    """A rich progress bar on stderr (stdout stays clean markdown), or plain lines without rich."""

    def __init__(self, total: int, enabled: bool):
        self._bar = None
        self._enabled = enabled
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress
        except ImportError:
            return
        self._bar = RichProgress(TextColumn("{task.description:<28}"), BarColumn(),
                                 TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                                 console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task("polymask bench", total=total)
        self._bar.start()

    def step(self, label: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=label)
        elif self._enabled:
            print(f"  timing {label} ...", file=sys.stderr, flush=True)

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
