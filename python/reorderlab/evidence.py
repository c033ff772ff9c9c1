"""The rules a deviation of a ``format = 2`` file must follow, and its
evidence's numbers checked against the files a reproduction wrote
(:mod:`reorderlab.deviations` describes the format).

:func:`label_problems`
    the label's rule (``setting``: a sweep naming its parameter, with
    numbers of at least two of its rows; ``paper``: two different quotes;
    ``noise``: a seed share strictly between 0 and 1, for one mode), and the evidence's
    own (a quote with its words; a file with numbers, for each mode the
    deviation applies to).
:func:`number_problems`
    each number of ``mode`` against the cited file of a results folder
    (a ``.png`` or ``.svg``'s numbers are those of its ``.csv``), with the
    file written by the reproduction or by the command the evidence gives.
:func:`share_problems`
    a ``noise`` deviation's seed share against the claim's in claims.json.

Each returns one line per problem, naming the paper, the figure and the
claim: an empty list is a pass.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from reorderlab.deviations import Evidence, Explanation, Number

__all__ = [
    "FILE_SUFFIXES",
    "csv_of",
    "label_problems",
    "number_problems",
    "share_problems",
    "written_tolerance",
]

#: Evidence naming a results file ends with one of these.
FILE_SUFFIXES = (".png", ".svg", ".csv", ".json")


def _name(e: Explanation) -> str:
    return f"{e.paper} {e.figure} {e.claim!r}"


def _is_file(ev: Evidence) -> bool:
    return ev.ref.endswith(FILE_SUFFIXES)


def _modes(e: Explanation) -> tuple[str, ...]:
    return ("quick", "full") if e.mode == "both" else (e.mode,)


def label_problems(e: Explanation) -> list[str]:
    """Whether ``e`` follows its label's rule and the evidence rules (the
    module docstring)."""
    d, out = e.deviation, []
    if d.cause == "setting":
        sweeps = [ev for ev in d.evidence if ev.kind == "sweep" and ev.parameter]
        if not any(_rows_per_mode(ev) >= 2 for ev in sweeps):
            out.append(
                f"{_name(e)}: setting: needs a sweep evidence naming its parameter, "
                "with numbers of at least two of its rows in one mode"
            )
    if d.cause == "paper":
        quotes = {ev.quote for ev in d.evidence if ev.kind == "quote" and ev.quote}
        if len(quotes) < 2:
            out.append(f"{_name(e)}: paper: needs two quote evidences with different words")
    if d.cause == "noise" and not (d.seed_share is not None and 0 < d.seed_share < 1):
        out.append(
            f"{_name(e)}: noise: needs seed_share strictly between 0 and 1, got {d.seed_share}"
        )
    if d.cause == "noise" and e.mode == "both":
        out.append(f"{_name(e)}: noise: a seed share is one reproduction's: mode quick or full")
    for ev in d.evidence:
        if ev.kind == "quote" and not ev.quote:
            out.append(f"{_name(e)}: quote evidence {ev.ref!r}: give the words (quote = ...)")
        if _is_file(ev) and not ev.numbers and not ev.ref.endswith(".json"):
            out.append(f"{_name(e)}: evidence {ev.ref!r}: give its numbers ([[...number]])")
    cited = {n.mode for ev in d.evidence for n in ev.numbers}
    if any(_is_file(ev) for ev in d.evidence):
        for mode in _modes(e):
            if mode not in cited:
                out.append(f"{_name(e)}: applies in {mode} mode but cites no {mode}-mode number")
    return out


def _rows_per_mode(ev: Evidence) -> int:
    """The most rows one mode's numbers of ``ev`` name."""
    rows: dict[str, set[tuple[tuple[str, Any], ...]]] = {}
    for n in ev.numbers:
        rows.setdefault(n.mode, set()).add(n.row)
    return max((len(r) for r in rows.values()), default=0)


def csv_of(ref: str) -> str:
    """The CSV a file's numbers are read from: a plot's points are in the
    CSV of the same stem."""
    for suffix in (".png", ".svg"):
        if ref.endswith(suffix):
            return ref[: -len(suffix)] + ".csv"
    return ref


def written_tolerance(value: float) -> float:
    """Half a unit of the last digit of ``value`` as written: 0.46 ->
    0.005, 110 -> 0.5, 7.4e-06 -> 5e-08."""
    exponent = Decimal(repr(value)).as_tuple().exponent
    assert isinstance(exponent, int)
    return 0.5 * 10.0**exponent


def number_problems(e: Explanation, folder: Path, mode: str) -> list[str]:
    """Each number of ``e`` from the ``mode`` reproduction against its file
    under ``folder`` (a results folder: ``folder/<paper>/<file>``)."""
    out = []
    for ev in e.deviation.evidence:
        numbers = [n for n in ev.numbers if n.mode == mode]
        if not numbers:
            continue
        path = folder / e.paper / csv_of(ev.ref)
        if not path.is_file():
            how = f" (written by: {ev.command})" if ev.command else ""
            out.append(f"{_name(e)}: {path} is not there{how}")
            continue
        table = pd.read_csv(path)
        out += [f"{_name(e)}: {path.name}: {p}" for n in numbers for p in _number(table, n)]
    return out


def _matches(column: pd.Series, want: Any) -> pd.Series:
    """The rows of ``column`` equal to ``want`` (numbers compared as numbers,
    booleans as ``True``/``False``, anything else as text)."""
    if isinstance(want, bool):
        return column.astype(str) == str(want)
    if isinstance(want, int | float):
        values = pd.to_numeric(column, errors="coerce")
        return (values - float(want)).abs() <= 1e-9 * max(1.0, abs(float(want)))
    return column.astype(str) == str(want)


def _number(table: pd.DataFrame, n: Number) -> list[str]:
    for col in (*(k for k, _ in n.row), n.column):
        if col not in table.columns:
            return [f"no column {col!r} (columns: {', '.join(map(str, table.columns))})"]
    keep = pd.Series(True, index=table.index)
    for k, v in n.row:
        keep &= _matches(table[k], v)
    rows = table[keep]
    where = ", ".join(f"{k}={v!r}" for k, v in n.row)
    if len(rows) != 1:
        return [f"{len(rows)} rows with {where} (the selector must name one)"]
    got = rows[n.column].tolist()[0]  # a Python value, not a numpy one
    if isinstance(n.value, str):
        ok = str(got) == n.value
    else:
        tol = n.tol if n.tol is not None else written_tolerance(n.value)
        got_f = float(got)
        ok = not math.isnan(got_f) and abs(got_f - float(n.value)) <= tol * (1 + 1e-9)
    if ok:
        return []
    return [f"{where}: {n.column} is {got!r}, the deviation says {n.value!r}"]


def share_problems(e: Explanation, claims: Iterable[Mapping[str, Any]]) -> list[str]:
    """A ``noise`` deviation's seed share against its claim's in
    ``claims`` (the claims.json of a reproduction of a mode it applies to);
    any deviation's claim that shows no spread across seeds cannot be
    ``noise``."""
    if e.deviation.cause != "noise":
        return []
    for c in claims:
        if c["figure"] != e.figure or " ".join(str(c["claim"]).split()) != e.claim:
            continue
        share = c.get("seed_share")
        if share is None or not 0 < share < 1:
            return [f"{_name(e)}: noise, but the claim's seed share is {share}"]
        if e.deviation.seed_share is None or abs(share - e.deviation.seed_share) > 1e-9:
            return [f"{_name(e)}: seed_share {e.deviation.seed_share} != the claim's {share:.6g}"]
    return []
