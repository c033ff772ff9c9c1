"""Seeded checks: a paper's statement tested on per-seed values, with a 95 %
confidence interval from the seed spread (:mod:`reorderlab.checks.stats`).

Four tests, one per shape of sentence:

:func:`difference`
    "A is higher than B": the mean of ``a - b`` over the seeds (paired by
    seed when both have the same seeds, else Welch's two-sample interval);
    holds when the interval excludes ``limit`` on the stated side
    (``op=">"``: its low end above ``limit``).
:func:`ratio`
    "A is twice B", "A is above B": the mean of the per-seed ratios
    ``a / b`` (paired; unpaired, the ratio of the means with the delta
    method); holds when the interval excludes ``limit`` (default 1).
:func:`band`
    "about X", "below X", "within": the interval of the mean inside
    ``[lo, hi]`` (one end may be None); ``source`` says where the band comes
    from (the paper's words).
:func:`trend`
    "rises with", "falls as": per seed, the least-squares slope of y on x
    (mean and interval over the seeds; one seed: the regression's own
    interval), or Spearman's rho over every (x, seed) point; holds when
    the interval excludes 0 in the stated direction. Never the endpoints
    only.

Each returns a :class:`~reorderlab.checks.threshold.Check` carrying one
:class:`Record` (as a dict): the inputs, the parameters, the estimate and
its interval, the verdict on each seed alone. :func:`rerun` computes a
record again from its inputs, which is how ``tests/test_claims_selftest.py``
re-runs every claim of a reproduction on perturbed inputs
(:mod:`reorderlab.checks.perturb`). :func:`every` and
:func:`~reorderlab.checks.threshold.all_of` join checks: the verdict holds
when every part holds; :func:`seed_share` is the share of seeds on which
every part holds on that seed alone.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from reorderlab.checks.stats import (
    LEVEL,
    Interval,
    mean_interval,
    ols_slope,
    slope_interval,
    spearman,
    spearman_interval,
    t975,
    welch_interval,
)
from reorderlab.checks.threshold import Check, Fmt, num

__all__ = [
    "TESTS",
    "Curves",
    "PerSeed",
    "Record",
    "band",
    "difference",
    "every",
    "measured",
    "ratio",
    "rerun",
    "seed_share",
    "trend",
]

#: A quantity per seed.
PerSeed = Mapping[int, float]
#: A curve per seed: seed -> x -> y.
Curves = Mapping[int, Mapping[float, float]]

_SIDES: dict[str, Callable[[float, float], bool]] = {">": operator.gt, "<": operator.lt}


@dataclass(frozen=True)
class Record:
    """One seeded test as run: what it tested, on which inputs, with what
    result. ``per_seed``: (seed, the verdict on that seed alone); empty when
    the test has no per-seed verdict (an unpaired comparison)."""

    test: str
    what: str
    params: dict[str, Any]
    inputs: dict[str, Any]
    estimate: float
    lo: float
    hi: float
    holds: bool
    per_seed: list[tuple[int, bool]]
    level: float = LEVEL

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["per_seed"] = [[s, ok] for s, ok in self.per_seed]
        return d


# --- the inputs as JSON-friendly lists -------------------------------------------


def _pairs(values: PerSeed) -> list[list[float]]:
    return [[int(s), float(v)] for s, v in sorted(values.items())]


def _unpairs(rows: Sequence[Sequence[float]]) -> dict[int, float]:
    return {int(s): float(v) for s, v in rows}


def _triples(curves: Curves) -> list[list[float]]:
    return [
        [int(s), float(x), float(y)]
        for s, curve in sorted(curves.items())
        for x, y in sorted(curve.items())
    ]


def _untriples(rows: Sequence[Sequence[float]]) -> dict[int, dict[float, float]]:
    out: dict[int, dict[float, float]] = {}
    for s, x, y in rows:
        out.setdefault(int(s), {})[float(x)] = float(y)
    return out


def _side(op: str) -> Callable[[float, float], bool]:
    if op not in _SIDES:
        raise ValueError(f"op: {op!r} is not one of {', '.join(_SIDES)}")
    return _SIDES[op]


def _excludes(ci: Interval, op: str, limit: float) -> bool:
    """The interval lies strictly on the ``op`` side of ``limit``."""
    return bool(ci.lo > limit) if op == ">" else bool(ci.hi < limit)


# --- the four tests: a record from inputs and parameters ---------------------------


def _difference(what: str, params: dict[str, Any], inputs: dict[str, Any]) -> Record:
    a, b = _unpairs(inputs["a"]), _unpairs(inputs["b"])
    op, limit, paired = params["op"], float(params["limit"]), bool(params["paired"])
    side = _side(op)
    if paired:
        seeds = sorted(a)
        d = {s: a[s] - b[s] for s in seeds}
        ci = mean_interval([d[s] for s in seeds])
        per_seed = [(s, bool(side(d[s], limit))) for s in seeds]
    else:
        ci = welch_interval(list(a.values()), list(b.values()))
        per_seed = []
    return Record(
        "difference", what, params, inputs, ci.estimate, ci.lo, ci.hi,
        _excludes(ci, op, limit), per_seed,
    )  # fmt: skip


def _ratio(what: str, params: dict[str, Any], inputs: dict[str, Any]) -> Record:
    a, b = _unpairs(inputs["a"]), _unpairs(inputs["b"])
    op, limit, paired = params["op"], float(params["limit"]), bool(params["paired"])
    side = _side(op)
    if paired:
        seeds = sorted(a)
        r = {s: a[s] / b[s] if b[s] != 0 else math.nan for s in seeds}
        ci = mean_interval([r[s] for s in seeds])
        per_seed = [(s, bool(side(r[s], limit))) for s in seeds]
    else:
        ci = _ratio_of_means(list(a.values()), list(b.values()))
        per_seed = []
    return Record(
        "ratio", what, params, inputs, ci.estimate, ci.lo, ci.hi,
        _excludes(ci, op, limit), per_seed,
    )  # fmt: skip


def _ratio_of_means(a: Sequence[float], b: Sequence[float]) -> Interval:
    """mean(a) / mean(b) of independent samples, the delta method's interval
    (``var r = r^2 (se_a^2 / mean_a^2 + se_b^2 / mean_b^2)``) with the t of
    the smaller sample's degrees of freedom."""
    x, y = np.asarray(a, float), np.asarray(b, float)
    if np.isnan(x).any() or np.isnan(y).any() or y.mean() == 0 or x.mean() == 0:
        return Interval(math.nan, math.nan, math.nan)
    r = float(x.mean() / y.mean())
    if len(x) < 2 or len(y) < 2:
        return Interval(r, -math.inf, math.inf)
    rel2 = x.var(ddof=1) / len(x) / x.mean() ** 2 + y.var(ddof=1) / len(y) / y.mean() ** 2
    return Interval.around(r, t975(min(len(x), len(y)) - 1) * abs(r) * math.sqrt(rel2))


def _band(what: str, params: dict[str, Any], inputs: dict[str, Any]) -> Record:
    x = _unpairs(inputs["x"])
    lo, hi = params["lo"], params["hi"]
    seeds = sorted(x)
    ci = mean_interval([x[s] for s in seeds])

    def inside(low: float, high: float) -> bool:
        return bool((lo is None or low >= lo) and (hi is None or high <= hi))

    return Record(
        "band", what, params, inputs, ci.estimate, ci.lo, ci.hi,
        inside(ci.lo, ci.hi), [(s, inside(x[s], x[s])) for s in seeds],
    )  # fmt: skip


def _trend(what: str, params: dict[str, Any], inputs: dict[str, Any]) -> Record:
    curves = _untriples(inputs["points"])
    rises, method, logx = params["direction"] == "rises", params["method"], params["logx"]

    def xs(curve: Mapping[float, float]) -> list[float]:
        return [math.log10(x) if logx else x for x in curve]

    def stat(curve: Mapping[float, float]) -> float:
        f = ols_slope if method == "slope" else spearman
        return f(xs(curve), list(curve.values()))

    seeds = sorted(curves)
    if method == "slope":
        ci = (
            slope_interval(xs(curves[seeds[0]]), list(curves[seeds[0]].values()))
            if len(seeds) == 1
            else mean_interval([stat(curves[s]) for s in seeds])
        )
    else:
        allx = [x for s in seeds for x in xs(curves[s])]
        ally = [y for s in seeds for y in curves[s].values()]
        ci = spearman_interval(allx, ally)
    holds = bool(ci.lo > 0) if rises else bool(ci.hi < 0)
    per_seed = [(s, bool(stat(curves[s]) > 0 if rises else stat(curves[s]) < 0)) for s in seeds]
    return Record("trend", what, params, inputs, ci.estimate, ci.lo, ci.hi, holds, per_seed)


#: Each test's record from (what, params, inputs): what :func:`rerun` calls.
TESTS: dict[str, Callable[[str, dict[str, Any], dict[str, Any]], Record]] = {
    "difference": _difference,
    "ratio": _ratio,
    "band": _band,
    "trend": _trend,
}


def rerun(record: Mapping[str, Any]) -> Record:
    """The test of ``record`` (its dict form) run again on its inputs."""
    test = record.get("test")
    if test not in TESTS:
        raise ValueError(f"test: {test!r} is not one of {', '.join(TESTS)}")
    return TESTS[str(test)](str(record["what"]), dict(record["params"]), dict(record["inputs"]))


# --- the public checks -------------------------------------------------------------


def _check(expected: str, rec: Record) -> Check:
    return Check(expected, rec.holds, (), (rec.to_dict(),))


def _seeds_of(values: PerSeed, name: str) -> None:
    if not values:
        raise ValueError(f"{name}: no seeds")


def difference(
    a: PerSeed, b: PerSeed, what: str, *, op: str = ">", limit: float = 0.0, fmt: Fmt = num
) -> Check:
    """``mean(a - b) op limit`` with 95 % confidence over the seeds (paired
    when ``a`` and ``b`` have the same seeds). ``what`` names ``a - b``."""
    _side(op)
    _seeds_of(a, "a")
    _seeds_of(b, "b")
    paired = set(a) == set(b)
    params = {"op": op, "limit": float(limit), "paired": paired}
    rec = _difference(what, params, {"a": _pairs(a), "b": _pairs(b)})
    how = "paired by seed" if paired else "Welch, unpaired"
    return _check(f"{what}: 95 % CI of the mean ({how}) {op} {fmt(limit)}", rec)


def ratio(a: PerSeed, b: PerSeed, what: str, *, op: str = ">", limit: float = 1.0) -> Check:
    """``mean(a / b) op limit`` with 95 % confidence over the seeds (the
    per-seed ratios when ``a`` and ``b`` have the same seeds). ``what``
    names ``a / b``."""
    _side(op)
    _seeds_of(a, "a")
    _seeds_of(b, "b")
    paired = set(a) == set(b)
    params = {"op": op, "limit": float(limit), "paired": paired}
    rec = _ratio(what, params, {"a": _pairs(a), "b": _pairs(b)})
    how = "per-seed ratios" if paired else "ratio of the means"
    return _check(f"{what}: 95 % CI ({how}) {op} {limit:g}", rec)


def band(
    x: PerSeed,
    lo: float | None,
    hi: float | None,
    what: str,
    *,
    source: str,
    fmt: Fmt = num,
) -> Check:
    """The 95 % interval of the mean of ``x`` inside ``[lo, hi]`` (None: no
    bound on that side); ``source`` quotes where the band comes from."""
    if lo is None and hi is None:
        raise ValueError("band: give lo, hi or both")
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"band: lo {lo!r} is above hi {hi!r}")
    if not source.strip():
        raise ValueError("band: source: say where the band comes from")
    _seeds_of(x, "x")
    params = {
        "lo": None if lo is None else float(lo),
        "hi": None if hi is None else float(hi),
        "source": source,
    }
    rec = _band(what, params, {"x": _pairs(x)})
    if lo is None:
        where = f"<= {fmt(hi)}"  # type: ignore[arg-type]
    elif hi is None:
        where = f">= {fmt(lo)}"
    else:
        where = f"in [{fmt(lo)}, {fmt(hi)}]"
    return _check(f"{what}: 95 % CI of the mean {where} ({source})", rec)


def trend(
    curves: Curves,
    what: str,
    *,
    direction: str,
    method: str = "slope",
    logx: bool = False,
    x: str = "x",
) -> Check:
    """``what`` rises (or falls) with ``x``: the per-seed least-squares
    slope (``method="slope"``; x as log10 x with ``logx``) or Spearman's rho
    over every (x, seed) point (``"spearman"``), its 95 % interval above
    (below) 0."""
    if direction not in ("rises", "falls"):
        raise ValueError(f"direction: {direction!r} is not one of rises, falls")
    if method not in ("slope", "spearman"):
        raise ValueError(f"method: {method!r} is not one of slope, spearman")
    if not curves or any(len(c) < 2 for c in curves.values()):
        raise ValueError("trend: every seed needs a curve of at least two points")
    params = {"direction": direction, "method": method, "logx": logx, "x": x}
    rec = _trend(what, params, {"points": _triples(curves)})
    stat = "mean per-seed slope" if method == "slope" else "Spearman rho over (x, seed) points"
    sign = ">" if direction == "rises" else "<"
    scale = f"log10 {x}" if logx else x
    return _check(f"{what} {direction} with {x}: 95 % CI of the {stat} vs {scale} {sign} 0", rec)


def every(checks: Mapping[Any, Check], text: str) -> Check:
    """Each check holds (``failed``: the keys of those that do not);
    ``text`` says what each tests. Fails on no checks."""
    failed = tuple(k for k, c in checks.items() if not c.holds)
    return Check(
        text,
        bool(checks) and not failed,
        failed,
        tuple(t for c in checks.values() for t in c.tests),
    )


# --- what the records say ------------------------------------------------------------


def seed_share(records: Sequence[Mapping[str, Any]]) -> float | None:
    """The share of seeds on which every record holds on that seed alone
    (the seeds every record with per-seed verdicts has); None when no
    record has per-seed verdicts."""
    verdicts = [dict((int(s), bool(ok)) for s, ok in r["per_seed"]) for r in records]
    verdicts = [v for v in verdicts if v]
    if not verdicts:
        return None
    seeds = set.intersection(*(set(v) for v in verdicts))
    if not seeds:
        return None
    return sum(all(v[s] for v in verdicts) for s in seeds) / len(seeds)


def _g(x: float) -> str:
    return "nan" if isinstance(x, float) and math.isnan(x) else f"{x:.4g}"


def _seeds(record: Mapping[str, Any]) -> int:
    """How many seeds a record's inputs have."""
    rows = [row for rows in record["inputs"].values() for row in rows]
    return len({int(row[0]) for row in rows})


def measured(records: Sequence[Mapping[str, Any]]) -> str:
    """The records' estimates and intervals, for a claim's measured text."""
    parts = []
    for r in records:
        n = _seeds(r)
        held = sum(1 for _, ok in r["per_seed"] if ok)
        share = f"; holds on {held} of {len(r['per_seed'])} seeds" if r["per_seed"] else ""
        parts.append(
            f"{r['what']}: {_g(r['estimate'])} [{_g(r['lo'])}, {_g(r['hi'])}] "
            f"({n} seed{'s' if n != 1 else ''}{share})"
        )
    return "; ".join(parts)
