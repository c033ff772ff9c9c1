"""No silent traps (issue 41): a valid scenario that probably does not mean
what its author meant is warned about, one line naming the field, by
``reorderlab check`` and before ``run`` / ``sweep`` / ``compare``;
``--strict`` makes the warnings errors. Each trap of the issue has its
message tested here."""

from __future__ import annotations

from pathlib import Path

import pytest

import reorderlab as rl
from reorderlab.lint import check

from .conftest import ROOT, run_cli

#: The newcomer's path: "100 Mb/s, 30 ms" on the chain, everything else
#: left at its default (the access links: 10 Mb/s).
NEWCOMER = """\
name = "newcomer"
duration = 20.0

[topology]
kind = "chain"
bottleneck_rate = "100Mbps"
bottleneck_delay = "30ms"

[[flows]]
src = "S1"
dst = "D"
"""


def traps(text: str, **params: object) -> dict[str, str]:
    sc = rl.Scenario.from_toml(text)
    if params:
        sc = sc.with_params(params)
    return {t.path: t.message for t in check(sc)}


def test_a_bottleneck_that_is_not_the_narrowest_link() -> None:
    found = traps(NEWCOMER)
    assert found["topology.access_rate"] == (
        "10 Mb/s on S1->R1 is below the bottleneck topology.bottleneck_rate (100 Mb/s): "
        "the access link, not the bottleneck, limits flows[0]"
    )
    fixed = traps(NEWCOMER, **{"topology.access_rate": 1e9})
    assert "topology.access_rate" not in fixed


def test_a_queue_below_half_a_bdp() -> None:
    found = traps(NEWCOMER, **{"topology.access_rate": 1e9})
    # 100 Mb/s x 64 ms round-trip propagation / 1000-byte packets = 800 packets
    assert found["topology.queue"] == (
        "100 packets is 0.12 BDP of flows[0]'s path (100 Mb/s on R1->R2, 64 ms round-trip "
        "propagation, 1000-byte packets), whose BDP is 800 packets: expect queue drops at "
        "R1->R2"
    )
    enough = traps(NEWCOMER, **{"topology.access_rate": 1e9, "topology.queue.limit_packets": 800})
    assert "topology.queue" not in enough


def test_a_queue_above_ten_bdps_and_one_in_bytes() -> None:
    chain = (ROOT / "examples" / "chain.toml").read_text("utf-8")
    found = traps(chain, **{"topology.queue.limit_packets": 1000})
    assert found["topology.queue"].startswith("1000 packets is 20 BDPs of flows[0]'s path")
    assert found["topology.queue"].endswith("a full queue adds 1 s to the RTT")
    in_bytes = {"topology.queue": {"kind": "droptail", "limit_bytes": "10kB"}}
    assert traps(chain, **in_bytes)["topology.queue"].startswith("10 packets is 0.20 BDP")


def test_a_packet_that_takes_longer_to_send_than_the_run() -> None:
    slow = traps(NEWCOMER, duration=0.5, **{"topology.bottleneck_rate": "10kbps"})
    assert slow["topology.bottleneck_rate"] == (
        "one 1000-byte packet of flows[0] takes 800 ms to send on R1->R2 at 10 kb/s, "
        "longer than the run (500 ms)"
    )
    assert "topology.bottleneck_rate" not in traps(
        NEWCOMER, duration=1.0, **{"topology.bottleneck_rate": "10kbps"}
    )


def test_milliseconds_written_as_seconds() -> None:
    found = traps(NEWCOMER, **{"topology.bottleneck_delay": 13})
    assert found["topology.bottleneck_delay"] == (
        '13 s one way on R1->R2: milliseconds written as seconds? (write "13ms" for milliseconds)'
    )
    held = NEWCOMER + (
        '\n[[impairments]]\nlink = "R1->R2"\nkind = "delay"\nfraction = 0.05\n'
        'delay = { dist = "constant", value = 5 }\n'
    )
    assert traps(held)["impairments[0].delay"] == (
        "holds packets 5 s on average: milliseconds written as seconds? (delays are in seconds)"
    )
    assert traps(NEWCOMER, duration=30000)["duration"] == (
        "30000 s is over an hour of simulated time: milliseconds written as seconds? "
        '(write "30000ms" for milliseconds)'
    )


def test_mbps_written_as_bps() -> None:
    found = traps(NEWCOMER, **{"topology.bottleneck_rate": 100})
    message = found["topology.bottleneck_rate"]
    assert message.startswith(
        '100 b/s on R1->R2: Mb/s written as b/s? (rates are in bit/s; write "100Mbps" for Mb/s)'
    )
    # the same field's other trap follows: its packet outlasts the 20-s run
    assert "; one 1000-byte packet of flows[0] takes 80 s to send on R1->R2" in message


def test_a_window_limit_below_the_bdp() -> None:
    chain = (ROOT / "examples" / "chain.toml").read_text("utf-8")
    found = traps(chain, **{"flows[0].tcp.max_window": 20})
    assert found["flows[0].tcp.max_window"] == (
        "20 segments is below the BDP of flows[0]'s path (8 Mb/s on R1->R2, 50 ms round-trip "
        "propagation, 1000-byte packets), 50 segments: the window, not the network, limits "
        "the flow"
    )
    assert "flows[0].tcp.max_window" not in traps(chain)  # 50 = the BDP: not below


def test_a_run_shorter_than_20_rtts() -> None:
    chain = (ROOT / "examples" / "chain.toml").read_text("utf-8")
    found = traps(chain, duration=0.5, warmup=0.0)
    assert found["duration"].startswith("500 ms is 9.5 round trips of flows[0]'s path (52.7")
    assert found["duration"].endswith("shorter than 20 RTTs, the run ends in slow start")


def test_many_flows_say_a_shared_problem_once() -> None:
    dumbbell = {
        "duration": 30.0,
        "topology": {"kind": "dumbbell", "pairs": 20, "bottleneck_rate": 1e8,
                     "bottleneck_delay": 0.03, "access_rate": 1e9},
        "flows": [{"src": f"S{i}", "dst": f"D{i}"} for i in range(20)],
    }  # fmt: skip
    found = check(rl.Scenario.from_dict(dumbbell))
    assert [t.path for t in found] == ["topology.queue"]
    assert found[0].message.count("BDP of") == 1


@pytest.mark.parametrize(
    "name", ["chain.toml", "ecmp.toml", "cellular-arq.toml", "cellular-arq-paced.toml"]
)
def test_the_examples_have_no_warnings(name: str) -> None:
    assert check(rl.Scenario.load(ROOT / "examples" / name)) == []


def test_the_example_sweep_has_no_warnings() -> None:
    from reorderlab.sweep import SweepFile

    spec = SweepFile.load(ROOT / "examples" / "loss-sweep.toml")
    assert [check(sc) for _, sc in spec.points] == [[]] * len(spec.points)


def test_check_warns_on_stderr_and_strict_makes_them_errors(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    path = tmp_path / "newcomer.toml"
    path.write_text(NEWCOMER, "utf-8")
    proc = run_cli(["check", str(path)], cli_env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].startswith(f"warning: {path}: topology.access_rate: 10 Mb/s on S1->R1")
    assert lines[1].startswith(f"warning: {path}: topology.access_queue: 1000 packets is 12 BDPs")
    strict = run_cli(["check", str(path), "--strict"], cli_env)
    assert strict.returncode == 2
    assert strict.stderr.splitlines()[0].startswith(f"error: {path}: topology.access_rate:")
    assert strict.stderr.splitlines()[-1] == f"error: {path}: 2 warning(s) with --strict"
    clean = run_cli(["check", str(ROOT / "examples" / "chain.toml")], cli_env)
    assert clean.returncode == 0 and clean.stderr == ""
    assert clean.stdout.strip().endswith("chain.toml: valid, no warnings")


def test_run_warns_first_and_strict_runs_nothing(tmp_path: Path, cli_env: dict[str, str]) -> None:
    path = tmp_path / "newcomer.toml"
    path.write_text(NEWCOMER.replace("20.0", "2.0"), "utf-8")
    proc = run_cli(["run", str(path), "--no-cache"], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "warning: " in proc.stderr and "topology.access_rate" in proc.stderr
    assert "newcomer, seed 1" in proc.stdout
    out = tmp_path / "out"
    strict = run_cli(["run", str(path), "--no-cache", "--strict", "--out", str(out)], cli_env)
    assert strict.returncode == 2 and strict.stdout == "" and not out.exists()


def test_sweep_warns_about_the_grid_points(tmp_path: Path, cli_env: dict[str, str]) -> None:
    (tmp_path / "chain.toml").write_text(
        (ROOT / "examples" / "chain.toml").read_text("utf-8"), "utf-8"
    )
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        'scenario = "chain.toml"\nseeds = 1\n[grid]\n"flows[0].tcp.max_window" = [20, 50]\n',
        "utf-8",
    )
    proc = run_cli(["sweep", str(sweep), "--strict", "--no-cache"], cli_env)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[0].startswith(
        f"error: {sweep} [flows[0].tcp.max_window=20]: flows[0].tcp.max_window: 20 segments"
    )


def test_the_emulation_example_has_no_warnings() -> None:
    from reorderlab.emulate import load

    scenario, _ = load(ROOT / "examples" / "emulate.toml")
    assert check(scenario) == []
