"""The quic-reordering recipe (quinn issue 2711's table, docs/quic.md):
its scenarios and its claims on made-up tables."""

from __future__ import annotations

import pandas as pd
import pytest

from reorderlab._scenario_models import NetemImpairment
from reorderlab.papers import papers
from reorderlab.papers.quic_reordering import setting, table2711


def test_the_recipe_is_registered_by_name_only() -> None:
    (rec,) = papers()["quic-reordering"].values()
    assert rec.figure == "table2711" and not rec.in_all


def test_each_row_is_the_published_path() -> None:
    data = setting.scenario("3").to_dict()
    (flow,) = data["flows"]
    assert (flow["variant"], flow["cc"]) == ("QUIC", "bbr")
    assert flow["quic"] == {"packet_threshold": 3}
    (netem,) = setting.scenario("3").impairments
    assert isinstance(netem, NetemImpairment)
    assert (netem.delay, netem.reorder, netem.correlation) == (0.005, 0.25, 0.5)
    topo = data["topology"]
    rtt = 2 * (2 * topo["access_delay"] + topo["bottleneck_delay"])
    assert rtt == pytest.approx(0.197)
    assert setting.scenario("clean").impairments == []
    assert setting.scenario("dedup 129").to_dict()["flows"][0]["quic"]["dedup_window"] == 129


def _table(of_clean: dict[str, float], lost: dict[str, float]) -> pd.DataFrame:
    rows = []
    for seed in (1, 2, 3):
        jitter = 1 + 0.001 * seed
        for row, r in of_clean.items():
            rows.append(
                {
                    "row": row,
                    "seed": seed,
                    "of_clean": r * jitter,
                    "goodput_mbps": 828 * r * jitter,
                    "lost_share": lost[row],
                }
            )
    return pd.DataFrame(rows)


def test_the_published_table_passes_its_own_claims_and_ours_does_not() -> None:
    published = {"3": 125 / 828, "300": 306 / 828, "1000": 563 / 828, "inf": 671 / 828}
    shares = {"3": 0.65, "300": 0.64, "1000": 0.52, "inf": 0.14}
    claims = table2711.claims(_table(published, shares), quick=True)
    assert len(claims) == 11 and all(c.holds for c in claims), [c.measured for c in claims]
    ours = {"3": 0.012, "300": 0.618, "1000": 0.982, "inf": 0.989}
    lost = {"3": 0.054, "300": 0.139, "1000": 0.063, "inf": 0.082}
    verdicts = {c.claim: c.holds for c in table2711.claims(_table(ours, lost), quick=True)}
    assert sum(verdicts.values()) == 4, verdicts
    assert verdicts["threshold inf beats threshold 1000"]
    assert not verdicts["threshold 3: goodput / clean path within 15 % of the published ratio"]
