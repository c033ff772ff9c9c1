"""The statistics of the seeded checks: 95 % confidence intervals of a mean,
a difference, a slope and a rank correlation.

Every interval is two-sided at 95 %; a check holds when the interval
excludes its limit (:mod:`reorderlab.checks.seeded`). An interval needs a
spread: a mean over one value has none, so its interval is unbounded
(``-inf, inf``) and no check on it can hold.

Sources:

* Student t quantiles ``t(0.975, df)`` for df <= 30 (NIST/SEMATECH
  e-Handbook of Statistical Methods, Sec. 1.3.6.7.2, the table of critical
  values of the t distribution), beyond by the Cornish-Fisher expansion
  (Abramowitz and Stegun, Handbook of Mathematical Functions, 26.7.5):
  ``t = z + (z^3 + z) / (4 df) + (5 z^5 + 16 z^3 + 3 z) / (96 df^2)``.
* The Welch-Satterthwaite degrees of freedom for a difference of two
  independent means (B. L. Welch, Biometrika 34, 1947), rounded down.
* The ordinary least-squares slope and its standard error
  ``sqrt(SSR / (n - 2) / Sxx)``.
* Spearman's rank correlation (ranks of ties averaged) with the Fisher z
  interval and the variance of D. G. Bonett and T. A. Wright,
  Psychometrika 65, 2000: ``var(atanh r) = (1 + r^2 / 2) / (n - 3)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "LEVEL",
    "Interval",
    "mean_interval",
    "ols_slope",
    "slope_interval",
    "spearman",
    "spearman_interval",
    "t975",
    "welch_interval",
]

#: The confidence level of every interval.
LEVEL = 0.95

#: t(0.975, df) for df = 1..30.
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)  # fmt: skip
_Z975 = 1.959964


def t975(df: float) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom
    (``df`` rounded down; inf below 1)."""
    k = math.floor(df)
    if k < 1:
        return math.inf
    if k <= len(_T975):
        return _T975[k - 1]
    z = _Z975
    return z + (z**3 + z) / (4 * k) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * k * k)


@dataclass(frozen=True)
class Interval:
    """An estimate and its 95 % confidence interval ``[lo, hi]``."""

    estimate: float
    lo: float
    hi: float

    @staticmethod
    def around(estimate: float, half: float) -> Interval:
        return Interval(estimate, estimate - half, estimate + half)


def _finite(values: Sequence[float] | np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=float)


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean and its t interval (n - 1 degrees of freedom); NaN without
    values, unbounded with one."""
    v = _finite(values)
    if len(v) == 0 or np.isnan(v).any():
        return Interval(math.nan, math.nan, math.nan)
    mean = float(v.mean())
    if len(v) == 1:
        return Interval(mean, -math.inf, math.inf)
    half = t975(len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v))
    return Interval.around(mean, half)


def welch_interval(a: Sequence[float], b: Sequence[float]) -> Interval:
    """``mean(a) - mean(b)`` of two independent samples, Welch's interval."""
    x, y = _finite(a), _finite(b)
    if len(x) == 0 or len(y) == 0 or np.isnan(x).any() or np.isnan(y).any():
        return Interval(math.nan, math.nan, math.nan)
    diff = float(x.mean() - y.mean())
    if len(x) < 2 or len(y) < 2:
        return Interval(diff, -math.inf, math.inf)
    va, vb = float(x.var(ddof=1)) / len(x), float(y.var(ddof=1)) / len(y)
    se2 = va + vb
    if se2 == 0:
        return Interval(diff, diff, diff)
    df = se2**2 / (va**2 / (len(x) - 1) + vb**2 / (len(y) - 1))
    return Interval.around(diff, t975(df) * math.sqrt(se2))


def ols_slope(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """The least-squares slope of ``y`` on ``x`` (NaN with fewer than two
    distinct x)."""
    xs, ys = _finite(x), _finite(y)
    sxx = float(((xs - xs.mean()) ** 2).sum()) if len(xs) else 0.0
    if len(xs) < 2 or sxx == 0:
        return math.nan
    if len(ys) and not np.isnan(ys).any() and np.ptp(ys) == 0:
        # a flat series: exactly 0, not the residue of centring equal floats
        # (their mean need not be that float: a slope of ~1e-33 would "hold")
        return 0.0
    return float(((xs - xs.mean()) * (ys - ys.mean())).sum() / sxx)


def slope_interval(x: Sequence[float], y: Sequence[float]) -> Interval:
    """One series' least-squares slope and its t interval (n - 2 degrees
    of freedom); unbounded with fewer than three points."""
    xs, ys = _finite(x), _finite(y)
    b = ols_slope(xs, ys)
    if math.isnan(b) or np.isnan(ys).any():
        return Interval(math.nan, math.nan, math.nan)
    if len(xs) < 3:
        return Interval(b, -math.inf, math.inf)
    resid = ys - ys.mean() - b * (xs - xs.mean())
    sxx = float(((xs - xs.mean()) ** 2).sum())
    se = math.sqrt(float((resid**2).sum()) / (len(xs) - 2) / sxx)
    return Interval.around(b, t975(len(xs) - 2) * se)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (ties averaged); 0 when either is
    constant, NaN with a NaN value."""
    xs, ys = _finite(x), _finite(y)
    if np.isnan(xs).any() or np.isnan(ys).any():
        return math.nan
    rx = pd.Series(xs).rank().to_numpy(dtype=float)
    ry = pd.Series(ys).rank().to_numpy(dtype=float)
    if len(rx) < 2 or np.std(rx) == 0 or np.std(ry) == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def spearman_interval(x: Sequence[float], y: Sequence[float]) -> Interval:
    """Spearman's rho over the points and its Fisher z interval (Bonett and
    Wright's variance); unbounded with fewer than four points."""
    r = spearman(x, y)
    n = len(x)
    if math.isnan(r):
        return Interval(math.nan, math.nan, math.nan)
    if n < 4:
        return Interval(r, -1.0, 1.0)
    # a perfect order of n points is as strong as a correlation can be
    # measured from n points, not certain: keep z finite
    clipped = max(-1 + 1 / n**2, min(1 - 1 / n**2, r))
    z, se = math.atanh(clipped), math.sqrt((1 + r * r / 2) / (n - 3))
    return Interval(r, math.tanh(z - _Z975 * se), math.tanh(z + _Z975 * se))
