"""Pictures of one run (issue 41): ``reorderlab plot``, ``run --plot`` and
``Result.plot_tsg``. What is drawn must be what the run recorded: the
tests compare the artists' data with the trace, and the recorded causes
and ground truth with the flow's own counters."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

import reorderlab as rl
from reorderlab.runplots import KINDS, NoDataError, with_plot_recording, write_plots
from reorderlab.runplots.data import CAUSES, tsg_data
from reorderlab.scenario import Scenario, ScenarioError

from .conftest import run_cli

#: RACK-TLP over a lossy,
#: reordering chain: fast retransmits, timeouts, loss probes, spurious
#: ones and DSACKs in a few seconds.
BUSY = """\
name = "busy"
duration = 20.0
seed = 3

[topology]
kind = "chain"
bottleneck_rate = 8e6
bottleneck_delay = 0.023

[[impairments]]
link = "R1->R2"
kind = "loss"
p = 0.03

[[impairments]]
link = "R1->R2"
kind = "delay"
fraction = 0.03
delay = { dist = "constant", value = 0.03 }

[[flows]]
name = "f0"
src = "S1"
dst = "D"
variant = "RACK-TLP"

[flows.tcp]
max_window = 40
"""


@pytest.fixture(scope="module")
def busy() -> rl.Result:
    return rl.run(with_plot_recording(Scenario.from_toml(BUSY)))


def _gid(fig: Figure, gid: str) -> list[object]:
    return [a for a in fig.axes[0].get_children() if a.get_gid() == gid]


def test_recording_for_pictures_leaves_the_run_unchanged() -> None:
    sc = Scenario.from_toml(BUSY)
    plain, recorded = rl.run(sc), rl.run(with_plot_recording(sc))
    assert plain.flow_records() == recorded.flow_records()
    assert plain.links.equals(recorded.links)
    assert "trace_details" not in plain.to_dict()
    assert "trace_details" in recorded.to_dict()


def test_causes_and_ground_truth_match_the_flows_counters(busy: rl.Result) -> None:
    detail = busy.to_dict()["trace_details"]["flows"]["0"]
    flow = busy.flow(0)
    causes = detail["retx_cause"]
    assert len(causes) == flow["retransmits"] > 0
    for cause in CAUSES:
        assert causes.count(cause) == flow[f"{cause}_retransmits"], cause
    assert sum(detail["retx_spurious"]) == flow["spurious_retransmits"] > 0
    # every traced retransmission is one of the trace's copies >= 1, in order
    trace = busy.to_dict()["traces"]["0"]
    again = [i for i, c in enumerate(trace["send_copy"]) if c > 0]
    assert detail["retx_seq"] == [trace["send_seq"][i] for i in again]
    assert detail["retx_t"] == [trace["send_t"][i] for i in again]


def test_the_drawn_retransmissions_are_the_traces(busy: rl.Result) -> None:
    fig = busy.plot_tsg(0)
    detail = busy.to_dict()["trace_details"]["flows"]["0"]
    t = np.asarray(detail["retx_t"])
    seq = np.asarray(detail["retx_seq"])
    cause = np.asarray(detail["retx_cause"])
    spurious = np.asarray(detail["retx_spurious"])
    drawn = 0
    for c in CAUSES:
        for sp in (False, True):
            mask = (cause == c) & (spurious == sp)
            lines = _gid(fig, f"retx-{c}" + ("-spurious" if sp else ""))
            if not mask.any():
                assert lines == []
                continue
            (line,) = lines
            assert np.array_equal(line.get_xdata(), t[mask])  # type: ignore[attr-defined]
            assert np.array_equal(line.get_ydata(), seq[mask] + 0.5)  # type: ignore[attr-defined]
            drawn += int(mask.sum())
    assert drawn == len(t) > 0
    (acks,) = _gid(fig, "acks")
    trace = busy.to_dict()["traces"]["0"]
    assert np.array_equal(acks.get_xdata(), trace["ack_t"])  # type: ignore[attr-defined]
    (edge,) = _gid(fig, "rwnd")
    expected = np.asarray(trace["ack_seq"]) + 40
    assert np.array_equal(edge.get_ydata(), expected)  # type: ignore[attr-defined]
    segs = _gid(fig, "segments")[0]
    firsts = sum(1 for c in trace["send_copy"] if c == 0)
    assert len(segs.get_segments()) == firsts  # type: ignore[attr-defined]
    sacks = sum(len(s.get_segments()) for g in ("sack", "dsack") for s in _gid(fig, g))  # type: ignore[attr-defined]
    assert sacks == len(detail["sack_t"]) > 0
    assert _gid(fig, "dsack"), "a spurious retransmission brings a DSACK"


def test_a_window_keeps_only_its_span(busy: rl.Result) -> None:
    d = tsg_data(busy, 0, (5.0, 6.0))
    every = [d.new_t, d.ack_t, d.sack_t, d.drop_t, *(r.t for r in d.retx.values())]
    assert all(((x >= 5.0) & (x <= 6.0)).all() for x in every)
    assert len(d.new_t) > 0 and len(d.new_t) < len(tsg_data(busy, 0).new_t)


def test_every_picture_is_written(busy: rl.Result, tmp_path: Path) -> None:
    written, missing = write_plots(busy, tmp_path)
    assert [p.name for p in written] == [
        "tsg_flow0.png",
        "cwnd_flow0.png",
        "rtt_flow0.png",
        "queue.png",
    ]
    assert missing == []
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)
    assert len(KINDS) == len(written)


def test_a_run_without_a_trace_says_what_to_record(small: Scenario, tmp_path: Path) -> None:
    res = rl.run(small)  # records cwnd and srtt, no trace
    with pytest.raises(NoDataError, match=r"tsg: .*record\.trace_window"):
        write_plots(res, tmp_path, kinds=["tsg"])
    written, missing = write_plots(res, tmp_path)
    assert [p.name for p in written] == ["cwnd_flow0.png", "rtt_flow0.png"]
    assert [m.split(":")[0] for m in missing] == ["tsg", "queue"]


def test_details_need_a_trace_window(small: Scenario) -> None:
    with pytest.raises(ScenarioError, match=r"record\.trace_details"):
        small.with_params({"record.trace_details": True})


def test_a_stored_detailed_run_reads_back_the_same(busy: rl.Result, tmp_path: Path) -> None:
    sc = with_plot_recording(Scenario.from_toml(BUSY))
    store = tmp_path / "s.duckdb"
    first = rl.run(sc, store=store)
    again = rl.run(sc, store=store)
    assert again.cached
    assert again.to_dict()["trace_details"] == first.to_dict()["trace_details"]
    assert first.to_dict()["trace_details"] == busy.to_dict()["trace_details"]


def test_cli_run_plot_then_plot_the_folder(tmp_path: Path, cli_env: dict[str, str]) -> None:
    (tmp_path / "busy.toml").write_text(BUSY, encoding="utf-8")
    out = tmp_path / "out"
    r = run_cli(["run", "busy.toml", "--plot", "--out", str(out)], cli_env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("tsg_flow0.png", "cwnd_flow0.png", "rtt_flow0.png", "queue.png", "flows.csv"):
        assert (out / name).is_file(), name
    (out / "tsg_flow0.png").unlink()
    r = run_cli(["plot", str(out), "--kind", "tsg", "--window", "2:4"], cli_env)
    assert r.returncode == 0, r.stderr
    assert f"wrote {out / 'tsg_flow0.png'}" in r.stdout
    r = run_cli(["plot", str(out), "--window", "4:2"], cli_env)
    assert r.returncode == 2
    assert r.stderr.strip() == "error: --window: must have 0 <= FROM < UNTIL, got '4:2'"
    r = run_cli(["plot", str(out), "--flow", "3"], cli_env)
    assert r.returncode == 2
    assert r.stderr.strip() == "error: --flow: no flow 3 (the run has 1)"


def test_cli_plot_of_a_scenario_writes_csvs_and_pictures(
    small_toml: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    out = tmp_path / "pics"
    r = run_cli(["plot", str(small_toml), "--out", str(out)], cli_env)
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in out.iterdir())
    assert {"result.json", "flows.csv", "tsg_flow0.png", "queue.png"} <= set(names)
    r = run_cli(["plot", str(tmp_path / "nowhere")], cli_env)
    assert r.returncode == 2 and r.stderr.startswith("error: ")


def test_cli_run_plot_json_draws_and_keeps_stdout_json(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """`run --plot --json` printed the JSON and drew nothing: it draws now,
    and says what it wrote on stderr (stdout is the JSON alone)."""
    (tmp_path / "busy.toml").write_text(BUSY, encoding="utf-8")
    out = tmp_path / "out"
    r = run_cli(["run", "busy.toml", "--plot", "--json", "--out", str(out)], cli_env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["flows"][0]["flow"] == 0
    for name in ("tsg_flow0.png", "cwnd_flow0.png", "rtt_flow0.png", "queue.png"):
        assert (out / name).is_file(), name
        assert f"wrote {out / name}" in r.stderr


def test_cli_run_force_leaves_no_picture_of_the_run_it_replaces(
    tmp_path: Path, cli_env: dict[str, str], small_toml: Path
) -> None:
    """`run --out X --force` over another run's folder removed its CSVs but
    left its pictures (`--plot`), stale beside the new result."""
    (tmp_path / "busy.toml").write_text(BUSY, encoding="utf-8")
    out = tmp_path / "out"
    r = run_cli(["run", "busy.toml", "--plot", "--out", str(out)], cli_env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (out / "queue.png").is_file()
    r = run_cli(["run", str(small_toml), "--out", str(out), "--force"], cli_env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.glob("*.png")) == []
    assert json.loads((out / "result.json").read_text())["scenario"] != "busy"
