"""Helpers for a figure's claims step: a claim from a check, the per-seed
values its seeded tests take, its numbers made JSON-friendly, a series as
text, and how stable a figure's claims are over its seeds.

A claim's expected text and verdict come from one check of
:mod:`reorderlab.checks`; :func:`paper_claim` wraps it in a
:class:`~reorderlab.claims.Claim` with the paper's sentence (``quote``,
``where``), its kind, the records of its seeded tests and the share of
seeds on which it holds (:func:`make_claim`: the same without the
sentence, for papers not re-encoded yet). :func:`per_seed` and :func:`per_seed_curves` read
a sweep's table (one row per point and seed) into the shapes the seeded
tests take.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from reorderlab.checks import Check, seed_share
from reorderlab.checks import measured as describe
from reorderlab.claims import Claim

__all__ = [
    "claims_stability",
    "make_claim",
    "paper_claim",
    "per_seed",
    "per_seed_curves",
    "plain",
    "series_str",
    "spearman",
]

D = TypeVar("D")


def plain(v: Any) -> Any:
    """JSON-friendly values (numpy scalars to Python numbers)."""
    if isinstance(v, Mapping):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating | float):
        return float(v)
    return v


def make_claim(
    paper: str, figure: str, claim: str, check: Check, measured_text: str, /, **values: Any
) -> Claim:
    """A :class:`Claim` whose expected text and verdict are ``check``'s
    (:mod:`reorderlab.checks`), with its raw numbers made JSON-friendly
    (the records of its seeded tests, if any, with their seed share).
    A paper's re-encoded claims use :func:`paper_claim`, which adds the
    sentence."""
    return paper_claim(
        paper, figure, claim, check, quote="", where="", measured=measured_text, values=values
    )


def paper_claim(
    paper: str,
    figure: str,
    claim: str,
    check: Check,
    *,
    quote: str,
    where: str,
    kind: str = "claim",
    measured: str = "",
    values: Mapping[str, Any] | None = None,
) -> Claim:
    """A claim of ``paper``'s ``figure`` (``claim``: its short name, which
    a deviation and the coverage table name) from ``check``: its expected
    text and verdict, the records of its seeded tests
    (:mod:`reorderlab.checks.seeded`) and the share of seeds on which it
    holds.

    ``quote``: the paper's sentence it encodes, exactly (for a ``sanity``
    check, the statement of the model it tests); ``where``: where that
    stands ("Sec. IV-B", "Fig. 4(c)"); ``kind``: ``claim``, ``condition``
    or ``sanity`` (:data:`reorderlab.claims.KINDS`). ``measured`` left
    empty, the measured text is the records' estimates and intervals;
    ``values``: more raw numbers for claims.json."""
    return Claim(
        paper=paper,
        figure=figure,
        claim=claim,
        expected=check.expected,
        measured=measured or describe(check.tests),
        holds=check.holds,
        values={k: plain(v) for k, v in (values or {}).items()},
        kind=kind,
        quote=" ".join(quote.split()),
        where=where,
        seed_share=seed_share(check.tests),
        tests=[plain(t) for t in check.tests],
    )


def per_seed(df: pd.DataFrame, column: str, agg: str = "mean", **match: Any) -> dict[int, float]:
    """``column`` per seed over the rows of ``df`` whose columns equal
    ``match`` (e.g. ``variant="SACK", buffer=100``), aggregated by ``agg``
    (``"mean"``, ``"sum"``, ...) when a seed has several rows. Raises
    ``KeyError`` naming the selection when no row matches."""
    rows = _select(df, match)
    series = rows.groupby("seed")[column].agg(agg)
    return {int(str(s)): float(v) for s, v in series.items()}


def per_seed_curves(
    df: pd.DataFrame, x: str, y: str, agg: str = "mean", **match: Any
) -> dict[int, dict[float, float]]:
    """``y`` against ``x`` per seed (seed -> x -> y) over the rows of
    ``df`` matching ``match``, aggregated by ``agg`` per (seed, x)."""
    rows = _select(df, match)
    out: dict[int, dict[float, float]] = {}
    for seed, g in rows.groupby("seed"):
        by_x = g.groupby(x)[y].agg(agg)
        out[int(str(seed))] = {float(str(xv)): float(v) for xv, v in by_x.items()}
    return out


def _select(df: pd.DataFrame, match: Mapping[str, Any]) -> pd.DataFrame:
    rows = df
    for k, v in match.items():
        if k not in rows.columns:
            raise KeyError(f"no column {k!r} (columns: {', '.join(map(str, df.columns))})")
        rows = rows[rows[k] == v]
    if rows.empty:
        raise KeyError(f"no row with {', '.join(f'{k}={v!r}' for k, v in match.items())}")
    return rows


def series_str(values: Mapping[Any, float], fmt: str = "{:.3f}", xfmt: str = "{:g}") -> str:
    """``"x1: y1, x2: y2"`` for a claim's measured text."""
    return ", ".join(f"{xfmt.format(x)}: {fmt.format(v)}" for x, v in values.items())


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman rank correlation (ties averaged); 0 when either is constant."""
    ra = pd.Series(list(a)).rank().to_numpy(dtype=float)
    rb = pd.Series(list(b)).rank().to_numpy(dtype=float)
    if np.std(ra) == 0 or np.std(rb) == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def claims_stability(
    claims: Callable[[D], list[Claim]], pooled: D, singles: Sequence[D]
) -> pd.DataFrame:
    """Per claim: its verdict on the pooled sample and on how many single
    seeds' samples it holds (``singles``: one figure data per seed). A claim
    that holds on about half of them is decided by sampling noise."""
    single = [claims(d) for d in singles]
    rows = []
    for i, claim in enumerate(claims(pooled)):
        held = sum(cl[i].holds for cl in single)
        rows.append(
            {
                "claim": claim.claim,
                "pooled": "holds" if claim.holds else "does not hold",
                "seeds": len(single),
                "seeds_holding": held,
                "share_holding": held / max(1, len(single)),
            }
        )
    return pd.DataFrame(rows)
