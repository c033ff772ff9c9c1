"""The small traps of issue 41: "did you mean" for a mistyped name, ``run
--out`` into a folder of another run, the trace's ``copy`` column, and an
``emulate --help`` that lists what its docs list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import reorderlab as rl

from .conftest import SMALL_TOML, run_cli, small_scenario


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"flows[0].variant": "RACK"},
            "flows[0].variant: unknown variant 'RACK' (did you mean 'RACK-TLP'?) (known: Reno,",
        ),
        (
            {"flows[0].variant": "DSACK-TAA"},
            "flows[0].variant: unknown variant 'DSACK-TAA' (did you mean 'DSACK-TA'?)",
        ),
        (
            {"flows[0].cc": "cubik"},
            "flows[0].cc: unknown congestion control 'cubik' (did you mean 'cubic'?)",
        ),
        (
            {"impairments[0].kind": "los"},
            "impairments[0].kind: unknown kind 'los' (did you mean 'loss'?) (known: 'loss',",
        ),
        (
            {"topology.bottleneck_rates": 1e6},
            "topology.bottleneck_rates: unknown field (did you mean 'bottleneck_rate'?), got",
        ),
        (
            {"flows[0].tcp.max_windw": 5},
            "flows[0].tcp.max_windw: unknown field (did you mean 'max_window'?), got 5",
        ),
        (
            {"flows[0].receiver.delayed_ack": "rfc112"},
            "flows[0].receiver.delayed_ack: must be one of 'none', 'rfc1122' or 'quickack', "
            "got 'rfc112' (did you mean 'rfc1122'?)",
        ),
    ],
)
def test_a_mistyped_name_gets_the_closest_known_one(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(rl.ScenarioError) as info:
        small_scenario().with_params(change)
    assert str(info.value).startswith(message)


def test_nothing_close_gets_no_suggestion() -> None:
    with pytest.raises(rl.ScenarioError) as info:
        small_scenario().with_params({"flows[0].variant": "QQQ"})
    assert "did you mean" not in str(info.value)


def test_compare_s_variants_get_a_suggestion(tmp_path: Path, cli_env: dict[str, str]) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SMALL_TOML, "utf-8")
    proc = run_cli(["compare", str(path), "--variants", "SACK,linux-er,RACK"], cli_env)
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        f"error: {path}: variants[2]: unknown variant 'RACK' (did you mean 'RACK-TLP'?) (known:"
    )


def test_run_out_refuses_another_run_s_folder_unless_forced(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """Issue 41: ``run --out`` into a used folder left a stale
    ``series_flow0.csv`` of the earlier run."""
    path = tmp_path / "s.toml"
    path.write_text(SMALL_TOML, "utf-8")
    out = tmp_path / "out"
    first = run_cli(["run", str(path), "--out", str(out), "--no-cache"], cli_env)
    assert first.returncode == 0, first.stderr
    assert (out / "series_flow0.csv").is_file()
    # the same run again: its own folder, rewritten
    same = run_cli(["run", str(path), "--out", str(out), "--no-cache"], cli_env)
    assert same.returncode == 0, same.stderr
    # another seed: refused, nothing written
    other = run_cli(["run", str(path), "--out", str(out), "--seed", "2", "--no-cache"], cli_env)
    assert other.returncode == 2
    assert other.stderr.strip() == (
        f"error: --out {out}: the folder holds the result of scenario 'small', seed 1; "
        "choose an empty folder, or add --force to replace the run's files there"
    )
    # another scenario that records no series, forced: no stale series left
    quiet = tmp_path / "quiet.toml"
    quiet.write_text(SMALL_TOML.replace('series = ["cwnd", "srtt"]', "series = []"), "utf-8")
    forced = run_cli(["run", str(quiet), "--out", str(out), "--force", "--no-cache"], cli_env)
    assert forced.returncode == 0, forced.stderr
    assert not (out / "series_flow0.csv").exists()
    assert json.loads((out / "result.json").read_text())["seed"] == 1
    # a folder of something else
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("x", "utf-8")
    refused = run_cli(["run", str(path), "--out", str(notes), "--no-cache"], cli_env)
    assert refused.returncode == 2
    assert "the folder holds 1 file(s) of something else (todo.txt)" in refused.stderr
    assert (notes / "todo.txt").read_text() == "x"


def test_the_trace_column_is_not_named_copy() -> None:
    sc = small_scenario().with_params({"record.trace_window": [0.0, 1.0]})
    sent = rl.run(sc).trace(0)["sent"]
    assert list(sent.columns) == ["t", "seq", "transmission"]
    assert "copy" not in sent.columns and callable(sent.copy)
    assert (sent["transmission"] >= 0).all() and len(sent) > 10


def test_emulate_help_lists_every_placeholder_and_what_it_needs(cli_env: dict[str, str]) -> None:
    proc = run_cli(["emulate", "--help"], cli_env)
    assert proc.returncode == 0
    text = proc.stdout
    for word in ("{sender}", "{receiver}", "{port}", "{flow}", "{duration}"):
        assert word in text
    for word in ("RL_SENDER_ADDR", "RL_RECEIVER_ADDR", "RL_PORT", "RL_FLOW", "RL_DURATION"):
        assert word in text
    for word in ("[emulation]", "pcap_snaplen", "Linux-classic", "/dev/net/tun", "tcpinfo.jsonl"):
        assert word in text
    doc = (Path(__file__).resolve().parents[1] / "docs" / "emulation.md").read_text("utf-8")
    assert all(p in doc for p in ("{flow}", "{duration}", "RL_FLOW"))
