"""The seeded checks: intervals from the seed spread, verdicts that need the
interval to exclude the limit, records that re-run, and perturbations that
make every test fail."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from reorderlab.checks import (
    Check,
    all_of,
    band,
    difference,
    every,
    measured,
    ratio,
    rerun,
    seed_share,
    trend,
)
from reorderlab.checks.perturb import perturbations
from reorderlab.checks.stats import (
    mean_interval,
    slope_interval,
    spearman_interval,
    t975,
    welch_interval,
)


def test_t_quantiles_match_the_table_and_the_expansion() -> None:
    assert t975(1) == pytest.approx(12.7062)
    assert t975(2) == pytest.approx(4.3027)
    assert t975(9) == pytest.approx(2.2622)
    assert t975(2.9) == t975(2)  # rounded down: conservative
    # beyond the table: Cornish-Fisher, to 3 decimals of the exact values
    assert t975(40) == pytest.approx(2.0211, abs=1e-3)
    assert t975(120) == pytest.approx(1.9799, abs=1e-3)
    assert t975(0) == math.inf


def test_mean_interval_by_hand() -> None:
    ci = mean_interval([1.0, 2.0, 3.0])  # mean 2, sd 1, n 3
    half = 4.3027 / math.sqrt(3)
    assert (ci.estimate, ci.lo, ci.hi) == pytest.approx((2.0, 2 - half, 2 + half))
    one = mean_interval([5.0])
    assert one.estimate == 5.0 and one.lo == -math.inf and one.hi == math.inf
    assert math.isnan(mean_interval([1.0, math.nan]).estimate)
    same = mean_interval([0.5, 0.5])
    assert (same.lo, same.hi) == (0.5, 0.5)


def test_welch_interval_of_identical_spreads() -> None:
    ci = welch_interval([1.0, 2.0, 3.0], [0.0, 1.0, 2.0])
    # equal variances and sizes: df = 4, se = sqrt(2/3)
    assert ci.estimate == pytest.approx(1.0)
    assert ci.hi - ci.estimate == pytest.approx(2.7764 * math.sqrt(2 / 3))


def test_slope_interval_of_a_line_is_a_point() -> None:
    ci = slope_interval([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 5.0, 7.0])
    assert (ci.estimate, ci.lo, ci.hi) == pytest.approx((2.0, 2.0, 2.0))
    assert slope_interval([0.0, 1.0], [0.0, 1.0]).lo == -math.inf  # two points: no spread


def test_spearman_interval_needs_four_points() -> None:
    assert spearman_interval([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]).lo == -1.0
    ci = spearman_interval(list(range(10)), list(range(10)))
    assert ci.estimate == pytest.approx(1.0) and 0 < ci.lo < 1


PAIRED_A = {1: 10.19, 2: 10.20, 3: 10.21}
PAIRED_B = {1: 10.0, 2: 10.0, 3: 10.0}


def test_a_difference_holds_only_when_its_interval_excludes_the_limit() -> None:
    c = difference(PAIRED_A, PAIRED_B, "A - B", op=">")
    assert c.holds
    (rec,) = c.tests
    assert rec["params"] == {"op": ">", "limit": 0.0, "paired": True}
    assert rec["estimate"] == pytest.approx(0.2) and rec["lo"] > 0
    assert "95 % CI of the mean (paired by seed) > 0" in c.expected
    # the wrong side, and a limit inside the interval
    assert not difference(PAIRED_A, PAIRED_B, "A - B", op="<").holds
    assert not difference(PAIRED_A, PAIRED_B, "A - B", op=">", limit=0.2).holds


def test_a_difference_in_the_noise_does_not_hold() -> None:
    """The review's case: a mean difference of -7.4e-6 whose seeds disagree."""
    a = {1: 5.00001, 2: 4.99998, 3: 4.999988}
    b = {1: 5.0, 2: 5.0, 3: 5.0}
    c = difference(a, b, "RED - DropTail", op="<")
    assert c.tests[0]["estimate"] == pytest.approx(-7.33e-6, rel=0.01)
    assert not c.holds
    assert seed_share(c.tests) == pytest.approx(2 / 3)


def test_one_seed_gives_no_interval_and_no_verdict() -> None:
    c = difference({1: 3.0}, {1: 1.0}, "A - B")
    assert not c.holds and c.tests[0]["lo"] == -math.inf
    assert seed_share(c.tests) == 1.0  # it does hold on that seed alone


def test_unpaired_comparison_uses_welch_and_has_no_share() -> None:
    c = difference({1: 3.0, 2: 3.1, 3: 2.9}, {4: 1.0, 5: 1.1}, "A - B")
    assert c.holds and c.tests[0]["params"]["paired"] is False
    assert c.tests[0]["per_seed"] == [] and seed_share(c.tests) is None


def test_ratio_of_per_seed_ratios() -> None:
    c = ratio({1: 2.0, 2: 2.1, 3: 1.9}, {1: 1.0, 2: 1.0, 3: 1.0}, "A / B", op=">", limit=1.5)
    assert c.holds and c.tests[0]["estimate"] == pytest.approx(2.0)
    assert not ratio({1: 2.0, 2: 2.1}, {1: 1.0, 2: 1.0}, "A / B", op="<").holds
    assert math.isnan(ratio({1: 1.0}, {1: 0.0}, "A / B").tests[0]["estimate"])


def test_band_needs_its_interval_inside() -> None:
    x = {1: 0.98, 2: 1.0, 3: 1.02}
    assert band(x, 0.9, 1.1, "ratio", source="'nearly identical'").holds
    assert not band(x, 0.99, 1.1, "ratio", source="'nearly identical'").holds
    assert band(x, None, 1.1, "CoV", source="'below 0.1'").holds
    assert "<= 1.1" in band(x, None, 1.1, "CoV", source="'below 0.1'").expected
    assert seed_share(band(x, 0.99, 1.1, "r", source="s").tests) == pytest.approx(2 / 3)
    # an exact quantity: two seeds alike give a zero-width interval
    assert band({1: 0.0, 2: 0.0}, 0, 0, "retransmissions", source="none expected").holds


@pytest.mark.parametrize("method", ["slope", "spearman"])
def test_a_trend_is_tested_over_every_point(method: str) -> None:
    rising = {s: {x: x + 0.05 * s for x in (1.0, 2.0, 3.0, 4.0)} for s in (1, 2, 3)}
    assert trend(rising, "share", direction="rises", method=method).holds
    assert not trend(rising, "share", direction="falls", method=method).holds
    # a peak in the middle: the endpoints rise, the trend does not
    peak = {s: {1.0: 1.0, 2.0: 3.0 + 0.1 * s, 3.0: 2.0, 4.0: 1.05} for s in (1, 2, 3)}
    assert not trend(peak, "ahead", direction="rises", method=method).holds


def test_a_single_seed_trend_uses_the_regression_interval() -> None:
    line = {1: {1.0: 1.0, 2.0: 2.1, 3.0: 2.9, 4.0: 4.0}}
    c = trend(line, "y", direction="rises")
    assert c.holds and c.tests[0]["lo"] > 0
    assert trend({1: {1.0: 10.0, 10.0: 20.0, 100.0: 30.0}}, "y", direction="rises", logx=True).holds


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="op: '>=' is not one of"):
        difference({1: 1.0}, {1: 0.0}, "d", op=">=")
    with pytest.raises(ValueError, match="source"):
        band({1: 1.0}, 0, 2, "x", source=" ")
    with pytest.raises(ValueError, match="give lo, hi or both"):
        band({1: 1.0}, None, None, "x", source="s")
    with pytest.raises(ValueError, match="direction"):
        trend({1: {1.0: 1.0, 2.0: 2.0}}, "y", direction="up")
    with pytest.raises(ValueError, match="at least two points"):
        trend({1: {1.0: 1.0}}, "y", direction="rises")
    with pytest.raises(ValueError, match="a: no seeds"):
        difference({}, {1: 0.0}, "d")


def test_joined_checks_carry_every_record_and_the_seed_share_of_all() -> None:
    a = difference({1: 2.0, 2: 2.1, 3: 0.9}, {1: 1.0, 2: 1.0, 3: 1.0}, "A - B")
    b = band({1: 0.5, 2: 0.5, 3: 0.5}, 0.4, 0.6, "x", source="s")
    c = band({1: 0.5, 2: 0.7, 3: 0.5}, 0.4, 0.6, "y", source="s")
    both = all_of(a, b, c)
    assert len(both.tests) == 3
    # seed 3 fails a; seed 2 fails c: only seed 1 holds every part
    assert seed_share(both.tests) == pytest.approx(1 / 3)
    each = every({"x": b, "y": c}, "x and y in the band")
    assert each.failed == ("y",) and not each.holds and len(each.tests) == 2
    assert not every({}, "nothing").holds
    assert "A - B: " in measured(a.tests) and "holds on 2 of 3 seeds" in measured(a.tests)


def _checks() -> list[tuple[str, object]]:
    up = {s: {x: 2 * x + 0.1 * s for x in (0.0, 1.0, 2.0, 3.0)} for s in (1, 2, 3)}
    return [
        ("difference", difference(PAIRED_A, PAIRED_B, "d")),
        ("difference-unpaired", difference({1: 3.0, 2: 3.1, 3: 2.9}, {4: 1.0, 5: 1.1}, "d")),
        ("ratio", ratio({1: 2.0, 2: 2.1, 3: 1.9}, {1: 1.0, 2: 1.0, 3: 1.0}, "r", limit=1.5)),
        ("band", band({1: 0.98, 2: 1.0, 3: 1.02}, 0.9, 1.1, "b", source="s")),
        ("band-exact", band({1: 0.0, 2: 0.0}, 0, 0, "n", source="s")),
        ("bound", band({1: 0.05, 2: 0.06, 3: 0.055}, None, 0.1, "cov", source="s")),
        ("slope", trend(up, "y", direction="rises")),
        ("spearman", trend(up, "y", direction="rises", method="spearman")),
        ("falls", trend({1: {1.0: 3.0, 2.0: 2.0, 3.0: 1.2}}, "y", direction="falls")),
    ]


@pytest.mark.parametrize(("name", "check"), _checks())
def test_records_rerun_from_json_and_fail_when_perturbed(name: str, check: object) -> None:
    assert isinstance(check, Check) and check.holds, name
    (rec,) = json.loads(json.dumps(check.tests))
    again = rerun(rec).to_dict()
    assert again == rec
    found = perturbations(rec)
    assert any(p.null for p in found)
    for p in found:
        assert not p.record.holds, (name, p.name, p.record)


def test_a_failing_test_fails_its_null_perturbation_too() -> None:
    c = difference({1: 1.0, 2: -1.0, 3: 0.5}, {1: 0.0, 2: 0.0, 3: 0.0}, "d")
    assert not c.holds
    (rec,) = c.tests
    assert all(not p.record.holds for p in perturbations(rec) if p.null)


def test_paper_claim_carries_the_sentence_the_records_and_the_share() -> None:
    import pandas as pd

    from reorderlab.papers.kit.claims import paper_claim, per_seed, per_seed_curves

    df = pd.DataFrame(
        [
            {"variant": v, "buffer": b, "seed": s, "mbps": base + 0.01 * s + 0.001 * b}
            for v, base in (("RED", 5.0), ("DropTail", 6.0))
            for b in (50, 100)
            for s in (1, 2, 3)
        ]
    )
    red, dt = per_seed(df, "mbps", variant="RED"), per_seed(df, "mbps", variant="DropTail")
    assert red == pytest.approx({1: 5.085, 2: 5.095, 3: 5.105})
    curves = per_seed_curves(df, "buffer", "mbps", variant="RED")
    assert curves[2] == pytest.approx({50.0: 5.07, 100.0: 5.12})
    with pytest.raises(KeyError, match="no row with variant='CUBIC'"):
        per_seed(df, "mbps", variant="CUBIC")
    c = paper_claim(
        "wwan",
        "fig4",
        "RED performs worse than DropTail",
        difference(red, dt, "RED - DropTail (Mb/s)", op="<"),
        quote="The simulations also show that RED generally has worse  performance",
        where="Sec. IV-B",
    )
    assert c.holds and c.kind == "claim" and c.seed_share == 1.0
    assert c.quote == "The simulations also show that RED generally has worse performance"
    assert c.measured.startswith("RED - DropTail (Mb/s): -1 [")
    assert c.tests[0]["test"] == "difference"
    with pytest.raises(ValueError, match="kind: 'opinion' is not one of"):
        paper_claim("p", "f", "c", c_check(), quote="q", where="w", kind="opinion")


def c_check() -> Check:
    return band({1: 1.0}, 0, 2, "x", source="s")


@pytest.mark.parametrize("limit", [0.0, 0.15, 0.2525])
def test_the_null_of_a_zero_spread_check_fails_despite_rounding(limit: float) -> None:
    """Two identical seeds (a deterministic run): a mean put at the limit by
    float arithmetic can land a few ulps on the holding side; the null
    perturbation steps past it (the case tail-loss Fig. 3 met)."""
    a, b = {1: 1.717622175, 2: 1.717622175}, {1: 1.465058442, 2: 1.465058442}
    for check in (
        difference(a, b, "d", op=">", limit=limit),
        ratio(a, b, "r", op=">", limit=1.0 + limit / 2),
        ratio(b, a, "r", op="<", limit=1.0 - limit / 4),
        band(a, 1.7, 1.72, "x", source="s"),
    ):
        (rec,) = check.tests
        assert rec["holds"], rec
        nulls = [p for p in perturbations(rec) if p.null]
        assert nulls and all(not p.record.holds for p in nulls), (rec, nulls)


def test_a_sensitivity_sweep_takes_its_seed_counts() -> None:
    from reorderlab.papers.kit.sensitivity import SENSITIVITY, Sensitivity, per_seed_plan

    def points(quick: bool, seed: int) -> list[Any]:
        return []

    default = Sensitivity(points, lambda df: df, lambda df, out: None)
    assert list(per_seed_plan(default, True)) == [SENSITIVITY]
    assert list(per_seed_plan(default, False)) == [SENSITIVITY, f"{SENSITIVITY}@2"]
    three = Sensitivity(points, lambda df: df, lambda df, out: None, seeds=(1, 3))
    assert [s.seed_list() for s in per_seed_plan(three, False).values()] == [[1], [2], [3]]
    with pytest.raises(ValueError, match=r"Sensitivity.seeds: \(0, 2\)"):
        per_seed_plan(Sensitivity(points, lambda df: df, lambda df, out: None, seeds=(0, 2)), True)


def test_a_flattened_trend_has_a_slope_of_exactly_zero() -> None:
    """rr-tcp's case: every point at the mean of all y, whose centred sums
    left a slope of ~1e-33 on every seed, a zero-width interval that
    "excluded" 0. A flat series has a slope of exactly 0."""
    from reorderlab.checks.stats import ols_slope

    assert ols_slope([0.0, 1.0, 2.0, 3.0], [0.1] * 4) == 0.0
    curves = {s: {x: 0.1 * x + 0.01 * s + 0.3 for x in (0.25, 0.5, 1.0, 2.0)} for s in (1, 2)}
    (rec,) = trend(curves, "y", direction="rises").tests
    flat = next(p for p in perturbations(rec) if p.name == "null")
    assert flat.record.estimate == 0.0 and not flat.record.holds
