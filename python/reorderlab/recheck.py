"""``reorderlab report --recheck``: the tables and claims of a results
folder re-derived from the runs in a store, simulating nothing.

Every registered figure (:mod:`reorderlab.papers`) with claims in
``out/<paper>/claims.json`` (read by :func:`reorderlab.report.read_claims`)
is re-checked: its table step reads its runs from the store, its CSV
tables and claims are written again. Plots are left as they are.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from reorderlab.claims import Claim, write_claims
from reorderlab.errors import MissingRunsError
from reorderlab.papers import papers
from reorderlab.papers.kit.recipe import FigureRecipe
from reorderlab.papers.kit.runs import Runs, describe
from reorderlab.report import read_claims
from reorderlab.store import Store

__all__ = ["Rechecked", "recheck"]


@dataclass(frozen=True)
class Rechecked:
    """One paper's claims before and after :func:`recheck`."""

    paper: str
    previous: list[Claim]
    claims: list[Claim]
    figures: list[str]  # the figures re-checked (others' claims are kept as they were)

    def changed(self) -> list[tuple[Claim | None, Claim | None]]:
        """(previous, re-checked) pairs that differ, in file order."""
        old = [c for c in self.previous if c.figure in self.figures]
        new = [c for c in self.claims if c.figure in self.figures]
        pairs = itertools.zip_longest(old, new)
        return [(a, b) for a, b in pairs if a is None or b is None or a.to_dict() != b.to_dict()]

    def summary(self) -> str:
        """One line: what was re-checked, what holds, what changed."""
        checked = sum(1 for c in self.claims if c.figure in self.figures)
        held = sum(1 for c in self.claims if c.holds)
        text = f"{checked} of {len(self.claims)} claims re-checked, {held} hold"
        changed = self.changed()
        if not changed:
            return text + "; the same as in the previous claims.json"
        first = next(c for pair in changed for c in pair if c is not None)
        return (
            f"{text}; {len(changed)} differ from the previous claims.json "
            f"(first: {first.figure} {first.claim!r})"
        )


def recheck(out: str | Path, store: Store, *, quick: bool) -> list[Rechecked]:
    """Re-derive the tables and claims of ``out`` from the runs in ``store``,
    simulating nothing.

    Every registered figure with claims in ``out/<paper>/claims.json`` is
    re-checked: its table step reads its runs (``quick``: those of
    ``--quick``) from the store, its CSV tables and claims are written again
    (claims in the file's order; claims of figures no longer registered are
    kept). Plots are left as they are. If any run is missing, nothing is
    written: :class:`~reorderlab.errors.MissingRunsError` says how many, of
    which figures, and names the first.
    """
    out_dir = Path(out)
    registry = papers()
    work: list[tuple[str, list[Claim], list[tuple[FigureRecipe, Runs]]]] = []
    for path in sorted(out_dir.glob("*/claims.json")):
        figs = registry.get(path.parent.name)
        if figs is None:
            continue  # a paper no longer registered
        previous = read_claims(path)
        order = [f for f in dict.fromkeys(c.figure for c in previous) if f in figs]
        runs = [(figs[f], Runs(figs[f].points(quick), store, simulate=False)) for f in order]
        work.append((path.parent.name, previous, runs))
    _check_stored([pair for _, _, runs in work for pair in runs], store, quick)
    done: list[Rechecked] = []
    for paper, previous, runs in work:
        fresh: dict[str, list[Claim]] = {}
        for rec, source in runs:
            data = rec.derive(source, quick, out_dir / paper).data
            fresh[rec.figure] = rec.check(data, quick)
        claims = _in_file_order(previous, fresh)
        write_claims(claims, out_dir / paper / "claims.json")
        done.append(Rechecked(paper, previous, claims, list(fresh)))
    return done


def _check_stored(recipes: Sequence[tuple[FigureRecipe, Runs]], store: Store, quick: bool) -> None:
    """Every run of every recipe is in the store, or a
    :class:`~reorderlab.errors.MissingRunsError` naming what is missing."""
    missing = [(rec, runs.missing(), runs) for rec, runs in recipes]
    short = [(rec, jobs, runs) for rec, jobs, runs in missing if jobs]
    if not short:
        return
    n_missing = sum(len(jobs) for _, jobs, _ in short)
    total = sum(len(s.jobs()) for _, _, runs in short for s in runs.plan.values())
    names = ", ".join(f"{rec.paper} {rec.figure}" for rec, _, _ in short[:3])
    if len(short) > 3:
        names += f" and {len(short) - 3} more figures"
    rec, jobs, _ = short[0]
    mode = " --quick" if quick else ""
    raise MissingRunsError(
        f"{n_missing} of {total} runs of {names} are not in the store {store.path} "
        f"(first: {rec.paper} {rec.figure}: {describe(jobs[0])}); "
        f"'reorderlab reproduce{mode}' with this store runs them"
    )


def _in_file_order(previous: Sequence[Claim], fresh: Mapping[str, list[Claim]]) -> list[Claim]:
    """The re-checked claims in place of the previous ones of their figure,
    figures in the order they first appear in the file."""
    out: list[Claim] = []
    for figure in dict.fromkeys(c.figure for c in previous):
        out += fresh[figure] if figure in fresh else [c for c in previous if c.figure == figure]
    return out
