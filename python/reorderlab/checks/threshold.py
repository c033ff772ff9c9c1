"""Threshold checks: a verdict on numbers as given, and the text of what
makes it hold, from one call.

These compare a value with a threshold and know nothing of the seeds:
:mod:`reorderlab.checks.seeded` tests the same statements on per-seed
values with a confidence interval, and is what a paper's claims use.

A paper claim says what would make it hold (``expected``) and whether the
runs did (``holds``). Written by hand, the two drift apart: a threshold in
the text and another in the test, ``<`` in one and ``<=`` in the other.
Here each check takes the measured numbers, the threshold once, and a few
words naming what is compared; it returns both the verdict and the text,
built from the same operator and the same numbers::

    within(ratio, 0.7, 1.3, "simulated / model")
    # Check(expected="simulated / model in [0.7, 1.3]", holds=...)
    at_least(ta, Ref(best, "the best fixed FA ratio", times=0.95), "DSACK-TA")
    # "DSACK-TA >= 0.95 x the best fixed FA ratio"

The comparisons are computed exactly as written in the check's docstring
(``a <= times * b + plus``), so a claim's verdict does not depend on how its
text is worded. ``each_*`` checks apply the test to every value of a mapping
and fail on an empty one (a claim about "every point" of no points says
nothing); :attr:`Check.failed` names the keys that failed, for the measured
text.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Check",
    "Fmt",
    "Ref",
    "above",
    "all_of",
    "at_least",
    "at_least_n",
    "at_most",
    "below",
    "each_above",
    "each_at_least",
    "each_at_most",
    "each_below",
    "each_falls",
    "each_near",
    "each_rises",
    "each_within",
    "equals",
    "falls",
    "most",
    "near",
    "near_rel",
    "num",
    "pct",
    "points",
    "rises",
    "that",
    "unit",
    "within",
]

#: Formats a threshold for the expected text.
Fmt = Callable[[float], str]


def num(x: float) -> str:
    """A plain number: ``0.7``, ``1.3``, ``1e-05``."""
    return f"{x:g}"


def pct(x: float) -> str:
    """A fraction as a percentage: ``0.015`` -> ``1.5 %``."""
    return f"{100 * x:g} %"


def points(x: float) -> str:
    """A difference of fractions in percentage points: ``0.1`` -> ``10 points``."""
    n = f"{100 * x:g}"
    return f"{n} point" if n == "1" else f"{n} points"


def unit(name: str, scale: float = 1.0) -> Fmt:
    """Numbers in ``name`` after multiplying by ``scale``: ``unit("ms", 1e3)(0.005)``
    is ``5 ms``."""

    def fmt(x: float) -> str:
        return f"{scale * x:g} {name}"

    return fmt


@dataclass(frozen=True)
class Check:
    """A verdict and the text saying what makes it hold.

    ``failed``: for checks over several values, the keys whose value failed
    (in the order given). ``tests``: the records of the seeded tests it is
    made of (:class:`reorderlab.checks.seeded.Record`, as dicts), each with
    its inputs, so that it can be re-run (:mod:`reorderlab.checks.rerun`);
    none for the threshold checks of this module.
    """

    expected: str
    holds: bool
    failed: tuple[Any, ...] = ()
    tests: tuple[dict[str, Any], ...] = ()

    def noted(self, note: str) -> Check:
        """The same check with ``note`` after its text (e.g. the paper's numbers)."""
        return Check(f"{self.expected} {note}", self.holds, self.failed, self.tests)


@dataclass(frozen=True)
class Ref:
    """A measured value as a threshold: ``times * value + plus``.

    ``value`` is one number, or one per key for the ``each_*`` checks.
    ``fmt`` formats ``plus`` in the text.
    """

    value: float | Mapping[Any, float]
    what: str
    times: float = 1.0
    plus: float = 0.0
    fmt: Fmt = num

    def at(self, key: Any = None) -> float:
        """The threshold (for ``key`` when the value is one per key)."""
        v = self.value[key] if isinstance(self.value, Mapping) else self.value
        return self.times * v + self.plus

    def text(self) -> str:
        scaled = self.what if self.times == 1 else f"{self.times:g} x {self.what}"
        if self.plus > 0:
            return f"{scaled} + {self.fmt(self.plus)}"
        if self.plus < 0:
            return f"{scaled} - {self.fmt(-self.plus)}"
        return scaled


Limit = float | Ref

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _limit(limit: Limit, key: Any, fmt: Fmt) -> tuple[float, str]:
    if isinstance(limit, Ref):
        return limit.at(key), limit.text()
    return limit, fmt(limit)


def _compare(x: float, op: str, limit: Limit, what: str, fmt: Fmt) -> Check:
    value, text = _limit(limit, None, fmt)
    return Check(f"{what} {op} {text}", bool(_OPS[op](x, value)))


def that(holds: bool, expected: str) -> Check:
    """A condition with no threshold (an ordering, a count that must be
    zero): the caller's text as it is."""
    return Check(expected, bool(holds))


def equals(x: float, target: float, what: str, fmt: Fmt = num) -> Check:
    """``x == target``."""
    return Check(f"{what} = {fmt(target)}", bool(x == target))


def below(x: float, limit: Limit, what: str, fmt: Fmt = num) -> Check:
    """``x < limit``."""
    return _compare(x, "<", limit, what, fmt)


def at_most(x: float, limit: Limit, what: str, fmt: Fmt = num) -> Check:
    """``x <= limit``."""
    return _compare(x, "<=", limit, what, fmt)


def above(x: float, limit: Limit, what: str, fmt: Fmt = num) -> Check:
    """``x > limit``."""
    return _compare(x, ">", limit, what, fmt)


def at_least(x: float, limit: Limit, what: str, fmt: Fmt = num) -> Check:
    """``x >= limit``."""
    return _compare(x, ">=", limit, what, fmt)


def _range(lo: float, hi: float, fmt: Fmt, low_open: bool) -> str:
    return f"{'(' if low_open else '['}{fmt(lo)}, {fmt(hi)}]"


def _in(x: float, lo: float, hi: float, low_open: bool) -> bool:
    return bool(lo < x <= hi) if low_open else bool(lo <= x <= hi)


def within(
    x: float, lo: float, hi: float, what: str, fmt: Fmt = num, *, low_open: bool = False
) -> Check:
    """``lo <= x <= hi`` (``lo < x <= hi`` with ``low_open``)."""
    return Check(f"{what} in {_range(lo, hi, fmt, low_open)}", _in(x, lo, hi, low_open))


def near(x: float, target: float, tol: float, what: str, fmt: Fmt = num) -> Check:
    """``abs(x - target) <= tol``."""
    return Check(f"{what} = {fmt(target)} +- {fmt(tol)}", bool(abs(x - target) <= tol))


def near_rel(x: float, target: float, rel: float, what: str, target_text: str) -> Check:
    """``abs(x - target) / target <= rel``."""
    ok = abs(x - target) / target <= rel
    return Check(f"{what} within {pct(rel)} of {target_text}", bool(ok))


def falls(first: float, last: float, what: str, start: str, end: str) -> Check:
    """``last < first``: ``what`` is lower at ``end`` than at ``start``."""
    return Check(f"{what} falls from {start} to {end}", bool(last < first))


def rises(first: float, last: float, what: str, start: str, end: str) -> Check:
    """``last > first``: ``what`` is higher at ``end`` than at ``start``."""
    return Check(f"{what} rises from {start} to {end}", bool(last > first))


# --- every value of a mapping ---------------------------------------------------


def _each(keys: Iterable[Any], test: Callable[[Any], bool], text: str, where: str) -> Check:
    """``test`` on every key; fails when there is none. ``where`` ends the
    text (e.g. "at every fraction"; empty when ``text`` says it)."""
    keys = list(keys)
    failed = tuple(k for k in keys if not test(k))
    return Check(f"{text} {where}" if where else text, bool(keys) and not failed, failed)


def _each_compare(
    values: Mapping[Any, float], op: str, limit: Limit, what: str, where: str, fmt: Fmt
) -> Check:
    text = limit.text() if isinstance(limit, Ref) else fmt(limit)
    compare = _OPS[op]
    return _each(
        values,
        lambda k: bool(compare(values[k], _limit(limit, k, fmt)[0])),
        f"{what} {op} {text}",
        where,
    )


def each_below(
    values: Mapping[Any, float], limit: Limit, what: str, where: str, fmt: Fmt = num
) -> Check:
    """``v < limit`` for every value (``limit`` a :class:`Ref` may give one per key)."""
    return _each_compare(values, "<", limit, what, where, fmt)


def each_at_most(
    values: Mapping[Any, float], limit: Limit, what: str, where: str, fmt: Fmt = num
) -> Check:
    """``v <= limit`` for every value."""
    return _each_compare(values, "<=", limit, what, where, fmt)


def each_above(
    values: Mapping[Any, float], limit: Limit, what: str, where: str, fmt: Fmt = num
) -> Check:
    """``v > limit`` for every value."""
    return _each_compare(values, ">", limit, what, where, fmt)


def each_at_least(
    values: Mapping[Any, float], limit: Limit, what: str, where: str, fmt: Fmt = num
) -> Check:
    """``v >= limit`` for every value."""
    return _each_compare(values, ">=", limit, what, where, fmt)


def each_within(
    values: Mapping[Any, float],
    lo: float,
    hi: float,
    what: str,
    where: str,
    fmt: Fmt = num,
    *,
    low_open: bool = False,
) -> Check:
    """``lo <= v <= hi`` for every value."""
    return _each(
        values,
        lambda k: _in(values[k], lo, hi, low_open),
        f"{what} in {_range(lo, hi, fmt, low_open)}",
        where,
    )


def each_near(
    pairs: Mapping[Any, tuple[float, float]],
    tol: float,
    what: str,
    target: str,
    where: str,
    fmt: Fmt = num,
) -> Check:
    """``abs(x - t) <= tol`` for every ``(x, t)``: each value within ``tol`` of its target."""
    return _each(
        pairs,
        lambda k: bool(abs(pairs[k][0] - pairs[k][1]) <= tol),
        f"{what} within {fmt(tol)} of {target}",
        where,
    )


def each_falls(
    pairs: Mapping[Any, tuple[float, float]], what: str, start: str, end: str, where: str
) -> Check:
    """``last < first`` for every ``(first, last)``."""
    return _each(
        pairs,
        lambda k: bool(pairs[k][1] < pairs[k][0]),
        f"{what} falls from {start} to {end}",
        where,
    )


def each_rises(
    pairs: Mapping[Any, tuple[float, float]], what: str, start: str, end: str, where: str
) -> Check:
    """``last > first`` for every ``(first, last)``."""
    return _each(
        pairs,
        lambda k: bool(pairs[k][1] > pairs[k][0]),
        f"{what} rises from {start} to {end}",
        where,
    )


# --- counts and combinations -------------------------------------------------------


def _count(values: Iterable[float], op: str, limit: float) -> tuple[int, int]:
    compare = _OPS[op]
    flags = [bool(compare(v, limit)) for v in values]
    return sum(flags), len(flags)


def at_least_n(
    values: Iterable[float],
    op: str,
    limit: float,
    n: int,
    what: str,
    items: str,
    fmt: Fmt = num,
) -> Check:
    """At least ``n`` of the values ``op limit`` (e.g. ``op = "<"``);
    ``items`` names what the values are of."""
    hits, total = _count(values, op, limit)
    return Check(f"{what} {op} {fmt(limit)} in at least {n} of {total} {items}", hits >= n)


def most(
    values: Iterable[float], op: str, limit: float, what: str, items: str, fmt: Fmt = num
) -> Check:
    """More than half of the values ``op limit``."""
    hits, total = _count(values, op, limit)
    return Check(
        f"{what} {op} {fmt(limit)} for more than half of the {total} {items}", hits > total / 2
    )


def all_of(*checks: Check, sep: str = "; ") -> Check:
    """Every check holds; their texts joined by ``sep``."""
    return Check(
        sep.join(c.expected for c in checks),
        all(c.holds for c in checks),
        tuple(k for c in checks for k in c.failed),
        tuple(t for c in checks for t in c.tests),
    )
