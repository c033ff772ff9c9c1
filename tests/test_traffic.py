"""Traffic generators and fairness metrics from Python."""

from __future__ import annotations

import pytest

import reorderlab
from reorderlab.scenario import Scenario, ScenarioError
from reorderlab.sweep import flatten_result

TOML = """
name = "web"
duration = 20.0
warmup = 5.0

[topology]
kind = "dumbbell"
pairs = 2
access_rate = 100e6
bottleneck_rate = 15e6
bottleneck_delay = 0.008

[[flows]]
src = "S0"
dst = "D0"
variant = "TCP-PR"

[[flows]]
src = "S1"
dst = "D1"
variant = "SACK"

[[traffic]]
name = "web"
server = "R1"
client = "R2"
sessions = 5
closed_loop = true
object_size = { dist = "pareto", scale = 6666.67, shape = 1.2 }

[record]
objects = true
"""


def test_traffic_loads_from_toml_with_tcp_pr_defaults() -> None:
    sc = Scenario.from_toml(TOML)
    gen = sc.traffic[0]
    assert gen.sessions == 5 and gen.closed_loop
    assert gen.page_interarrival.model_dump() == {"dist": "exponential", "mean": 1.0}
    assert gen.inter_object.model_dump() == {"dist": "exponential", "mean": 0.01}
    assert Scenario.from_toml(sc.to_toml()) == sc


def test_run_reports_traffic_objects_and_fairness() -> None:
    r = reorderlab.run(Scenario.from_toml(TOML), seed=2)
    assert list(r.flows.index) == [0, 1]
    table = r.traffic
    assert list(table.index) == ["web"]
    objects = r.objects("web")
    assert len(objects) == int(table.loc["web", "objects"]) > 20
    assert objects["segments"].min() >= 7  # Pareto scale 6667 B in 1000-B segments
    done = objects.dropna(subset=["oct"])
    assert len(done) == int(table.loc["web", "objects_completed"])
    fair = r.fairness
    assert fair is not None
    groups = {g["variant"]: g for g in fair["groups"]}
    assert set(groups) == {"TCP-PR", "SACK"}
    # Normalized throughputs average to 1 over all flows.
    norms = r.flows["normalized_throughput"]
    assert norms.mean() == pytest.approx(1.0)
    assert 0 < fair["jain_index"] <= 1
    row = flatten_result(r.to_dict())
    assert row["norm.TCP-PR"] == pytest.approx(groups["TCP-PR"]["mean_normalized_throughput"])
    assert row["web.objects"] == table.loc["web", "objects"]
    with pytest.raises(KeyError, match="no traffic generator"):
        r.objects("nope")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"client": "Nowhere"}, "traffic[0].client: unknown node 'Nowhere'"),
        ({"client": "R1"}, "traffic[0].client: must differ from server, got 'R1'"),
        ({"sessions": 0}, "traffic[0].sessions"),
        ({"stop": 0.0}, "traffic[0].stop"),
        ({"variant": "Bogus"}, "traffic[0].variant: unknown variant 'Bogus'"),
        ({"object_size": {"dist": "exponential", "mean": -3}}, "traffic[0].object_size"),
    ],
)
def test_bad_traffic_names_the_field(change: dict[str, object], message: str) -> None:
    data = Scenario.from_toml(TOML).model_dump(mode="json")
    data["traffic"][0].update(change)
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(data)
    assert message in str(err.value)


def test_traffic_without_flows_is_a_valid_scenario() -> None:
    data = Scenario.from_toml(TOML).model_dump(mode="json")
    data["flows"] = []
    r = reorderlab.run(Scenario.from_dict(data), seed=1)
    assert r.flows.empty and r.fairness is None
    assert int(r.traffic.loc["web", "objects"]) > 0


def test_docs_traffic_example_is_a_valid_generator() -> None:
    import re

    from .conftest import ROOT

    text = (ROOT / "docs" / "traffic.md").read_text(encoding="utf-8")
    block = re.findall(r"```toml\n(.*?)```", text, flags=re.S)[0]
    head = (
        'duration = 10.0\n[topology]\nkind = "dumbbell"\npairs = 1\n'
        "bottleneck_rate = 1e7\nbottleneck_delay = 0.01\n"
    )
    sc = Scenario.from_toml(head + block)
    gen = sc.traffic[0]
    assert gen.name == "web" and gen.sessions == 50 and not gen.closed_loop
    assert gen.object_size.model_dump()["shape"] == 1.2


PAGE_TOML = """
duration = 30.0

[topology]
kind = "chain"
access_rate = 1e9
bottleneck_rate = 1e7
bottleneck_delay = 0.003

[[traffic]]
name = "site"
kind = "page"
server = "S1"
client = "D"
connections = 2
object_sizes = [20000, 5000, 30000, 1000]
page_interarrival = { dist = "constant", value = 1.0 }
variant = "TLP"

[record]
objects = true
"""


def test_page_traffic_round_trips_through_toml() -> None:
    sc = Scenario.from_toml(PAGE_TOML)
    gen = sc.traffic[0]
    assert gen.kind == "page" and gen.connections == 2
    assert gen.object_sizes == [20000.0, 5000.0, 30000.0, 1000.0]
    assert Scenario.from_toml(sc.to_toml()) == sc
    # Unset page fields stay out of the JSON (and so out of the cache key of
    # every existing http scenario).
    http = Scenario.from_toml(TOML).to_json()
    assert "connections" not in http and "object_sizes" not in http


def test_page_run_lists_objects_per_page_and_connection() -> None:
    r = reorderlab.run(Scenario.from_toml(PAGE_TOML), seed=1)
    t = r.traffic.loc["site"]
    assert t["kind"] == "page"
    objs = r.objects("site")
    assert len(objs) == int(t["objects"]) == 4 * int(t["pages"])
    assert int(t["connections"]) == 2 * int(t["pages"])  # never more than 2
    assert set(objs["connection"]) == {0, 1}
    first = objs[objs["page"] == 0].set_index("index")
    assert list(first["segments"]) == [20, 5, 30, 1]
    html_done = first.loc[0, "start"] + first.loc[0, "oct"]
    assert (first.loc[1:, "start"] >= html_done - 1e-12).all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"connections": 0}, "traffic[0].connections: must be >= 1, got 0"),
        ({"object_sizes": []}, "traffic[0].object_sizes: must list at least one object"),
        ({"object_sizes": [1000, -2]}, "traffic[0].object_sizes[1]: must be > 0, got -2"),
        ({"kind": "http"}, 'traffic[0].connections: is only used by kind = "page"'),
        ({"kind": "pages"}, "traffic[0].kind"),
    ],
)
def test_bad_page_fields_name_the_field(change: dict[str, object], message: str) -> None:
    data = Scenario.from_toml(PAGE_TOML).model_dump(mode="json")
    data["traffic"][0].update(change)
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(data)
    assert message in str(err.value)


def test_docs_page_example_is_a_valid_generator() -> None:
    import re

    from .conftest import ROOT

    text = (ROOT / "docs" / "traffic.md").read_text(encoding="utf-8")
    block = re.findall(r"```toml\n(.*?)```", text, flags=re.S)[1]
    head = (
        'duration = 10.0\n[topology]\nkind = "chain"\n'
        "bottleneck_rate = 1e7\nbottleneck_delay = 0.01\n"
    )
    sc = Scenario.from_toml(head + block)
    gen = sc.traffic[0]
    assert gen.kind == "page" and gen.connections == 6 and gen.object_sizes is not None
    r = reorderlab.run(sc, seed=1)
    assert int(r.traffic.loc["site", "pages_completed"]) >= 1
