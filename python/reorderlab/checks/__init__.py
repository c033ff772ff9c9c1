"""Checks: a claim's test and the text of what makes it hold, from one call.

Two families, one result type (:class:`Check`: the expected text, the
verdict, the records of the tests it is made of):

:mod:`reorderlab.checks.seeded`
    a paper's statement tested on per-seed values with a 95 % confidence
    interval from the seed spread: :func:`difference`, :func:`ratio`,
    :func:`band`, :func:`trend`, joined by :func:`every` or :func:`all_of`.
    Each records its inputs, so that a claim can be re-run and perturbed
    (:mod:`reorderlab.checks.perturb`). A paper's claims use these.
:mod:`reorderlab.checks.threshold`
    a value against a threshold, no seeds (``within``, ``above``,
    ``each_below``, ...): for unit tests and for papers not yet re-encoded.

The statistics are in :mod:`reorderlab.checks.stats`.
"""

from reorderlab.checks.seeded import (
    Curves,
    PerSeed,
    Record,
    band,
    difference,
    every,
    measured,
    ratio,
    rerun,
    seed_share,
    trend,
)
from reorderlab.checks.threshold import (
    Check,
    Fmt,
    Ref,
    above,
    all_of,
    at_least,
    at_least_n,
    at_most,
    below,
    each_above,
    each_at_least,
    each_at_most,
    each_below,
    each_falls,
    each_near,
    each_rises,
    each_within,
    equals,
    falls,
    most,
    near,
    near_rel,
    num,
    pct,
    points,
    rises,
    that,
    unit,
    within,
)

__all__ = [
    "Check",
    "Curves",
    "Fmt",
    "PerSeed",
    "Record",
    "Ref",
    "above",
    "all_of",
    "at_least",
    "at_least_n",
    "at_most",
    "band",
    "below",
    "difference",
    "each_above",
    "each_at_least",
    "each_at_most",
    "each_below",
    "each_falls",
    "each_near",
    "each_rises",
    "each_within",
    "equals",
    "every",
    "falls",
    "measured",
    "most",
    "near",
    "near_rel",
    "num",
    "pct",
    "points",
    "ratio",
    "rerun",
    "rises",
    "seed_share",
    "that",
    "trend",
    "unit",
    "within",
]
