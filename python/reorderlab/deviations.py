"""Why a claim does not hold, recorded as data next to its verdict.

Each paper's explanations are in ``papers/deviations/<paper>.toml``: one
``[[deviation]]`` per claim that does not hold, found by experiment::

    format = 2                      # the file follows the rules below (a
                                    # file without it: format 1, not checked)

    [[deviation]]
    figure = "fig4"                 # the claim's figure key
    claim = "TLP and TLPR ..."      # the claim's text, exactly
    mode = "full"                   # full | quick | both (default): which
                                    # reproduction's verdict it explains
    cause = "setting"               # model | setting | paper | noise
    seed_share = 0.25               # noise: the share of seeds on which the
                                    # claim holds (strictly between 0 and 1)
    why = "One paragraph: what differs and why, with the numbers."

    [[deviation.evidence]]
    kind = "sweep"                  # sweep | trace | runs | figure | quote
    ref = "fig4-sensitivity.png"    # a file of the paper's results folder,
                                    # or where a quote stands ("tail-loss Sec. 4")
    note = "What it shows, with the numbers."
    parameter = "loss model"        # sweep: the setting it sweeps
    command = "reorderlab ..."      # a file reproduce does not write: the
                                    # command that writes it (in its --out)
    quote = "..."                   # quote: the paper's words, exactly

    [[deviation.evidence.number]]   # a number of the file, checked by a test
    mode = "full"                   # the reproduction it is from: quick | full
    row = { variant = "TLP", loss = 0.015 }   # the one row with these values
    column = "completion_s"         # (a .png's numbers: its .csv)
    value = 0.4617                  # as written: it must match to its last digit
    tol = 0.01                      # optional: an absolute tolerance instead

The causes:

``model``
    the simulator lacks or differs in a mechanism the claim depends on, or
    a choice of the project decides the outcome (a +/-1 threshold, a
    generator's anchor); say what the fix is;
``setting``
    the paper leaves a parameter open and a documented sweep over its
    plausible values (a ``sweep`` evidence naming the ``parameter``) shows
    that the verdict depends on it;
``paper``
    the paper contradicts itself or its own figure: both quotes (two
    ``quote`` evidences with the words);
``noise``
    the verdict flips across seeds: the share of seeds on which the claim
    holds (``seed_share``) is strictly between 0 and 1.

A file with ``format = 2`` is held to these rules by
:mod:`reorderlab.evidence` (``tests/test_deviations.py`` and
``tests/test_claims_explained.py``): the labels, and the numbers of the
evidence against the files a reproduction wrote.

:func:`lookup` finds the deviation recorded for a claim;
:func:`reorderlab.claims.explain` attaches it to each claim that does not
hold (claims that hold carry none). A deviation is kept only for
the reproduction mode it names, so a claim that fails only in quick mode
needs an explanation of its own.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "CAUSES",
    "Deviation",
    "DeviationError",
    "Evidence",
    "Explanation",
    "Number",
    "clear_cache",
    "explanations",
    "file_format",
    "from_dict",
    "lookup",
]

#: Why a claim may not hold (see the module docstring).
CAUSES = ("model", "setting", "paper", "noise")
#: What a piece of evidence is.
EVIDENCE_KINDS = ("sweep", "trace", "runs", "figure", "quote")
MODES = ("both", "full", "quick")
#: The reproductions a number can come from.
NUMBER_MODES = ("quick", "full")
#: The file formats: 1 (no rules checked), 2 (:mod:`reorderlab.evidence`).
FORMATS = (1, 2)

#: Where the per-paper files are.
DEVIATIONS_DIR = Path(__file__).parent / "papers" / "deviations"


class DeviationError(ValueError):
    """A deviations file or claims.json entry that cannot be read."""


@dataclass(frozen=True)
class Number:
    """A number of an evidence file: in the reproduction ``mode``, the one
    row whose columns equal ``row`` has ``value`` in ``column`` (to the
    last digit written, or within ``tol``)."""

    mode: str
    row: tuple[tuple[str, Any], ...]
    column: str
    value: float | str
    tol: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "mode": self.mode,
            "row": dict(self.row),
            "column": self.column,
            "value": self.value,
        }
        if self.tol is not None:
            d["tol"] = self.tol
        return d


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence: a sweep, trace, figure or set of runs in the
    paper's results folder (``ref`` its file name), or a quote (``ref``
    where it stands, ``quote`` the words). ``parameter``: what a sweep
    varies; ``command``: the command that writes a file ``reproduce`` does
    not; ``numbers``: numbers of the file, checked against it."""

    kind: str
    ref: str
    note: str
    quote: str | None = None
    parameter: str | None = None
    command: str | None = None
    numbers: tuple[Number, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "ref": self.ref, "note": self.note}
        for key in ("quote", "parameter", "command"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.numbers:
            d["number"] = [n.to_dict() for n in self.numbers]
        return d


@dataclass(frozen=True)
class Deviation:
    """Why a claim does not hold: its cause, a paragraph, the evidence;
    for ``noise``, the share of seeds on which the claim holds."""

    cause: str
    why: str
    evidence: tuple[Evidence, ...]
    seed_share: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "cause": self.cause,
            "why": self.why,
            "evidence": [e.to_dict() for e in self.evidence],
        }
        if self.seed_share is not None:
            d["seed_share"] = self.seed_share
        return d


@dataclass(frozen=True)
class Explanation:
    """A deviation as recorded: which claim, in which mode."""

    paper: str
    figure: str
    claim: str
    mode: str
    deviation: Deviation

    def applies(self, quick: bool) -> bool:
        return self.mode == "both" or self.mode == ("quick" if quick else "full")


def lookup(paper: str, figure: str, claim: str, quick: bool) -> Deviation | None:
    """The deviation recorded for ``claim`` of ``paper`` / ``figure`` in
    this reproduction mode (``quick``), if any."""
    text = " ".join(claim.split())
    for e in explanations(paper):
        if e.figure == figure and e.claim == text and e.applies(quick):
            return e.deviation
    return None


def explanations(paper: str) -> tuple[Explanation, ...]:
    """The deviations recorded for ``paper`` (none without a file)."""
    return _read(paper)[1]


def file_format(paper: str) -> int:
    """The format of ``paper``'s deviations file (1 without a ``format``
    key or without a file; 2: held to the rules of :mod:`reorderlab.evidence`)."""
    return _read(paper)[0]


@cache
def _read(paper: str) -> tuple[int, tuple[Explanation, ...]]:
    path = DEVIATIONS_DIR / f"{paper.replace('-', '_')}.toml"
    if not path.exists():
        return 1, ()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DeviationError(f"{path}: not valid TOML: {exc}") from None
    unknown = set(data) - {"deviation", "format"}
    if unknown:
        raise DeviationError(
            f"{path}: unknown table(s) {sorted(unknown)} (only format and [[deviation]])"
        )
    fmt = data.get("format", 1)
    if fmt not in FORMATS:
        raise DeviationError(f"{path}: format: {fmt!r} is not one of 1, 2")
    entries = data.get("deviation", [])
    found = [
        _explanation(paper, item, f"{path.name}: deviation {i}") for i, item in enumerate(entries)
    ]
    _no_duplicates(found, path)
    return fmt, tuple(found)


def clear_cache() -> None:
    """Forget the files read (for tests that write their own)."""
    _read.cache_clear()


def _explanation(paper: str, item: Mapping[str, Any], where: str) -> Explanation:
    known = {"figure", "claim", "mode", "cause", "why", "evidence", "seed_share"}
    _no_unknown_keys(item, known, where)
    mode = item.get("mode", "both")
    _one_of(mode, MODES, f"{where}: mode")
    return Explanation(
        paper=paper,
        figure=_text(item, "figure", where),
        claim=_text(item, "claim", where),
        mode=mode,
        deviation=from_dict(item, where, extra=known - {"cause", "why", "evidence", "seed_share"}),
    )


def from_dict(item: Any, where: str, extra: Iterable[str] = ()) -> Deviation:
    """A :class:`Deviation` from its dict form (claims.json, a TOML entry),
    checked field by field: errors name ``where``, the field and the value."""
    if not isinstance(item, Mapping):
        raise DeviationError(f"{where}: expected a table, got {type(item).__name__}")
    _no_unknown_keys(item, {"cause", "why", "evidence", "seed_share", *extra}, where)
    cause = _text(item, "cause", where)
    _one_of(cause, CAUSES, f"{where}: cause")
    evidence = item.get("evidence")
    if not isinstance(evidence, list) or not evidence:
        raise DeviationError(
            f"{where}: evidence: at least one piece is needed, got {evidence!r:.60}"
        )
    share = item.get("seed_share")
    if share is not None and (
        isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1
    ):
        raise DeviationError(f"{where}: seed_share: expected a number in [0, 1], got {share!r:.60}")
    return Deviation(
        cause=cause,
        why=_text(item, "why", where),
        evidence=tuple(_evidence(e, f"{where}: evidence {i}") for i, e in enumerate(evidence)),
        seed_share=None if share is None else float(share),
    )


def _evidence(item: Any, where: str) -> Evidence:
    if not isinstance(item, Mapping):
        raise DeviationError(f"{where}: expected a table, got {type(item).__name__}")
    _no_unknown_keys(
        item, {"kind", "ref", "note", "quote", "parameter", "command", "number"}, where
    )
    kind = _text(item, "kind", where)
    _one_of(kind, EVIDENCE_KINDS, f"{where}: kind")
    numbers = item.get("number", [])
    if not isinstance(numbers, list):
        raise DeviationError(f"{where}: number: expected a list of tables, got {numbers!r:.60}")
    return Evidence(
        kind=kind,
        ref=_text(item, "ref", where),
        note=_text(item, "note", where),
        quote=_optional_text(item, "quote", where),
        parameter=_optional_text(item, "parameter", where),
        command=_optional_text(item, "command", where),
        numbers=tuple(_number(n, f"{where}: number {i}") for i, n in enumerate(numbers)),
    )


def _number(item: Any, where: str) -> Number:
    if not isinstance(item, Mapping):
        raise DeviationError(f"{where}: expected a table, got {type(item).__name__}")
    _no_unknown_keys(item, {"mode", "row", "column", "value", "tol"}, where)
    mode = _text(item, "mode", where)
    _one_of(mode, NUMBER_MODES, f"{where}: mode")
    row = item.get("row")
    if not isinstance(row, Mapping) or not row:
        raise DeviationError(f"{where}: row: expected a table of column = value, got {row!r:.60}")
    value = item.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise DeviationError(f"{where}: value: expected a number or a string, got {value!r:.60}")
    tol = item.get("tol")
    if tol is not None and (isinstance(tol, bool) or not isinstance(tol, int | float) or tol < 0):
        raise DeviationError(f"{where}: tol: expected a number >= 0, got {tol!r:.60}")
    return Number(
        mode=mode,
        row=tuple((str(k), v) for k, v in row.items()),
        column=_text(item, "column", where),
        value=value,
        tol=None if tol is None else float(tol),
    )


def _text(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise DeviationError(f"{where}: {key}: expected a non-empty string, got {value!r:.60}")
    return " ".join(value.split())


def _optional_text(item: Mapping[str, Any], key: str, where: str) -> str | None:
    return None if item.get(key) is None else _text(item, key, where)


def _one_of(value: str, allowed: Sequence[str], where: str) -> None:
    if value not in allowed:
        raise DeviationError(f"{where}: {value!r} is not one of {', '.join(allowed)}")


def _no_unknown_keys(item: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(item) - known)
    if unknown:
        raise DeviationError(f"{where}: unknown field(s) {', '.join(unknown)}")


def _no_duplicates(found: Sequence[Explanation], path: Path) -> None:
    seen: set[tuple[str, str, str]] = set()
    for e in found:
        for mode in ("full", "quick") if e.mode == "both" else (e.mode,):
            key = (e.figure, e.claim, mode)
            if key in seen:
                raise DeviationError(
                    f"{path}: two deviations for {e.figure} {e.claim!r} in {mode} mode"
                )
            seen.add(key)
