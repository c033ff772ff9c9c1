"""Checks: one call gives a claim's expected text and its verdict."""

from __future__ import annotations

import math

import pytest

from reorderlab.checks import (
    Check,
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
    pct,
    points,
    rises,
    that,
    unit,
    within,
)


def test_threshold_checks_say_what_they_test() -> None:
    assert within(1.0, 0.7, 1.3, "simulated / model") == Check(
        "simulated / model in [0.7, 1.3]", True
    )
    assert not within(1.31, 0.7, 1.3, "r").holds
    assert within(0.7, 0.7, 1.3, "r").holds  # both ends included
    open_low = within(0.0, 0.0, 0.1, "diff", unit("S"), low_open=True)
    assert open_low == Check("diff in (0 S, 0.1 S]", False)
    assert below(0.49, 0.5, "x").expected == "x < 0.5"
    assert not below(0.5, 0.5, "x").holds
    assert at_most(0.5, 0.5, "x") == Check("x <= 0.5", True)
    assert above(0.72, 0.71, "x") == Check("x > 0.71", True)
    assert not above(0.71, 0.71, "x").holds
    assert at_least(0.71, 0.71, "x").holds
    assert equals(3, 3, "cwnd") == Check("cwnd = 3", True)
    assert near(0.5, 0.45, 0.1, "gap (s)") == Check("gap (s) = 0.45 +- 0.1", True)
    assert not near(0.56, 0.45, 0.1, "gap").holds
    assert near_rel(101.0, 100.0, 0.01, "throughput", "S") == Check(
        "throughput within 1 % of S", True
    )
    assert not near_rel(101.5, 100.0, 0.01, "throughput", "S").holds


def test_formats() -> None:
    assert pct(0.0225) == "2.25 %"
    assert pct(0.55) == "55 %"  # 55.00000000000001 printed as 55
    assert points(0.01) == "1 point"
    assert points(1e-4) == "0.01 points"
    assert unit("ms", 1e3)(0.75 * 0.2) == "150 ms"
    assert below(0.05, 0.10, "ratio", pct).expected == "ratio < 10 %"


def test_ref_is_the_threshold_computed_as_written() -> None:
    """``Ref(b, times=t, plus=p)`` compares with ``t * b + p``, bit for bit,
    so a claim's verdict is the one its old boolean gave."""
    b, x = 0.123456789, 0.1259259247
    ref = Ref(b, "min(RTOR, TLP)", times=1.02, plus=0.001, fmt=unit("ms", 1e3))
    assert ref.text() == "1.02 x min(RTOR, TLP) + 1 ms"
    assert ref.at() == b * 1.02 + 0.001
    assert at_most(x, ref, "TLPR").holds is (x <= b * 1.02 + 0.001)
    minus = Ref(0.5, "max(TA, FA)", plus=-0.02, fmt=unit("S"))
    assert minus.text() == "max(TA, FA) - 0.02 S"
    assert minus.at() == 0.5 - 0.02
    assert Ref(2.0, "SACK").text() == "SACK" and Ref(2.0, "SACK").at() == 2.0
    assert at_least(1.0, Ref(2.0, "the largest", times=0.5), "smallest").expected == (
        "smallest >= 0.5 x the largest"
    )


def test_each_checks_name_the_failed_keys_and_fail_on_nothing() -> None:
    values = {0.01: 0.05, 0.1: 0.12, 0.3: 0.08}
    c = each_below(values, 0.10, "false FR ratio", "at every fraction", pct)
    assert c == Check("false FR ratio < 10 % at every fraction", False, (0.1,))
    assert each_below({}, 0.10, "x", "at every fraction").holds is False
    assert each_at_most({"a": 1.0}, 1.0, "x", "").expected == "x <= 1"
    assert each_above({"a": 2.0, "b": 1.0}, 1.0, "x", "for all").failed == ("b",)
    assert each_at_least({"a": 1.0}, 1.0, "x", "for all").holds
    per_key = each_at_most(
        {"a": 0.3, "b": 0.5}, Ref({"a": 0.3, "b": 0.4}, "FA", plus=0.01, fmt=points), "TA", "each"
    )
    assert per_key == Check("TA <= FA + 1 point each", False, ("b",))
    assert each_within({1: 0.9, 2: 1.3}, 0.8, 1.2, "norm", "at every n").failed == (2,)
    assert each_near({"x": (0.8, 0.84)}, 0.10, "frac", "the paper's", "", points) == Check(
        "frac within 10 points of the paper's", True
    )
    assert each_falls({"a": (2.0, 1.0), "b": (1.0, 1.0)}, "thr", "0 %", "2 %", "").failed == ("b",)
    assert each_rises({"a": (1.0, 2.0)}, "FR", "k = 0.1", "k = 4", "for every BL").expected == (
        "FR rises from k = 0.1 to k = 4 for every BL"
    )


def test_orderings_counts_and_combinations() -> None:
    assert falls(2.0, 1.0, "timeouts", "95 %", "60 %") == Check(
        "timeouts falls from 95 % to 60 %", True
    )
    assert not falls(1.0, 1.0, "t", "a", "b").holds
    assert rises(1.0, 2.0, "t", "a", "b").holds and not rises(2.0, 1.0, "t", "a", "b").holds
    n = at_least_n([0.6, 0.4, 0.7, 0.8, 0.9, 0.1], ">", 0.5, 4, "reduction", "cases", pct)
    assert n == Check("reduction > 50 % in at least 4 of 6 cases", True)
    assert not at_least_n([0.6, 0.4], ">", 0.5, 2, "r", "cases").holds
    assert most([-1.0, -2.0, 3.0], "<", 0, "RED - DropTail", "curves").holds
    assert not most([-1.0, 2.0], "<", 0, "RED - DropTail", "curves").holds  # half is not most
    both = all_of(below(1.0, 2.0, "a"), above(1.0, 2.0, "b"), sep=" and ")
    assert both == Check("a < 2 and b > 2", False)
    assert that(True, "RTOR > TLP > baseline") == Check("RTOR > TLP > baseline", True)
    assert within(1.0, 3.5, 10.5, "TA / SACK").noted("(7x +- 50 %)").expected == (
        "TA / SACK in [3.5, 10.5] (7x +- 50 %)"
    )


def test_nan_never_holds() -> None:
    nan = math.nan
    for check in (
        within(nan, 0, 1, "x"),
        below(nan, 1, "x"),
        at_least(nan, 0, "x"),
        each_below({1: nan}, 1, "x", ""),
        falls(nan, 1.0, "x", "a", "b"),
        near(nan, 1.0, 0.5, "x"),
    ):
        assert check.holds is False, check


@pytest.mark.parametrize("check", [below(1, 2, "x"), each_below({1: 1}, 2, "x", "")])
def test_verdicts_are_plain_bools(check: Check) -> None:
    assert type(check.holds) is bool
