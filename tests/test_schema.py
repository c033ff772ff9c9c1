"""Each scenario field is declared once, in the Rust core; the pydantic
models and the docs' field tables are generated from the core's schema
(``python -m reorderlab._schema_gen``), and both sides check a field's
range with the same words."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from reorderlab import _core, _schema_gen
from reorderlab import _scenario_models as models
from reorderlab.scenario import Scenario, ScenarioError

from .conftest import ROOT


@pytest.fixture(scope="module")
def generated() -> tuple[str, str]:
    return _schema_gen.generate(_schema_gen.load_schema())


def test_models_are_what_the_generator_writes(generated: tuple[str, str]) -> None:
    source, _ = generated
    committed = (ROOT / "python" / "reorderlab" / "_scenario_models.py").read_text(encoding="utf-8")
    assert source == committed, "stale: run python -m reorderlab._schema_gen"


def test_docs_tables_are_what_the_generator_writes(generated: tuple[str, str]) -> None:
    _, tables = generated
    page = (ROOT / "docs" / "scenario-format.md").read_text(encoding="utf-8")
    stale = "stale: run python -m reorderlab._schema_gen"
    assert _schema_gen.docs_with(tables, page) == page, stale
    # every field of every table is in the docs, with its doc
    schema = _schema_gen.load_schema()
    for d in [schema, *schema["$defs"].values()]:
        for part in [d, *d.get("oneOf", [])]:
            for name, field in part.get("properties", {}).items():
                if "const" in field:
                    continue
                assert f"| `{name}` |" in tables, name
                doc = _schema_gen.text_of(field.get("description")).replace("|", "\\|")
                assert doc and doc in tables, name


def test_a_table_default_is_the_cores(generated: tuple[str, str]) -> None:
    """The defaults of the models dump to the defaults the core declares."""
    schema = _schema_gen.load_schema()
    props = schema["$defs"]["TrafficSpec"]["properties"]
    default = models.TrafficSpec(server="A", client="B").model_dump(exclude_none=True)
    for name in ("object_size", "page_interarrival", "inter_object", "objects_per_page"):
        assert default[name] == props[name]["default"], name
    assert default["object_size"]["scale"] == 40_000.0 * (1.2 - 1) / 1.2
    receiver = schema["$defs"]["ReceiverSpec"]
    assert models.ReceiverSpec().model_dump() == {
        k: v["default"] for k, v in receiver["properties"].items()
    }
    queue = schema["$defs"]["LinkSpec"]["properties"]["queue"]["default"]
    link = models.LinkSpec(**{"from": "A"}, to="B", rate=1e6, delay=0.0)
    given = {k: v for k, v in queue.items() if v is not None}
    assert link.queue.model_dump(exclude_none=True) == given


def test_series_names_are_the_cores() -> None:
    schema = _schema_gen.load_schema()
    series = schema["$defs"]["RecordSpec"]["properties"]["series"]
    assert tuple(series["x-known"]) == models.SERIES_NAMES
    assert "cwnd" in models.SERIES_NAMES


# -- the same words on both sides -----------------------------------------


def _var(dist: str) -> dict[str, Any]:
    return {
        "constant": {"dist": "constant", "value": 0.01},
        "uniform": {"dist": "uniform", "low": 0.001, "high": 0.01},
        "normal": {"dist": "normal", "mean": 0.02, "sd": 0.005},
        "exponential": {"dist": "exponential", "mean": 0.01},
        "pareto": {"dist": "pareto", "scale": 0.01, "shape": 1.5},
        "pareto2": {"dist": "pareto2", "scale": 0.01, "shape": 2.5},
    }[dist]


TCP = {
    "mss": 1000,
    "ack_size": 40,
    "max_window": 50,
    "initial_window": 2,
    "initial_ssthresh": 64,
    "min_rto": 0.2,
    "max_rto": 60.0,
    "initial_rto": 1.0,
    "granularity": 0.001,
    "dupthresh": 3,
    "limited_transmit_bound": 1.0,
    "fa_ratio": 0.5,
    "alpha": 0.9,
    "beta": 3.0,
}
RECEIVER = {"delack_timeout": 0.2, "delack_every": 2, "max_sack_blocks": 3}
QUEUE_RED = {"kind": "red", "limit_packets": 50, "min_th": 5.0, "max_th": 15.0, "max_p": 0.1}
QUEUE_DROPTAIL = {"kind": "droptail", "limit_packets": 60, "limit_bytes": 60_000}


def _flow(src: str, dst: str) -> dict[str, Any]:
    return {
        "src": src,
        "dst": dst,
        "start": 0.1,
        "segments": 20,
        "tcp": dict(TCP),
        "receiver": dict(RECEIVER),
    }


def _chain() -> dict[str, Any]:
    link = "R1->R2"
    return {
        "duration": 5.0,
        "warmup": 1.0,
        "topology": {
            "kind": "chain",
            "bottleneck_rate": 8e6,
            "bottleneck_delay": 0.02,
            "access_rate": 1e7,
            "access_delay": 0.001,
            "queue": dict(QUEUE_RED),
            "access_queue": dict(QUEUE_DROPTAIL),
        },
        "impairments": [
            {"link": link, "kind": "loss", "p": 0.01},
            {"link": link, "kind": "delay", "fraction": 0.1, "delay": _var("normal")},
            {"link": link, "kind": "burst_loss", "q": 0.01, "duration": _var("uniform")},
            {"link": link, "kind": "gilbert_elliott", "p_gb": 0.01, "p_bg": 0.5},
            {"link": link, "kind": "positioned", "flow": 0, "segments": [3]},
            {"link": link, "kind": "swap", "period": 0.5, "swaps": 2},
            {
                "link": link,
                "kind": "reorder",
                "interval": _var("exponential"),
                "delay": _var("constant"),
                "block": _var("pareto"),
                "max_hold": 0.05,
            },
            {
                "link": "R2->R1",
                "kind": "arq",
                "frame_error": 0.1,
                "link_rtt": 0.01,
                "max_attempts": 4,
            },
        ],
        "flows": [_flow("S1", "D")],
        "traffic": [
            {
                "kind": "page",
                "server": "S1",
                "client": "D",
                "sessions": 2,
                "start": 0.5,
                "stop": 4.0,
                "connections": 4,
                "object_sizes": [1000.0, 2000.0],
                "page_interarrival": _var("pareto2"),
                "tcp": dict(TCP),
                "receiver": dict(RECEIVER),
            }
        ],
        "record": {"series": ["cwnd"], "interval": 0.1, "flows": [0], "trace_window": [1.0, 2.0]},
    }


def _dumbbell() -> dict[str, Any]:
    return {
        "duration": 5.0,
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "access_delays": [0.001, 0.002],
            "bottleneck_rate": 8e6,
            "bottleneck_delay": 0.02,
        },
        "flows": [_flow("S0", "D0")],
    }


def _parking_lot() -> dict[str, Any]:
    return {
        "duration": 5.0,
        "topology": {
            "kind": "parking_lot",
            "hop_rates": [5e6, 4e6],
            "hop_delay": 0.002,
            "cross_access_rates": [5e6, 2e6],
        },
        "flows": [_flow("S", "D")],
    }


def _custom() -> dict[str, Any]:
    link = {"rate": 1e7, "delay": 0.01, "queue": dict(QUEUE_DROPTAIL)}
    return {
        "duration": 5.0,
        "topology": {
            "kind": "custom",
            "nodes": ["A", "B", "C"],
            "links": [
                {"from": "A", "to": "B", **link},
                {"from": "B", "to": "C", **link},
                {"from": "A", "to": "C", **link},
            ],
        },
        "multipath": [
            {"at": "A", "dst": "C", "paths": [["A->C"], ["A->B", "B->C"]], "epsilon": 1.0}
        ],
        "flows": [_flow("A", "C")],
    }


BASES = {"chain": _chain, "dumbbell": _dumbbell, "parking_lot": _parking_lot, "custom": _custom}

# (a negative integer is a type error in the core: its integers are unsigned)
FLOATS = [-1.5, -0.5, -0.0, 0.0, 1e-12, 0.5, 1.0, 1.5, 2.0, 5e9, 2e12]
INTEGERS = [0, 1, 2, 4, 5, 65, 70_000, 100_001, 1_000_001]


def _number_leaves(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in _number_leaves(v, (*path, k))]
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj) for p in _number_leaves(v, (*path, i))]
    return [path] if isinstance(obj, int | float) and not isinstance(obj, bool) else []


def _set(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    cur: Any = out
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = value
    return out


def _words_of_old(python: str, core: str | None) -> bool:
    """The one difference kept: an integer below its two bounds is ``>= 1``
    for the Python front (as pydantic always said) and ``in 1..=64`` for
    the core (as it always said; tests of both check them)."""
    mine = re.fullmatch(r"(\S+): must be >= (\d+), got (\d+)", python)
    theirs = re.fullmatch(r"(\S+): must be in (\d+)\.\.=\d+( \w+)?, got (\d+)", core or "")
    return bool(mine and theirs) and (mine[1], mine[2], mine[3]) == (
        theirs[1],
        theirs[2],
        theirs[4],
    )


def _core_error(data: dict[str, Any]) -> str | None:
    try:
        _core.validate(json.dumps(data))
    except ValueError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("base", list(BASES))
def test_python_and_the_core_refuse_a_range_alike(base: str) -> None:
    """Every number of a scenario using every table, set to values in and
    out of its range: where the Python front refuses it, the core refuses
    it with the same line (both check the schema's declared range)."""
    data = BASES[base]()
    Scenario.from_dict(data)  # valid
    assert _core_error(data) is None
    compared = 0
    for path in _number_leaves(data):
        leaf: Any = data
        for key in path:
            leaf = leaf[key]
        for value in INTEGERS if isinstance(leaf, int) else FLOATS:
            changed = _set(data, path, value)
            try:
                Scenario.from_dict(changed)
            except ScenarioError as exc:
                core = _core_error(changed)
                if core is not None and "expected u8" in core:
                    continue  # outside the core's type (parsing refuses it)
                if len(exc.errors) == 1 and " must be " in str(exc):
                    assert str(exc) == core or _words_of_old(str(exc), core), (path, value)
                    compared += 1
    assert compared >= 40, compared


def test_a_range_message_names_the_field_and_the_value() -> None:
    data = _set(_chain(), ("flows", 0, "receiver", "max_sack_blocks"), 5)
    assert _core_error(data) == "flows[0].receiver.max_sack_blocks: must be in 1..=4, got 5"
    data = _set(_chain(), ("traffic", 0, "connections"), 0)
    with pytest.raises(ScenarioError, match=r"^traffic\[0\]\.connections: must be >= 1, got 0$"):
        Scenario.from_dict(data)
    assert _core_error(data) == "traffic[0].connections: must be in 1..=64, got 0"
    data = _set(_chain(), ("flows", 0, "tcp", "mss"), 70_000)
    with pytest.raises(ScenarioError, match=r"mss: must be in 1\.\.=65535 bytes, got 70000$"):
        Scenario.from_dict(data)
