"""Perturbed inputs of a seeded test (:mod:`reorderlab.checks.seeded`): the
self-test of every claim (``tests/test_claims_selftest.py``) shows that
its check fails on them.

Each perturbation moves a record's inputs so that the statement it tests
is no longer shown, keeping the seed spread:

``null``
    the effect removed: a difference or ratio whose mean sits exactly at
    its limit (the margin inside the noise), a trend flattened (each
    point at the mean of all), a band's quantity moved past the
    nearer edge by its interval's half width. Every test must fail on it,
    whatever its verdict on the real inputs.
``reversed``
    the effect reversed: the difference or ratio mirrored about its limit,
    each seed's curve with its y values in reverse x order. A test that
    held must fail on it.
``far edge``
    (two-sided bands) the quantity moved past the other edge.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reorderlab.checks.seeded import Record, rerun

__all__ = ["Perturbed", "perturbations"]


@dataclass(frozen=True)
class Perturbed:
    """A perturbation's name, whether every test must fail on it (``null``)
    or only one that held, and the record re-run on the perturbed inputs."""

    name: str
    null: bool
    record: Record


def _with(record: Mapping[str, Any], **inputs: Any) -> Record:
    return rerun({**record, "inputs": {**record["inputs"], **inputs}})


def _shift(rows: list[list[float]], by: float) -> list[list[float]]:
    return [[s, v + by] for s, v in rows]


def _scale(rows: list[list[float]], by: float) -> list[list[float]]:
    return [[s, v * by] for s, v in rows]


def _mean(rows: list[list[float]]) -> float:
    return sum(v for _, v in rows) / len(rows)


def _nudge(op: str, scale: float) -> float:
    """A step onto the wrong side of a limit (``op`` the side that holds),
    far above float rounding (ulps) and far below any spread that matters:
    a mean put exactly at its limit may land a few ulps on the holding
    side when the values have no spread."""
    step = 1e-9 * max(1.0, abs(scale))
    return -step if op == ">" else step


def _difference(record: Mapping[str, Any]) -> list[Perturbed]:
    a, b = record["inputs"]["a"], record["inputs"]["b"]
    op, limit = record["params"]["op"], float(record["params"]["limit"])
    scale = max([abs(limit)] + [abs(v) for _, v in a] + [abs(v) for _, v in b])
    est = _mean(a) - _mean(b)
    if record["params"]["paired"]:
        bs = dict((s, v) for s, v in b)
        mirrored = [[s, bs[s] + 2 * limit - (v - bs[s])] for s, v in a]
    else:
        mirrored = _shift(a, 2 * (limit - est))
    at_limit = _shift(a, limit - est + _nudge(op, scale))
    return [
        Perturbed("null", True, _with(record, a=at_limit)),
        Perturbed("reversed", False, _with(record, a=mirrored)),
    ]


def _ratio(record: Mapping[str, Any]) -> list[Perturbed]:
    a, b = record["inputs"]["a"], record["inputs"]["b"]
    limit, est = float(record["params"]["limit"]), float(record["estimate"])
    target = limit + _nudge(record["params"]["op"], limit)
    bs = dict((s, v) for s, v in b)
    if record["params"]["paired"]:
        at_limit = (
            [[s, v * target / est] for s, v in a] if est else [[s, bs[s] * target] for s, _ in a]
        )
        mirrored = [[s, bs[s] * (2 * limit - v / bs[s])] if bs[s] else [s, v] for s, v in a]
    else:
        at_limit = _scale(a, target / est) if est else _scale(a, 0.0)
        mirrored = _scale(a, (2 * limit - est) / est) if est else a
    return [
        Perturbed("null", True, _with(record, a=at_limit)),
        Perturbed("reversed", False, _with(record, a=mirrored)),
    ]


def _band(record: Mapping[str, Any]) -> list[Perturbed]:
    x = record["inputs"]["x"]
    lo, hi = record["params"]["lo"], record["params"]["hi"]
    mean = _mean(x)
    half = max(float(record["hi"]) - mean, mean - float(record["lo"]), 0.0)
    edges = [(e, +1.0 if e == hi else -1.0) for e in (lo, hi) if e is not None]
    # the nearer edge first
    edges.sort(key=lambda e: abs(mean - e[0]))
    out = []
    for i, (edge, outward) in enumerate(edges):
        step = half if math.isfinite(half) and half > 0 else 0.0
        step = max(step, 1e-9 * max(1.0, abs(edge)))
        name = "null" if i == 0 else "far edge"
        out.append(Perturbed(name, True, _with(record, x=_shift(x, edge + outward * step - mean))))
    return out


def _trend(record: Mapping[str, Any]) -> list[Perturbed]:
    by_seed: dict[int, list[tuple[float, float]]] = {}
    for s, x, y in record["inputs"]["points"]:
        by_seed.setdefault(int(s), []).append((float(x), float(y)))
    ys_all = [float(y) for _, _, y in record["inputs"]["points"]]
    mean = sum(ys_all) / len(ys_all)
    flat, mirrored = [], []
    for s, pts in sorted(by_seed.items()):
        pts.sort()
        ys = [y for _, y in pts][::-1]
        flat += [[s, x, mean] for x, _ in pts]
        mirrored += [[s, x, y] for (x, _), y in zip(pts, ys, strict=True)]
    return [
        Perturbed("null", True, _with(record, points=flat)),
        Perturbed("reversed", False, _with(record, points=mirrored)),
    ]


_PERTURB: dict[str, Callable[[Mapping[str, Any]], list[Perturbed]]] = {
    "difference": _difference,
    "ratio": _ratio,
    "band": _band,
    "trend": _trend,
}


def perturbations(record: Mapping[str, Any]) -> list[Perturbed]:
    """The perturbations of ``record`` (a seeded test's dict form), each
    re-run (module docstring)."""
    return _PERTURB[str(record["test"])](record)
