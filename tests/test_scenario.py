"""Scenario schema: validation messages, TOML round trip, cache keys."""

from __future__ import annotations

import copy
import json
import math
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from reorderlab import _core
from reorderlab.runner import engine_version
from reorderlab.scenario import (
    ChainTopology,
    CustomTopology,
    DroptailQueue,
    FlowSpec,
    LinkSpec,
    LossImpairment,
    ReceiverSpec,
    RecordSpec,
    RedQueue,
    Scenario,
    ScenarioError,
    TcpSpec,
    canonical_json,
    load_scenario,
    set_path,
)

BASE: dict[str, Any] = {
    "duration": 10,
    "topology": {"kind": "chain", "bottleneck_rate": 8e6, "bottleneck_delay": 0.023},
    "flows": [{"src": "S1", "dst": "D"}],
}


def with_change(path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    set_path(data, path, value)
    return data


BAD_INPUTS = [
    (
        with_change("topology.bottleneck_rate", -5),
        "topology.bottleneck_rate: must be > 0, got -5",
    ),
    (with_change("duration", 0), "duration: must be > 0, got 0"),
    (
        with_change("duration", "ten"),
        "duration: must be a number or a number with a unit (ns, nsec, us, usec, ms, msec, s, "
        "sec, secs, min, h), got 'ten'",
    ),
    (
        with_change("topology.kind", "ring"),
        "topology.kind: unknown kind 'ring' (known: 'chain', 'dumbbell', 'parking_lot', "
        "'fat_tree', 'custom')",
    ),
    (with_change("topology.colour", "red"), "topology.colour: unknown field, got 'red'"),
    (
        with_change("topology.queue", {"kind": "droptail", "limit_packets": 0}),
        "topology.queue.limit_packets: must be >= 1, got 0",
    ),
    (
        with_change(
            "topology.queue", {"kind": "red", "limit_packets": 50, "min_th": 10, "max_th": 5}
        ),
        "topology.queue.max_th: must be > min_th (10), got 5",
    ),
    (
        with_change("flows[0].variant", "FOO"),
        "flows[0].variant: unknown variant 'FOO' (known: Reno, NewReno, SACK",
    ),
    (
        with_change("flows[0].dst", "X"),
        "flows[0].dst: unknown node 'X' (known: S1, R1, R2, D)",
    ),
    (with_change("flows[0].tcp", {"mss": 1.5}), "flows[0].tcp.mss: must be an integer, got 1.5"),
    (
        with_change("flows[0].tcp", {"max_window": -3}),
        "flows[0].tcp.max_window: must be >= 1, got -3",
    ),
    (
        with_change("flows[0].receiver", {"max_sack_blocks": 5}),
        "flows[0].receiver.max_sack_blocks: must be in 1..=4, got 5",
    ),
    (
        with_change("flows[0].receiver", {"delayed_ack": "sometimes"}),
        "flows[0].receiver.delayed_ack: must be one of 'none', 'rfc1122' or 'quickack', "
        "got 'sometimes'",
    ),
    (
        with_change("impairments", [{"link": "R1->R2", "kind": "loss", "p": 1.5}]),
        "impairments[0].p: must be in [0, 1), got 1.5",
    ),
    (
        with_change("impairments", [{"link": "R1->R9", "kind": "loss", "p": 0.1}]),
        "impairments[0].link: unknown link 'R1->R9'",
    ),
    (
        with_change(
            "topology",
            {
                "kind": "custom",
                "nodes": ["A", "B"],
                "links": [
                    {"from": "A", "to": "B", "rate": 1e6, "delay": 0.01},
                    {"from": "B", "to": "A", "rate": -5, "delay": 0.01, "duplex": False},
                    {"from": "A", "to": "B", "rate": -5, "delay": 0.01, "duplex": False},
                ],
            },
        ),
        "topology.links[1].rate: must be > 0, got -5",
    ),
    (with_change("warmup", 10), "warmup: must be < duration (10), got 10"),
    # pydantic alone reads true as 1.0 in a float field: a 1 b/s link
    (
        with_change("topology.bottleneck_rate", True),
        "topology.bottleneck_rate: must be a number, got true",
    ),
    (
        with_change("impairments", [{"link": "R1->R2", "kind": "loss", "p": False}]),
        "impairments[0].p: must be a number, got false",
    ),
    (with_change("record.series", ["cwnd", "bogus"]), "record.series[1]: unknown series 'bogus'"),
    (
        with_change("flows", []),
        "flows: must list at least one flow (or a traffic generator), got []",
    ),
]


@pytest.mark.parametrize(("data", "expected"), BAD_INPUTS)
def test_validation_error_names_field_and_value(data: dict[str, Any], expected: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_field_is_named() -> None:
    data = copy.deepcopy(BASE)
    del data["topology"]["bottleneck_rate"]
    with pytest.raises(ScenarioError, match=r"^topology\.bottleneck_rate: missing required field$"):
        Scenario.from_dict(data)


def test_errors_are_collected_with_paths() -> None:
    data = with_change("topology.bottleneck_rate", -1)
    set_path(data, "duration", -2)
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data)
    paths = {e.path for e in info.value.errors}
    assert paths == {"duration", "topology.bottleneck_rate"}


def test_invalid_toml_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError, match="invalid TOML"):
        Scenario.from_toml("duration = = 3")


def test_core_rejects_what_python_rejects() -> None:
    """The Rust core names the same field for an invalid scenario."""
    good = Scenario.from_dict(BASE).to_dict()
    good["topology"]["bottleneck_rate"] = -5
    with pytest.raises(ValueError, match=r"^topology\.bottleneck_rate: must be > 0, got -5$"):
        _core.run(json.dumps(good), 1)


def full_scenario() -> Scenario:
    return Scenario(
        name="everything",
        duration=12.5,
        seed=7,
        warmup=1.5,
        topology=CustomTopology(
            nodes=["A", "B", "C"],
            links=[
                LinkSpec(
                    **{"from": "A"},
                    to="B",
                    rate=10e6,
                    delay=0.002,
                    queue=RedQueue(limit_packets=100, min_th=5, max_th=15, gentle=True),
                ),
                LinkSpec(
                    **{"from": "B"},
                    to="C",
                    rate=2e6,
                    delay=0.02,
                    queue=DroptailQueue(limit_packets=30, limit_bytes=30_000),
                ),
            ],
        ),
        impairments=[LossImpairment(link="B->C", p=0.02, data_only=False)],
        flows=[
            FlowSpec(
                name="bulk",
                src="A",
                dst="C",
                variant="NewReno",
                start=0.5,
                tcp=TcpSpec(mss=1500, max_window=64, min_rto=0.2, limited_transmit=False),
                receiver=ReceiverSpec(delayed_ack="rfc1122", max_sack_blocks=3),
            ),
            FlowSpec(src="C", dst="A", segments=100),
        ],
        record=RecordSpec(series=["cwnd", "rto"], interval=0.5, flows=[0]),
    )


def test_toml_round_trip(tmp_path: Path) -> None:
    sc = full_scenario()
    path = tmp_path / "sc.toml"
    sc.save(path)
    back = load_scenario(path)
    assert back == sc
    assert back.to_json() == sc.to_json()
    # a second trip is byte-identical
    assert back.to_toml() == sc.to_toml()
    # and the core accepts what Python serialises
    json.loads(_core.run(back.to_json(), 1))


def test_toml_file_round_trip_of_chain(small_toml: Path) -> None:
    sc = load_scenario(small_toml)
    assert isinstance(sc.topology, ChainTopology)
    assert sc.impairments[0].p == 0.01
    assert Scenario.from_toml(sc.to_toml()) == sc


def test_none_fields_are_omitted_for_the_core() -> None:
    data = Scenario.from_dict(BASE).to_dict()
    assert "name" not in data["flows"][0]
    assert data["flows"][0]["tcp"] == {"syn": False}
    assert "access_queue" not in data["topology"]


def test_cache_key_ignores_spelled_out_defaults() -> None:
    short = Scenario.from_dict(BASE)
    spelled = copy.deepcopy(BASE)
    spelled["topology"]["queue"] = {"kind": "droptail", "limit_packets": 100}
    spelled["flows"][0]["variant"] = "sack"  # the registry matches names case-insensitively
    long = Scenario.from_dict(spelled)
    version = engine_version()
    assert short.cache_key(3, version) == long.cache_key(3, version)
    assert short.cache_key(3, version) != short.cache_key(4, version)
    assert short.cache_key(3, version) != short.cache_key(3, version + "x")
    changed = short.with_params({"duration": 11})
    assert changed.cache_key(3, version) != short.cache_key(3, version)


def _reference_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def test_canonical_json_is_json_dumps_text_for_random_values() -> None:
    """The fast path (orjson) must write json.dumps's exact text, or the
    store's keys would change: floats across the whole range (where the two
    libraries' notations differ), every ASCII character, non-ASCII text."""
    rng = random.Random(7)
    values: list[Any] = []
    for _ in range(20_000):
        x = rng.random() * 10 ** rng.uniform(-12, 20)
        values += [x, -x, round(x, rng.randint(0, 8)), float(int(x))]
        bits = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        if math.isfinite(bits):
            values.append(bits)
    values += [0.0, -0.0, 1e-4, 9.999e-5, 1e16, 1e15, 10.00001, 5e-324, 2**63 - 1, 2**70]
    values += [chr(c) for c in range(0x100)] + ["\u2028", "\U0001f600", "x 0.00001 1e5"]
    values += [True, False, None, {"b": 1, "a": [2, {"d": 3, "c": 4}], "\u00e9": 0}, {1: 2}]
    mismatches = [v for v in values if canonical_json(v) != _reference_json(v)]
    assert mismatches == []
    for chunk in range(0, len(values), 1000):  # inside containers too
        data = {f"k{i}": v for i, v in enumerate(values[chunk : chunk + 1000])}
        assert canonical_json(data) == _reference_json(data)


def test_canonical_json_refuses_what_json_dumps_refuses() -> None:
    for bad in (float("nan"), [float("inf")], {"x": object()}):
        with pytest.raises((ValueError, TypeError)):
            canonical_json(bad)


def test_with_params_sets_nested_paths() -> None:
    sc = Scenario.from_dict(BASE).with_params(
        {"flows[0].tcp.max_window": 20, "topology.bottleneck_rate": 1e6}
    )
    assert sc.flows[0].tcp.max_window == 20
    assert isinstance(sc.topology, ChainTopology)
    assert sc.topology.bottleneck_rate == 1e6
    with pytest.raises(ScenarioError, match=r"flows\[3\]"):
        Scenario.from_dict(BASE).with_params({"flows[3].variant": "SACK"})


def test_variant_aliases_resolve_to_the_registry_name() -> None:
    data = copy.deepcopy(BASE)
    data["flows"][0]["variant"] = "inc-by-1"
    assert Scenario.from_dict(data).flows[0].variant == "DSACK-BL-INC"
    data["flows"][0]["variant"] = "TCP-RR"
    assert Scenario.from_dict(data).flows[0].variant == "DSACK-TA"


def test_with_params_that_are_not_a_mapping_of_paths_are_named() -> None:
    """Were an AttributeError ('int' object has no attribute 'items') and
    a failure inside the path parser."""
    sc = Scenario.from_dict(BASE)
    with pytest.raises(
        TypeError, match=r"^params: must be a mapping of field path -> value, got 5$"
    ):
        sc.with_params(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^params: field paths must be strings, got 3$"):
        sc.with_params({3: 1})  # type: ignore[dict-item]
