"""A QUIC flow refuses the TCP sender and receiver fields it would ignore,
and a TCP flow the QUIC ones: one line naming the field and the value,
from Python and from the command line (docs/quic.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import reorderlab as rl
from reorderlab.scenario_errors import ScenarioError

from .conftest import run_cli


def _scenario(flow: dict[str, Any]) -> dict[str, Any]:
    return {
        "duration": 1.0,
        "topology": {"kind": "chain", "bottleneck_rate": 1e7, "bottleneck_delay": 0.01},
        "flows": [{"src": "S1", "dst": "D", **flow}],
    }


@pytest.mark.parametrize(
    ("flow", "message"),
    [
        (
            {"variant": "QUIC", "tcp": {"mss": 1200, "max_window": 50}},
            "flows[0].tcp.max_window: is for TCP flows; a QUIC flow reads only tcp.mss and"
            " tcp.ack_size",
        ),
        (
            {"variant": "QUIC-quiche", "tcp": {"min_rto": 0.2}},
            "flows[0].tcp.min_rto: is for TCP flows",
        ),
        (
            {"variant": "QUIC", "receiver": {"delayed_ack": "rfc1122"}},
            "flows[0].receiver.delayed_ack: is for TCP receivers",
        ),
        (
            {"variant": "SACK", "quic": {"packet_threshold": 10}},
            "flows[0].quic: is only for a QUIC variant",
        ),
    ],
)
def test_fields_the_other_transport_reads_are_refused(flow: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        rl.Scenario.from_dict(_scenario(flow))
    text = str(err.value)
    assert message in text, text
    assert len(text.strip().splitlines()) == 1


def test_the_value_is_named() -> None:
    with pytest.raises(ScenarioError) as err:
        rl.Scenario.from_dict(_scenario({"variant": "QUIC", "tcp": {"max_window": 50}}))
    assert str(err.value).rstrip().endswith("got 50"), str(err.value)


def test_packet_sizes_are_read_by_quic() -> None:
    sc = rl.Scenario.from_dict(
        _scenario({"variant": "QUIC", "tcp": {"mss": 1200, "ack_size": 60}, "segments": 20})
    )
    assert sc.flows[0].tcp.mss == 1200


def test_the_cli_refuses_on_one_line(tmp_path: Path, cli_env: dict[str, str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'duration = 1.0\n[topology]\nkind = "chain"\nbottleneck_rate = 1e7\n'
        'bottleneck_delay = 0.01\n[[flows]]\nsrc = "S1"\ndst = "D"\nvariant = "QUIC"\n'
        "[flows.tcp]\nmax_window = 50\n",
        encoding="utf-8",
    )
    proc = run_cli(["run", str(bad)], cli_env)
    assert proc.returncode == 2
    assert "flows[0].tcp.max_window: is for TCP flows" in proc.stderr
    assert "got 50" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
