"""Paper claims as data: (paper, figure, claim, expected, measured, holds).

Recipes return :class:`Claim` objects, each that does not hold with the
deviation recorded for it (:func:`explain`); the CLI prints them as a
table and writes them to ``results/<paper>/claims.json``, which
:func:`reorderlab.report.read_claims` reads back (its one reader).
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

__all__ = ["Claim", "claims_table", "explain", "print_claims", "write_claims"]


@dataclass
class Claim:
    """One checkable statement of a paper.

    ``expected`` says what would make it hold (e.g. ``"ratio in [0.7, 1.3]"``),
    ``measured`` what the runs gave (human-readable, with the numbers),
    ``values`` the raw numbers behind ``measured``, and ``deviation`` why it
    does not hold, when that was found (:mod:`reorderlab.deviations`).
    """

    paper: str
    figure: str
    claim: str
    expected: str
    measured: str
    holds: bool
    values: dict[str, Any] = field(default_factory=dict)
    deviation: Deviation | None = None

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
    table.add_column("figure")
    table.add_column("claim", overflow="fold")
    table.add_column("expected", overflow="fold")
    table.add_column("measured", overflow="fold")
    table.add_column("verdict")
    for c in claims:
        verdict = "[green]holds[/green]" if c.holds else f"[red]{c.verdict}[/red]"
        table.add_row(c.paper, c.figure, c.claim, c.expected, c.measured, verdict)
    return table


def print_claims(
    claims: Sequence[Claim], console: Console | None = None, title: str | None = None
) -> None:
    """Print the claims table (plain text when not on a terminal)."""
    con = console or Console()
    con.print(claims_table(claims, title))
    held = sum(1 for c in claims if c.holds)
    con.print(f"{held} of {len(claims)} claims hold")


def write_claims(claims: Iterable[Claim], path: str | Path) -> Path:
    """Write claims as a JSON list of objects."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps([c.to_dict() for c in claims], indent=2) + "\n", encoding="utf-8")
    return p
