"""Packet captures (record.pcap): the files decode, Wireshark's TCP analysis
reads them as the simulator counted, and captures change no result or key."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import reorderlab as rl
from reorderlab.pcap import PcapError, read_pcap

from .conftest import run_cli

#: Reordering (3 % of the data held 20 ms) and loss on the bottleneck: the
#: senders retransmit, some retransmissions are spurious, and the receiver
#: reports those with DSACK.
REORDER_TOML = """\
name = "capture"
duration = 20.0

[topology]
kind = "chain"
bottleneck_rate = 8e6
bottleneck_delay = 0.023

[[impairments]]
link = "R1->R2"
kind = "delay"
fraction = 0.03
delay = { dist = "constant", value = 0.02 }
data_only = true

[[impairments]]
link = "R1->R2"
kind = "loss"
p = 0.005

[[flows]]
src = "S1"
dst = "D"
variant = "RACK-TLP"

[flows.tcp]
max_window = 60

[record]
pcap = [{ link = "S1->R1", position = "ingress" }, { link = "R2->D", position = "egress" }]
"""


def capture_scenario(variant: str = "RACK-TLP", **params: object) -> rl.Scenario:
    sc = rl.Scenario.from_toml(REORDER_TOML)
    return sc.with_params({"flows[0].variant": variant, **params})


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[rl.Result, Path]:
    """One RACK-TLP run with captures at the sender's and the receiver's end."""
    folder = tmp_path_factory.mktemp("pcap")
    return rl.run(capture_scenario(), seed=2, pcap_dir=folder), folder


def test_a_capture_changes_neither_the_result_nor_the_cache_key(
    captured: tuple[rl.Result, Path],
) -> None:
    result, _ = captured
    plain = capture_scenario().with_params({"record.pcap": None})
    assert rl.run(plain, seed=2).to_json() == result.to_json()
    version = rl.engine_version()
    assert capture_scenario().cache_key(2, version) == plain.cache_key(2, version)
    assert "pcap" not in capture_scenario().canonical_json(2)


def test_every_packet_decodes_and_matches_the_simulators_counts(
    captured: tuple[rl.Result, Path],
) -> None:
    result, folder = captured
    flow = result.flow(0)
    sender_side, receiver_side = result.captures
    assert Path(sender_side.file) == folder / "S1-R1.ingress.pcap"
    packets = list(read_pcap(sender_side.file))  # raises on one that does not decode
    assert len(packets) == sender_side.packets
    # the handshake written for a flow opened without one, then the flow
    syn, syn_ack, ack = packets[:3]
    assert (syn.flags, syn_ack.flags, ack.flags) == (0x02, 0x12, 0x10)
    assert syn.options["sack_permitted"] and "wscale" in syn.options
    assert syn.options["mss"] == 960  # 1000-byte packets less 40 bytes of headers
    isn = syn.seq
    data = [p for p in packets if p.payload > 0]
    acks = [p for p in packets[3:] if p.payload == 0]
    assert len(data) == flow["data_packets_sent"]
    assert len(acks) == flow["acks_received"]
    # RACK-TLP times every ACK: timestamps on every segment, so 948 bytes
    # of payload in each 1000-byte packet; sequence numbers count bytes
    assert all("ts" in p.options for p in packets)
    assert {p.payload for p in data} == {948}
    assert {p.length for p in data} == {1000}
    assert all((p.seq - isn - 1) % 948 == 0 for p in data)
    times = [p.time_ns for p in packets]
    assert times == sorted(times), "capture times are simulation times, in order"
    blocks = sum(len(p.options.get("sack", [])) for p in acks)
    assert blocks == sender_side.sack_blocks > 0
    # the receiver's end sees what the network delivered
    delivered = list(read_pcap(receiver_side.file))
    assert sum(1 for p in delivered if p.payload > 0) < len(data)  # losses
    assert sum(1 for p in delivered if p.payload == 0) - 3 == flow["acks_sent"]


def test_a_variant_without_timestamps_gets_none_and_its_own_syn_is_kept(
    tmp_path: Path,
) -> None:
    sc = capture_scenario("SACK", **{"flows[0].tcp.syn": True})
    result = rl.run(sc, seed=1, pcap_dir=tmp_path)
    capture = result.captures[0]
    assert (capture.syns, capture.handshakes_added) == (2, 0)
    packets = list(read_pcap(capture.file))
    assert packets[0].syn and not packets[0].has_ack
    assert packets[1].syn and packets[1].has_ack
    assert all("ts" not in p.options for p in packets)
    assert {p.payload for p in packets if p.payload} == {960}


def test_tshark_analysis_finds_the_retransmissions_and_dsacks_the_simulator_counted(
    captured: tuple[rl.Result, Path],
) -> None:
    """Wireshark's TCP analysis (tcp.analysis) reads a capture as a real TCP
    connection: at the sender's end every transmission and every ACK the
    sender received passes, so the retransmissions it flags are the
    sender's retransmissions (some it calls out-of-order: it guesses from
    timing), its D-SACK blocks are the DSACKs the sender received, and it
    finds no segment missing from the capture. At the receiver's end the
    D-SACKs are the duplicates the receiver got."""
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark is not installed (make test-tools installs it as root on Debian)")
    result, _ = captured
    flow = result.flow(0)
    sender_side, receiver_side = (c.file for c in result.captures)

    def count(path: str, display_filter: str) -> int:
        out = subprocess.run(
            [tshark, "-r", path, "-Y", display_filter, "-T", "fields", "-e", "frame.number"],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        return len(out.split())

    retransmitted = (
        "tcp.len > 0 && (tcp.analysis.retransmission || tcp.analysis.fast_retransmission"
        " || tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order)"
    )
    assert flow["retransmits"] > 10
    assert count(sender_side, retransmitted) == flow["retransmits"]
    assert flow["dsacks_received"] > 0
    assert count(sender_side, "tcp.options.sack.dsack") == flow["dsacks_received"]
    assert count(sender_side, "tcp.analysis.lost_segment || tcp.analysis.ack_lost_segment") == 0
    assert count(sender_side, "tcp.len > 0") == flow["data_packets_sent"]
    assert count(receiver_side, "tcp.options.sack.dsack") == flow["duplicate_segments_received"]
    assert count(receiver_side, "_ws.malformed || _ws.expert.severity == error") == 0


def test_sweeps_write_no_captures_and_share_the_plain_runs_keys(tmp_path: Path) -> None:
    sc = capture_scenario()
    plain = sc.with_params({"record.pcap": None})
    with_taps = rl.sweep(sc, seeds=2, store=None, workers=1, progress=False)
    without = rl.sweep(plain, seeds=2, store=None, workers=1, progress=False)
    assert list(with_taps["key"]) == list(without["key"])
    assert list(with_taps["retransmits"]) == list(without["retransmits"])
    assert not list(Path.cwd().glob("S1-R1.*.pcap"))


def test_a_run_with_captures_is_simulated_even_when_stored(tmp_path: Path) -> None:
    store = tmp_path / "store.duckdb"
    sc = capture_scenario()
    first = rl.run(sc.with_params({"record.pcap": None}), seed=3, store=store)
    before = rl.simulations_executed()
    again = rl.run(sc, seed=3, store=store, pcap_dir=tmp_path / "caps")
    assert rl.simulations_executed() == before + 1
    assert again.to_json() == first.to_json()
    assert again.key == first.key
    assert (tmp_path / "caps" / "S1-R1.ingress.pcap").stat().st_size > 24
    with rl.Store(store) as st:
        assert len(st) == 1


def test_a_reader_refuses_a_damaged_capture(
    captured: tuple[rl.Result, Path], tmp_path: Path
) -> None:
    source = Path(captured[0].captures[0].file).read_bytes()
    damaged = bytearray(source)
    damaged[24 + 16 + 9] = 17  # the first packet's IP protocol: UDP
    path = tmp_path / "damaged.pcap"
    path.write_bytes(bytes(damaged))
    with pytest.raises(PcapError, match="record 0: bad IPv4 header checksum"):
        list(read_pcap(path))
    path.write_bytes(source[:-5])
    with pytest.raises(PcapError, match="cut short"):
        list(read_pcap(path))
    path.write_bytes(struct.pack("<I", 0x12345678) + source[4:])
    with pytest.raises(PcapError, match="not a little-endian pcap file"):
        list(read_pcap(path))


@pytest.mark.parametrize(
    ("taps", "message"),
    [
        ([{"link": "R9->R2"}], "record.pcap[0].link: unknown link 'R9->R2'"),
        (
            [{"link": "R1->R2", "position": "ingress"}, {"link": "R2->R1", "position": "egress"}],
            "record.pcap[1]: captures at the same end of the same link as record.pcap[0]",
        ),
        ([{"link": "R1->R2", "position": "middle"}], "record.pcap[0].position"),
    ],
)
def test_bad_taps_are_named(taps: list[dict[str, str]], message: str) -> None:
    with pytest.raises(rl.ScenarioError, match=message.replace("[", r"\[")):
        capture_scenario(**{"record.pcap": taps})


def test_cli_run_writes_the_captures_asked_for(
    tmp_path: Path, cli_env: dict[str, str], small_toml: Path
) -> None:
    out = tmp_path / "out"
    proc = run_cli(
        ["run", str(small_toml), "--pcap", "S1->R1:ingress", "--pcap", "R2->D", "--out", str(out)],
        cli_env,
    )
    assert proc.returncode == 0, proc.stderr
    for name in ("S1-R1.ingress.pcap", "R2-D.egress.pcap"):
        assert f"wrote {out / name}:" in proc.stdout
        assert sum(1 for _ in read_pcap(out / name)) > 100
    bad = run_cli(["run", str(small_toml), "--pcap", "R9->R2", "--out", str(out)], cli_env)
    assert bad.returncode == 2
    assert "record.pcap[0].link: unknown link 'R9->R2'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    unwritable = run_cli(
        ["run", str(small_toml), "--pcap", "R1->R2", "--out", str(a_file), "--no-cache"], cli_env
    )
    assert unwritable.returncode == 1
    assert unwritable.stderr.startswith("error: ") and "Traceback" not in unwritable.stderr
