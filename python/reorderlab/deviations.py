"""Why a claim does not hold, recorded as data next to its verdict.

Each paper's explanations are in ``papers/deviations/<paper>.toml``: one
``[[deviation]]`` per claim that does not hold, found by experiment::

    [[deviation]]
    figure = "fig4"                 # the claim's figure key
    claim = "TLP and TLPR ..."      # the claim's text, exactly
    mode = "full"                   # full | quick | both (default): which
                                    # reproduction's verdict it explains
    cause = "setting"               # model | setting | paper | noise
    why = "One paragraph: what differs and why, with the numbers."

    [[deviation.evidence]]
    kind = "sweep"                  # sweep | trace | runs | figure | quote
    ref = "fig4_sensitivity.png"    # a file of the paper's results folder,
                                    # or where a quote stands ("tail-loss Sec. 4")
    note = "What it shows, with the numbers."

The causes:

``model``
    a bug or a modelling gap of reorderlab too large to fix with the claim
    (say what the fix is); smaller ones are fixed instead of recorded;
``setting``
    the paper does not give a parameter the claim depends on, and the
    value assumed here (documented in the recipe) decides it;
``paper``
    the paper is vague, inconsistent, or its numbers cannot follow from
    the setting it describes;
``noise``
    too few samples for a stable verdict at this fidelity.

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
    "explanations",
    "from_dict",
    "lookup",
]

#: Why a claim may not hold (see the module docstring).
CAUSES = ("model", "setting", "paper", "noise")
#: What a piece of evidence is.
EVIDENCE_KINDS = ("sweep", "trace", "runs", "figure", "quote")
MODES = ("both", "full", "quick")

#: Where the per-paper files are.
DEVIATIONS_DIR = Path(__file__).parent / "papers" / "deviations"


class DeviationError(ValueError):
    """A deviations file or claims.json entry that cannot be read."""


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence: a sweep, trace, figure or set of runs in the
    paper's results folder (``ref`` its file name), or a quote (``ref``
    where it stands)."""

    kind: str
    ref: str
    note: str


@dataclass(frozen=True)
class Deviation:
    """Why a claim does not hold: its cause, a paragraph, the evidence."""

    cause: str
    why: str
    evidence: tuple[Evidence, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "cause": self.cause,
            "why": self.why,
            "evidence": [vars(e).copy() for e in self.evidence],
        }


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


@cache
def explanations(paper: str) -> tuple[Explanation, ...]:
    """The deviations recorded for ``paper`` (none without a file)."""
    path = DEVIATIONS_DIR / f"{paper.replace('-', '_')}.toml"
    if not path.exists():
        return ()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DeviationError(f"{path}: not valid TOML: {exc}") from None
    unknown = set(data) - {"deviation"}
    if unknown:
        raise DeviationError(f"{path}: unknown table(s) {sorted(unknown)} (only [[deviation]])")
    entries = data.get("deviation", [])
    found = [
        _explanation(paper, item, f"{path.name}: deviation {i}") for i, item in enumerate(entries)
    ]
    _no_duplicates(found, path)
    return tuple(found)


def _explanation(paper: str, item: Mapping[str, Any], where: str) -> Explanation:
    known = {"figure", "claim", "mode", "cause", "why", "evidence"}
    _no_unknown_keys(item, known, where)
    mode = item.get("mode", "both")
    _one_of(mode, MODES, f"{where}: mode")
    return Explanation(
        paper=paper,
        figure=_text(item, "figure", where),
        claim=_text(item, "claim", where),
        mode=mode,
        deviation=from_dict(item, where, extra=known - {"cause", "why", "evidence"}),
    )


def from_dict(item: Any, where: str, extra: Iterable[str] = ()) -> Deviation:
    """A :class:`Deviation` from its dict form (claims.json, a TOML entry),
    checked field by field: errors name ``where``, the field and the value."""
    if not isinstance(item, Mapping):
        raise DeviationError(f"{where}: expected a table, got {type(item).__name__}")
    _no_unknown_keys(item, {"cause", "why", "evidence", *extra}, where)
    cause = _text(item, "cause", where)
    _one_of(cause, CAUSES, f"{where}: cause")
    evidence = item.get("evidence")
    if not isinstance(evidence, list) or not evidence:
        raise DeviationError(
            f"{where}: evidence: at least one piece is needed, got {evidence!r:.60}"
        )
    return Deviation(
        cause=cause,
        why=_text(item, "why", where),
        evidence=tuple(_evidence(e, f"{where}: evidence {i}") for i, e in enumerate(evidence)),
    )


def _evidence(item: Any, where: str) -> Evidence:
    if not isinstance(item, Mapping):
        raise DeviationError(f"{where}: expected a table, got {type(item).__name__}")
    _no_unknown_keys(item, {"kind", "ref", "note"}, where)
    kind = _text(item, "kind", where)
    _one_of(kind, EVIDENCE_KINDS, f"{where}: kind")
    return Evidence(kind=kind, ref=_text(item, "ref", where), note=_text(item, "note", where))


def _text(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise DeviationError(f"{where}: {key}: expected a non-empty string, got {value!r:.60}")
    return " ".join(value.split())


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
