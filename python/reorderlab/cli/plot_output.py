"""What ``reorderlab plot`` and ``run --plot`` share: draw the pictures a
command line asks for of a run, and say what was written
(:mod:`reorderlab.runplots`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from reorderlab.cli.common import fail
from reorderlab.runner import Result

__all__ = ["plot_result", "window_of"]


def window_of(text: str | None) -> tuple[float, float] | None:
    """``--window FROM:UNTIL`` (seconds) as a pair; exit 2 naming the value."""
    if text is None:
        return None
    try:
        lo, hi = (float(x) for x in text.split(":"))
    except ValueError:
        fail(f"--window: must be FROM:UNTIL in seconds, e.g. 10:12, got {text!r}", 2)
    if not 0 <= lo < hi:
        fail(f"--window: must have 0 <= FROM < UNTIL, got {text!r}", 2)
    return lo, hi


def plot_result(
    result: Result, out: Path, a: argparse.Namespace, *, log: TextIO | None = None
) -> None:
    """Write the pictures ``a`` asks for of ``result`` into ``out``; print
    what was written and what the run has no data for (on ``log``,
    default standard output)."""
    from reorderlab.runplots import KINDS, NoDataError, write_plots

    kinds = KINDS if a.kind is None else (a.kind,)
    try:
        written, missing = write_plots(
            result, out, flow=a.flow, kinds=kinds, window=window_of(a.window)
        )
    except NoDataError as exc:
        fail(str(exc), 2)
    except KeyError as exc:
        fail(f"--flow: {exc.args[0]}", 2)
    for path in written:
        print(f"wrote {path}", file=log)
    for why in missing:
        print(f"not drawn: {why}", file=log)
    if not written:
        fail("nothing to draw: the run recorded no trace and no series", 2)
