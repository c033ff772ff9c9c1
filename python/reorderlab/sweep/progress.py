"""A sweep's progress bar on the terminal (runs done / total, ETA)."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["Progress", "progress_enabled"]


def progress_enabled(progress: bool | None) -> bool:
    """``progress`` if given, else whether stdout is a terminal."""
    if progress is not None:
        return progress
    return sys.stdout.isatty()


class Progress:
    """A rich progress bar, or nothing."""

    def __init__(self, enabled: bool, total: int, done: int, label: str) -> None:
        self._bar: Any = None
        self._task: Any = None
        if not enabled or total == 0:
            return
        # Imported here, the one import of this module that waits for its
        # use: rich takes ~90 ms to import, and only a terminal shows a bar.
        from rich import progress as rp

        self._bar = rp.Progress(
            rp.TextColumn("[bold]{task.description}"),
            rp.BarColumn(),
            rp.MofNCompleteColumn(),
            rp.TextColumn("elapsed"),
            rp.TimeElapsedColumn(),
            rp.TextColumn("ETA"),
            rp.TimeRemainingColumn(),
            transient=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(label, total=total, completed=done)

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
