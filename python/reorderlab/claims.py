"""Paper claims as data: (paper, figure, claim, expected, measured, holds),
with the sentence they encode, their kind and the tests behind the verdict.

Recipes return :class:`Claim` objects, each that does not hold with the
deviation recorded for it (:func:`explain`); the CLI prints them as a
table and writes them to ``results/<paper>/claims.json``, which
:func:`reorderlab.report.read_claims` reads back (its one reader).

Three kinds of statement, counted apart (:func:`tally`):

``claim``
    an outcome the paper states (its sentence quoted in ``quote``);
``condition``
    a condition of the setting the runs must meet for the claims to be
    tested at all (a calibration: "about 1.5 % loss"), counted as
    "conditions met";
``sanity``
    a sanity check of the engine (the ``baseline`` recipes), not a paper's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from reorderlab.deviations import Deviation, lookup

__all__ = [
    "KINDS",
    "Claim",
    "Tally",
    "claims_table",
    "explain",
    "print_claims",
    "tally",
    "tally_text",
    "write_claims",
]

#: The kinds of statement (module docstring), in the order they are counted.
KINDS = ("claim", "condition", "sanity")


@dataclass
class Claim:
    """One checkable statement of a paper.

    ``claim`` is its short name (with ``figure``, its key: a deviation
    names it), ``expected`` says what would make it hold (e.g. ``"ratio in
    [0.7, 1.3]"``), ``measured`` what the runs gave (human-readable, with
    the numbers), ``values`` the raw numbers behind ``measured``, and
    ``deviation`` why it does not hold, when that was found
    (:mod:`reorderlab.deviations`).

    ``kind`` is one of :data:`KINDS`; ``quote`` the paper's sentence it
    encodes and ``where`` where that stands ("Sec. IV-B", "Fig. 4(c)");
    ``tests`` the records of the seeded tests the verdict comes from
    (:mod:`reorderlab.checks.seeded`, each with its inputs) and
    ``seed_share`` the share of seeds on which it holds on that seed alone
    (None without per-seed verdicts).
    """

    paper: str
    figure: str
    claim: str
    expected: str
    measured: str
    holds: bool
    values: dict[str, Any] = field(default_factory=dict)
    deviation: Deviation | None = None
    kind: str = "claim"
    quote: str = ""
    where: str = ""
    seed_share: float | None = None
    tests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.claim!r}: kind: {self.kind!r} is not one of {KINDS}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["deviation"] = self.deviation.to_dict() if self.deviation else None
        return d

    @property
    def verdict(self) -> str:
        if self.holds:
            return "holds"
        return f"does not hold ({self.deviation.cause})" if self.deviation else "does not hold"


def explain(claims: Sequence[Claim], quick: bool) -> list[Claim]:
    """``claims`` with the recorded deviation (:mod:`reorderlab.deviations`)
    attached to each that does not hold, and none on those that do."""
    out = []
    for c in claims:
        found = None if c.holds else lookup(c.paper, c.figure, c.claim, quick)
        out.append(replace(c, deviation=found))
    return out


def claims_table(claims: Sequence[Claim], title: str | None = None) -> Table:
    """A rich table of claims."""
    table = Table(title=title, show_lines=True)
    table.add_column("paper")
    table.add_column("kind")
    table.add_column("figure")
    table.add_column("claim", overflow="fold")
    table.add_column("expected", overflow="fold")
    table.add_column("measured", overflow="fold")
    table.add_column("verdict")
    for c in claims:
        verdict = "[green]holds[/green]" if c.holds else f"[red]{c.verdict}[/red]"
        table.add_row(c.paper, c.kind, c.figure, c.claim, c.expected, c.measured, verdict)
    return table


def print_claims(
    claims: Sequence[Claim], console: Console | None = None, title: str | None = None
) -> None:
    """Print the claims table (plain text when not on a terminal)."""
    con = console or Console()
    con.print(claims_table(claims, title))
    con.print(tally_text(tally(claims)))


#: Per kind: (statements holding, statements).
Tally = dict[str, tuple[int, int]]


def tally(claims: Iterable[Claim]) -> Tally:
    """Per kind (every one of :data:`KINDS`): how many hold, of how many."""
    out = dict.fromkeys(KINDS, (0, 0))
    for c in claims:
        held, total = out[c.kind]
        out[c.kind] = (held + c.holds, total + 1)
    return out


def tally_text(counts: Tally) -> str:
    """``"5 of 7 claims hold; conditions met: 2 of 2; sanity checks: 0 of 0"``."""
    (h, n), (ch, cn), (sh, sn) = (counts[k] for k in KINDS)
    return f"{h} of {n} claims hold; conditions met: {ch} of {cn}; sanity checks: {sh} of {sn}"


def write_claims(claims: Iterable[Claim], path: str | Path) -> Path:
    """Write claims as a JSON list of objects."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    # whole or not at all: a reproduction stopped while writing leaves the
    # old file (or none), never half of one
    part = p.with_name(p.name + ".part")
    part.write_text(json.dumps([c.to_dict() for c in claims], indent=2) + "\n", encoding="utf-8")
    part.replace(p)
    return p
