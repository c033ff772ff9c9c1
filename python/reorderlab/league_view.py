"""How a league table of ``reorderlab compare`` reads, in every place it is
shown: the command's text table, its Markdown (``compare --markdown``,
the README's table), and the report's HTML. One set of columns and one
way to write each cell, from the rows of ``league.csv`` (strings) or of
the DataFrame (numbers) alike. The standard library alone: the report
imports it.

A rank shared by senders whose 95 % confidence intervals overlap is
written ``=N`` (:func:`reorderlab.league.league_table` sets ``tied``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["heads", "markdown", "row_cells"]


def heads(finite: bool) -> list[str]:
    """The columns' titles (completion time and share completed for
    finite flows)."""
    out = ["rank", "variant", "cc", "goodput Mb/s", "% of undisturbed", "spurious retx"]
    out += ["timeouts", "queue drops", "retx"]
    return out + (["FCT s", "completed"] if finite else [])


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _pm(value: Any, half: Any, scale: float, digits: int, pm: str) -> str:
    """``mean PM half``; ``-`` without a mean, the mean alone without a CI."""
    x = _float(value) * scale
    if math.isnan(x):
        return "-"
    h = _float(half) * scale
    return f"{x:.{digits}f}" + ("" if math.isnan(h) else f" {pm} {h:.{digits}f}")


def _number(value: Any, digits: int) -> str:
    x = _float(value)
    return "-" if math.isnan(x) else f"{x:.{digits}f}"


def _tied(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("true", "1")


def row_cells(row: Mapping[str, Any], finite: bool, pm: str = "+-") -> list[str]:
    """One sender's cells, in the order of :func:`heads`; ``pm`` joins a
    mean and its interval (``+-``, ``±``, ``&plusmn;``)."""
    rank = str(row.get("rank", ""))
    cells = [
        f"={rank}" if _tied(row.get("tied")) else rank,
        str(row.get("variant", "")),
        str(row.get("cc", "")),
        _pm(row.get("goodput_mbps"), row.get("goodput_ci"), 1.0, 2, pm),
        _pm(row.get("share_undisturbed"), row.get("share_ci"), 100.0, 1, pm),
        _number(row.get("spurious_retransmits"), 1),
        _number(row.get("timeouts"), 1),
        _number(row.get("queue_drops"), 1),
        _number(row.get("retransmits"), 1),
    ]
    if finite:
        done = _number(100 * _float(row.get("completed")), 0)
        cells += [_pm(row.get("fct_s"), row.get("fct_ci"), 1.0, 3, pm), f"{done} %"]
    return cells


def markdown(rows: Sequence[Mapping[str, Any]], finite: bool) -> str:
    """The table in Markdown (the README's)."""
    lines = ["| " + " | ".join(heads(finite)) + " |", "|" + "---|" * len(heads(finite))]
    for row in rows:
        lines.append("| " + " | ".join(row_cells(row, finite, "±")) + " |")
    return "\n".join(lines)
