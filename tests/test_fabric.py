"""Fat-tree fabrics from Python: the generated model, the core's refusals
on one line, and a run (``docs/fabrics.md``)."""

from __future__ import annotations

from typing import Any

import pytest

from reorderlab import run
from reorderlab.scenario import FatTreeTopology, Scenario, ScenarioError


def _permutation(policy: str, **topology: Any) -> dict[str, Any]:
    """Host i of a k=4 fat-tree sends 200 segments to host (i + 5) mod 16."""
    return {
        "duration": 5.0,
        "topology": {
            "kind": "fat_tree",
            "k": 4,
            "rate": 10e9,
            "load_balancing": policy,
            **topology,
        },
        "flows": [
            {"src": f"h{i}", "dst": f"h{(i + 5) % 16}", "segments": 200, "tcp": {"max_window": 200}}
            for i in range(16)
        ],
    }


def test_the_model_has_the_declared_defaults() -> None:
    t = FatTreeTopology(k=8)
    assert (t.tiers, t.rate, t.oversubscription, t.load_balancing) == (3, 100e9, 1.0, "ecmp")
    assert (t.hop_delay, t.buffer_bytes, t.failed_links) == (500e-9, 150_000, [])


@pytest.mark.parametrize(
    ("topology", "message"),
    [
        ({"k": 5}, r"^topology\.k: must be even \(k/2 ports down, k/2 up\), got 5$"),
        ({"oversubscription": 0.5}, r"^topology\.oversubscription: must be >= 1, got 0\.5$"),
        (
            {"failed_links": ["agg0->core7"]},
            r"^topology\.failed_links\[0\]: unknown link 'agg0->core7' \(known: h0->edge0, ",
        ),
    ],
)
def test_inconsistent_fabrics_are_refused_on_one_line(
    topology: dict[str, Any], message: str
) -> None:
    with pytest.raises(ScenarioError, match=message) as info:
        Scenario.from_dict(_permutation("spray", **topology))
    assert "\n" not in str(info.value)


def test_every_policy_runs_and_repeats_itself() -> None:
    fcts = {}
    for policy in ("ecmp", "spray", "round_robin"):
        scenario = Scenario.from_dict(_permutation(policy))
        first = run(scenario, seed=2)
        again = run(scenario, seed=2)
        assert first.flows.equals(again.flows), policy
        assert bool(first.flows["completed"].all()), policy
        fcts[policy] = tuple(first.flows["fct"])
    assert fcts["ecmp"] != fcts["spray"], "the policy reaches the switches"
