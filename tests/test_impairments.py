"""Impairment and multipath schema: every kind round-trips and the core accepts it."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import reorderlab
from reorderlab import _core
from reorderlab.scenario import Scenario, ScenarioError, set_path

RV = {
    "constant": {"dist": "constant", "value": 0.01},
    "uniform": {"dist": "uniform", "low": 0.0, "high": 0.02},
    "normal": {"dist": "normal", "mean": 0.025, "sd": 0.008},
    "exponential": {"dist": "exponential", "mean": 0.02},
    "hyperexponential": {"dist": "hyperexponential", "means": [0.01, 0.1], "probs": [0.9, 0.1]},
    "pareto": {"dist": "pareto", "scale": 0.01, "shape": 2.5},
    "pareto2": {"dist": "pareto2", "scale": 0.01, "shape": 2.5},
    "empirical": {"dist": "empirical", "values": [0.0, 0.01, 0.05], "cdf": [0.0, 0.5, 1.0]},
}

IMPAIRMENTS: list[dict[str, Any]] = [
    {"link": "R1->R2", "kind": "loss", "p": 0.01},
    {"link": "R1->R2", "kind": "delay", "fraction": 0.05, "delay": RV["normal"]},
    {"link": "R2->R1", "kind": "burst_loss", "q": 0.0002, "duration": RV["uniform"]},
    {"link": "R1->R2", "kind": "gilbert_elliott", "p_gb": 0.01, "p_bg": 0.3},
    {"link": "R1->R2", "kind": "positioned", "flow": 0, "segments": [3, 4], "copies": "all"},
    {"link": "R1->R2", "kind": "swap", "period": 1.0, "swaps": 2},
    {
        "link": "S1->R1",
        "kind": "reorder",
        "interval": RV["exponential"],
        "delay": RV["exponential"],
        "block": {"dist": "constant", "value": 2},
    },
    {"link": "R2->D", "kind": "arq", "frame_error": 0.03, "link_rtt": 0.04, "in_order": True},
]


def chain(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "imp",
        "duration": 5.0,
        "topology": {"kind": "chain", "bottleneck_rate": 8e6, "bottleneck_delay": 0.023},
        "flows": [{"src": "S1", "dst": "D", "tcp": {"max_window": 50}}],
    }
    data.update(extra)
    return data


@pytest.mark.parametrize("imp", IMPAIRMENTS, ids=[i["kind"] for i in IMPAIRMENTS])
def test_each_impairment_round_trips_and_runs(imp: dict[str, Any]) -> None:
    sc = Scenario.from_dict(chain(impairments=[imp]))
    assert Scenario.from_toml(sc.to_toml()) == sc
    for key, value in imp.items():
        assert sc.to_dict()["impairments"][0][key] == value
    res = json.loads(_core.run(sc.to_json(), 1))
    assert res["flows"][0]["segments_delivered"] > 0


@pytest.mark.parametrize("dist", list(RV))
def test_each_random_variable_is_accepted(dist: str) -> None:
    imp = {"link": "R1->R2", "kind": "delay", "fraction": 0.1, "delay": RV[dist]}
    sc = Scenario.from_dict(chain(impairments=[imp]))
    assert Scenario.from_toml(sc.to_toml()) == sc
    json.loads(_core.run(sc.to_json(), 2))


def test_defaults_mirror_the_core() -> None:
    sc = Scenario.from_dict(
        chain(
            impairments=[
                {
                    "link": "R1->R2",
                    "kind": "reorder",
                    "interval": RV["constant"],
                    "delay_packets": RV["constant"],
                },
                {"link": "R1->R2", "kind": "gilbert_elliott", "p_gb": 0.1, "p_bg": 0.5},
                {"link": "R1->R2", "kind": "delay", "fraction": 0.1, "delay": RV["constant"]},
            ]
        )
    )
    reorder, ge, delay = sc.to_dict()["impairments"]
    assert reorder["block"] == {"dist": "constant", "value": 1.0}
    assert reorder["max_hold"] == 0.01
    assert reorder["data_only"] is True
    assert "position" not in reorder  # None: the core picks ingress / egress
    assert "anchor" not in reorder  # None: the later packet (old scenarios keep their keys)
    assert (ge["loss_good"], ge["loss_bad"], ge["data_only"]) == (0.0, 1.0, True)
    assert delay["data_only"] is False


def test_multipath_round_trip_and_run() -> None:
    topo = {
        "kind": "custom",
        "nodes": ["S", "A", "B", "C", "D"],
        "links": [
            {"from": "S", "to": "A", "rate": 10e6, "delay": 0.01},
            {"from": "A", "to": "D", "rate": 10e6, "delay": 0.01},
            {"from": "S", "to": "B", "rate": 10e6, "delay": 0.01},
            {"from": "B", "to": "C", "rate": 10e6, "delay": 0.01},
            {"from": "C", "to": "D", "rate": 10e6, "delay": 0.01},
        ],
    }
    mp = {
        "at": "S",
        "dst": "D",
        "paths": [["S->A", "A->D"], ["S->B", "B->C", "C->D"]],
        "epsilon": 0.0,
    }
    data = chain(topology=topo, multipath=[mp])
    data["flows"] = [{"src": "S", "dst": "D"}]
    sc = Scenario.from_dict(data)
    assert Scenario.from_toml(sc.to_toml()) == sc
    res = reorderlab.run(sc, seed=1)
    assert res.to_dict()["multipath_routes"]


BAD: list[tuple[str, Any, str]] = [
    (
        "impairments",
        [{"link": "R1->R2", "kind": "jitter"}],
        "impairments[0].kind: unknown kind 'jitter'",
    ),
    (
        "impairments",
        [{"link": "R1->R2", "kind": "delay", "fraction": 1.5, "delay": RV["constant"]}],
        "impairments[0].fraction: must be in [0, 1], got 1.5",
    ),
    (
        "impairments",
        [
            {
                "link": "R1->R2",
                "kind": "delay",
                "fraction": 0.1,
                "delay": {"dist": "uniform", "low": 2, "high": 1},
            }
        ],
        "impairments[0].delay.high: must be >= low (2), got 1",
    ),
    (
        "impairments",
        [{"link": "R1->R2", "kind": "delay", "fraction": 0.1, "delay": {"dist": "gauss"}}],
        "impairments[0].delay.dist: unknown kind 'gauss'",
    ),
    (
        "impairments",
        [{"link": "R1->R2", "kind": "reorder", "interval": RV["constant"]}],
        "impairments[0].delay: give exactly one of delay (s) and delay_packets",
    ),
    (
        "impairments",
        [
            {
                "link": "R1->R2",
                "kind": "reorder",
                "interval": RV["constant"],
                "delay_packets": RV["constant"],
                "anchor": "block-arrival",
            }
        ],
        'impairments[0].anchor: "block-arrival" needs delay (s): delay_packets counts later',
    ),
    (
        "impairments",
        [
            {
                "link": "R1->R2",
                "kind": "reorder",
                "interval": RV["constant"],
                "delay": RV["constant"],
                "anchor": "own",
            }
        ],
        "impairments[0].anchor: must be one of 'later-packet' or 'block-arrival', got 'own'",
    ),
    (
        "impairments",
        [{"link": "R1->R2", "kind": "positioned", "flow": 3, "segments": [1]}],
        "impairments[0].flow: no flow with index 3 (1 flows)",
    ),
    (
        "impairments",
        [{"link": "R1->R2", "kind": "loss", "p": 0.1, "position": "middle"}],
        "impairments[0].position: must be one of 'ingress' or 'egress', got 'middle'",
    ),
    (
        "multipath",
        [{"at": "S1", "dst": "D", "paths": [["S1->R1", "R2->D"]]}],
        "multipath[0].paths[0][1]: link 'R2->D' does not start at 'R1'",
    ),
]


@pytest.mark.parametrize(("field", "value", "expected"), BAD)
def test_bad_impairments_name_field_and_value(field: str, value: Any, expected: str) -> None:
    data = chain()
    set_path(data, field, copy.deepcopy(value))
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data)
    assert expected in str(info.value)
