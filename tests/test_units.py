"""Units where people write them (issue 41): ``"100Mbps"``, ``"30ms"``,
``"1.5MB"`` in a rate, time or size field, read exactly into the number
in the field's unit, so that the cache key does not change."""

from __future__ import annotations

import pytest

import reorderlab as rl
from reorderlab.units import UNITS, UnitError, parse_quantity

BASE = {
    "duration": 10.0,
    "topology": {"kind": "chain", "bottleneck_rate": 8e6, "bottleneck_delay": 0.023},
    "flows": [{"src": "S1", "dst": "D"}],
}


def scenario(**topology: object) -> rl.Scenario:
    return rl.Scenario.from_dict({**BASE, "topology": {**BASE["topology"], **topology}})


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("30ms", "s", 0.03),
        ("0.3 ms", "s", 0.0003),
        ("23ms", "s", 0.023),
        ("250us", "s", 0.00025),
        ("1.5min", "s", 90.0),
        ("100Mbps", "bit/s", 1e8),
        ("100mbit", "bit/s", 1e8),
        ("1.66Mb/s", "bit/s", 1.66e6),
        ("10kbps", "bit/s", 1e4),
        ("2.5Gbps", "bit/s", 2.5e9),
        ("1MB/s", "bit/s", 8e6),
        ("1.5MB", "bytes", 1_500_000),
        ("64KiB", "bytes", 65_536),
        ("1500B", "bytes", 1500),
    ],
)
def test_a_quantity_is_the_number_written_in_the_base_unit(
    text: str, unit: str, value: float
) -> None:
    got = parse_quantity(text, unit)
    assert got == value and type(got) is type(value)


def test_units_give_the_same_scenario_and_cache_key() -> None:
    written = scenario(
        bottleneck_rate="8Mbps",
        bottleneck_delay="23ms",
        access_rate="10Mbps",
        queue={"kind": "droptail", "limit_bytes": "1.5MB"},
    )
    plain = scenario(
        bottleneck_rate=8e6,
        bottleneck_delay=0.023,
        access_rate=1e7,
        queue={"kind": "droptail", "limit_bytes": 1500000},
    )
    assert written.to_json() == plain.to_json()
    assert written.canonical_json(1) == plain.canonical_json(1)
    assert written.cache_key(1, "v") == plain.cache_key(1, "v")
    # 30 x 0.001 in floating point is 0.030000000000000002: not what is read
    assert scenario(bottleneck_delay="30ms").topology.bottleneck_delay == 0.03


def test_units_in_toml_and_in_a_grid() -> None:
    sc = rl.Scenario.from_toml(
        'duration = "10s"\n[topology]\nkind = "chain"\nbottleneck_rate = "8Mbps"\n'
        'bottleneck_delay = "23ms"\n[[flows]]\nsrc = "S1"\ndst = "D"\n'
        '[flows.tcp]\nmin_rto = "200ms"\nmss = "1500B"\n'
    )
    assert (sc.duration, sc.flows[0].tcp.min_rto, sc.flows[0].tcp.mss) == (10.0, 0.2, 1500)
    assert sc.with_params({"topology.bottleneck_rate": "1Gbps"}).topology.bottleneck_rate == 1e9


@pytest.mark.parametrize(
    ("field", "text", "message"),
    [
        (
            "bottleneck_rate",
            "100mbps",
            "topology.bottleneck_rate: unknown unit 'mbps' in '100mbps' (tc reads it as "
            "megabytes/s: write 'Mbps' or 'mbit' (bits) or 'MB/s' (bytes))",
        ),
        (
            "bottleneck_delay",
            "30 furlongs",
            "topology.bottleneck_delay: unknown unit 'furlongs' in '30 furlongs' (known: ns, "
            "nsec, us, usec, ms, msec, s, sec, secs, min, h)",
        ),
        (
            "bottleneck_delay",
            "fast",
            "topology.bottleneck_delay: must be a number or a number with a unit (ns, nsec, "
            "us, usec, ms, msec, s, sec, secs, min, h), got 'fast'",
        ),
        ("bottleneck_delay", "-5ms", "topology.bottleneck_delay: must be >= 0, got -0.005"),
        ("bottleneck_rate", "0Mbps", "topology.bottleneck_rate: must be > 0, got 0"),
    ],
)
def test_a_bad_quantity_names_the_field(field: str, text: str, message: str) -> None:
    with pytest.raises(rl.ScenarioError) as info:
        scenario(**{field: text})
    assert str(info.value) == message


def test_a_byte_count_must_be_whole_and_a_count_takes_no_unit() -> None:
    with pytest.raises(rl.ScenarioError, match=r"limit_bytes: must be a whole number of bytes"):
        scenario(queue={"kind": "droptail", "limit_bytes": "1.5B"})
    # packets and segments are counts: no unit
    with pytest.raises(rl.ScenarioError, match=r"limit_packets: must be an integer"):
        scenario(queue={"kind": "droptail", "limit_packets": "100p"})
    with pytest.raises(UnitError):
        parse_quantity("1.5", "s")


def test_the_units_are_documented_in_the_generated_field_reference() -> None:
    from reorderlab._schema_gen import ROOT

    doc = (ROOT / "docs" / "scenario-format.md").read_text("utf-8")
    for unit, suffixes in UNITS.items():
        row = next(line for line in doc.splitlines() if line.startswith(f"| {unit} | "))
        assert all(f"`{s}`" in row for s in suffixes)
    assert '| `bottleneck_rate` | number or `"100Mbps"` |' in doc
