"""Helpers for a figure's claims step: a claim from a check, its numbers
made JSON-friendly, a series as text, a rank correlation, and how stable a
figure's claims are over its seeds.

A claim's expected text and verdict come from one check of
:mod:`reorderlab.checks`; :func:`make_claim` wraps it in a
:class:`~reorderlab.claims.Claim` with the paper's sentence and the
measured numbers. Claims stay code: slopes, ratios and correlations are
computed in each figure's module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from reorderlab.checks import Check
from reorderlab.claims import Claim

__all__ = ["claims_stability", "make_claim", "plain", "series_str", "spearman"]

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
    paper: str, figure: str, claim: str, check: Check, measured: str, /, **values: Any
) -> Claim:
    """A :class:`Claim` whose expected text and verdict are ``check``'s
    (:mod:`reorderlab.checks`), with its raw numbers made JSON-friendly."""
    return Claim(
        paper=paper,
        figure=figure,
        claim=claim,
        expected=check.expected,
        measured=measured,
        holds=check.holds,
        values={k: plain(v) for k, v in values.items()},
    )


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
