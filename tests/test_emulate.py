"""Emulation without the kernel: what the emulator refuses (naming the
field), the kernel configuration a scenario maps to, and the parsers of the
kernel's answers. Runs anywhere; ``test_emulate_root.py`` runs real packets."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from reorderlab._emu import kernel, nsproc, result, tcpinfo
from reorderlab._emu.run import _substitute
from reorderlab.emulate import EmulationSpec, check, load, unavailable_reason
from reorderlab.scenario import Scenario, ScenarioError

from .conftest import run_cli

BASE = """\
name = "emu"
duration = 5.0
[topology]
kind = "chain"
bottleneck_rate = 8e6
bottleneck_delay = 0.02
[[flows]]
src = "S1"
dst = "D"
variant = "Linux"
cc = "reno"
"""


def scenario(extra: str = "", flow: str = "", base: str = BASE) -> Scenario:
    text = base.replace('cc = "reno"\n', 'cc = "reno"\n' + flow) + extra
    return Scenario.from_toml(text)


def error_of(sc: Scenario, **kw: object) -> str:
    with pytest.raises(ScenarioError) as exc:
        check(sc, **kw)  # type: ignore[arg-type]
    return str(exc.value)


def test_a_linux_flow_maps_to_the_kernel_defaults_and_routes() -> None:
    kp = check(scenario(flow="[flows.tcp]\nmss = 1200\ninitial_window = 4\n"))
    assert kp.variant == "Linux"
    assert kp.mtu == 1200
    f = kp.flows[0]
    assert (f.src, f.dst) == kernel.flow_addresses(0)
    assert f.sender_route == ["congctl", "reno", "initcwnd", "4"]
    # The default receiver acks every segment: the kernel's quickack route.
    assert f.receiver_route == ["quickack", "1"]
    assert kp.sysctls["sender"] == {"tcp_no_metrics_save": "1", "tcp_sack": "1"}


def test_linux_classic_turns_off_every_switch_it_can() -> None:
    sc = scenario(flow='[flows.receiver]\ndsack = false\ndelayed_ack = "quickack"\n')
    kp = check(sc.with_params({"flows[0].variant": "Linux-classic"}))
    assert kp.flows[0].receiver_route == []  # the kernel's own delayed ACKs
    for side in ("sender", "receiver"):
        got = kp.sysctls[side]
        for name in (
            "tcp_recovery",
            "tcp_early_retrans",
            "tcp_frto",
            "tcp_dsack",
            "tcp_timestamps",
        ):
            assert got[name] == "0", (side, name)
        assert got["tcp_reordering"] == got["tcp_max_reordering"] == "3"
    # An explicit dupthresh stays fixed too.
    fixed = check(
        sc.with_params({"flows[0].variant": "Linux-classic", "flows[0].tcp.dupthresh": 5})
    )
    assert fixed.sysctls["sender"]["tcp_max_reordering"] == "5"


@pytest.mark.parametrize(
    ("flow", "extra", "field"),
    [
        ("", "", "flows[0].variant"),
        ("[flows.tcp]\nack_size = 52\n", "", "flows[0].tcp.ack_size"),
        ("[flows.tcp]\nfa_ratio = 0.5\n", "", "flows[0].tcp.fa_ratio"),
        ('[flows.tcp]\nrtt_timing = "per_rtt"\n', "", "flows[0].tcp.rtt_timing"),
        ("[flows.tcp]\nlimited_transmit = false\n", "", "flows[0].tcp.limited_transmit"),
        ('[flows.receiver]\ndelayed_ack = "rfc1122"\n', "", "flows[0].receiver.delayed_ack"),
        ("[flows.receiver]\ndelack_timeout = 0.04\n", "", "flows[0].receiver.delack_timeout"),
        ("[flows.receiver]\nmax_sack_blocks = 2\n", "", "flows[0].receiver.max_sack_blocks"),
        ("[flows.tcp]\npacing = true\n", "", "flows[0].tcp.pacing"),
        ("", '[record]\nseries = ["fa_ratio"]\n', "record.series[0]"),
        ("", "[record]\ntrace_window = [0.0, 1.0]\n", "record.trace_window"),
        ("", '[[record.pcap]]\nlink = "R1->R2"\n', "record.pcap"),
        (
            "",
            '[[traffic]]\nserver = "S1"\nclient = "D"\n',
            "traffic",
        ),
    ],
)
def test_what_the_kernel_cannot_do_is_refused_naming_the_field(
    flow: str, extra: str, field: str
) -> None:
    sc = scenario(extra, flow)
    if not flow and not extra:
        sc = sc.with_params({"flows[0].variant": "SACK"})
    message = error_of(sc)
    assert message.startswith(f"{field}:"), message


def test_bbr_paces_itself_in_the_kernel() -> None:
    """Issue 37: bbr is the route's congctl; it always paces, so
    ``pacing = true`` is accepted with it and ``false`` refused."""
    known = kernel.available_congestion_controls()
    if known and "bbr" not in known:
        pytest.skip("this kernel has no bbr")
    sc = scenario(flow="[flows.tcp]\npacing = true\n").with_params({"flows[0].cc": "bbr"})
    assert check(sc).flows[0].sender_route[:2] == ["congctl", "bbr"]
    off = sc.with_params({"flows[0].tcp.pacing": False})
    assert error_of(off).startswith("flows[0].tcp.pacing:")


def test_a_field_at_its_default_is_not_refused() -> None:
    # max_sack_blocks left at 4 while the kernel sends 3 with timestamps,
    # and syn = false while the kernel always opens with a handshake: the
    # kernel's behaviour stands in (docs/emulation.md), also once every field
    # is written out (a scenario rebuilt from its dict).
    sc = scenario()
    rebuilt = Scenario.from_dict(sc.to_dict())
    assert check(rebuilt).flows[0].index == check(sc).flows[0].index == 0
    assert check(scenario(flow="[flows.receiver]\nmax_sack_blocks = 3\n")).mtu == 1000


def test_flows_that_disagree_on_a_namespace_setting_are_refused() -> None:
    two = BASE + '[[flows]]\nsrc = "S1"\ndst = "D"\nvariant = "Linux"\n'
    sc = Scenario.from_toml(two + "[flows.receiver]\nsack = false\n")
    assert error_of(sc).startswith("flows[1].receiver.sack:")
    # Per-flow settings (routes) may differ.
    kp = check(Scenario.from_toml(two + "[flows.tcp]\ninitial_window = 3\n"))
    assert kp.flows[1].sender_route[-2:] == ["initcwnd", "3"]
    assert kp.flows[0].sender_route == ["congctl", "reno"]


def test_a_receiver_that_also_sends_is_refused() -> None:
    text = BASE + '[[flows]]\nsrc = "D"\ndst = "S1"\nvariant = "Linux"\n'
    assert error_of(Scenario.from_toml(text)).startswith("flows[0].dst:")


def test_linux_classic_needs_a_receiver_without_dsack() -> None:
    sc = scenario().with_params({"flows[0].variant": "Linux-classic"})
    assert error_of(sc).startswith("flows[0].receiver.dsack:")
    # A Linux receiver without DSACK: the receiving side's switch only.
    kp = check(scenario(flow="[flows.receiver]\ndsack = false\n"))
    assert kp.sysctls["receiver"]["tcp_dsack"] == "0"


def test_an_unknown_kernel_switch_and_bad_emulation_fields_are_named() -> None:
    spec = EmulationSpec(kernel={"tcp_nonsense": 1})
    assert error_of(scenario(), spec=spec).startswith("emulation.kernel.tcp_nonsense:")
    with pytest.raises(ScenarioError, match=r"^emulation.pcap_snaplen:"):
        EmulationSpec.from_dict({"pcap_snaplen": -1})
    with pytest.raises(ScenarioError, match=r"^emulation.colour:"):
        EmulationSpec.from_dict({"colour": "red"})


def test_an_unavailable_congestion_control_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "available_congestion_controls", lambda: ["reno", "cubic"])
    message = error_of(scenario().with_params({"flows[0].cc": "bic"}))
    assert message.startswith("flows[0].cc:") and "'bic'" in message


def test_user_commands_cannot_ask_for_a_number_of_segments() -> None:
    sc = scenario().with_params({"flows[0].segments": 100})
    assert error_of(sc, user_commands=True).startswith("flows[0].segments:")


def test_load_reads_the_emulation_table(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    path.write_text(BASE + "[emulation]\nkernel = { tcp_recovery = 0 }\npcap_snaplen = 0\n")
    sc, spec = load(path)
    assert sc.flows[0].variant == "Linux"
    assert spec == EmulationSpec(kernel={"tcp_recovery": 0}, pcap_snaplen=0, realtime=True)
    assert check(sc, spec).sysctls["sender"]["tcp_recovery"] == "0"


def test_cli_names_a_refused_field_with_exit_code_2(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(BASE.replace('variant = "Linux"', 'variant = "DSACK-TA"'))
    proc = run_cli(["emulate", str(path)], cli_env)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: {path}: flows[0].variant: no kernel configuration for 'DSACK-TA' "
        "(emulation runs the kernel's TCP as Linux or Linux-classic)"
    ]
    stray = run_cli(["emulate", str(path), "stray"], cli_env)
    assert stray.returncode == 2 and "-- SENDER_CMD" in stray.stderr


NOBODY = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")


def test_not_root_is_one_line_with_exit_code_1() -> None:
    if os.geteuid() != 0:
        reason = unavailable_reason()
        assert reason is not None and "root" in reason
        return
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot drop root")
    cannot = _nobody_cannot_import()
    if cannot is not None:
        pytest.skip(cannot)
    # pytest's tmp_path is private to root: a folder anyone can read
    with tempfile.TemporaryDirectory() as folder:
        Path(folder).chmod(0o755)
        path = Path(folder) / "ok.toml"
        path.write_text(BASE)
        path.chmod(0o644)
        proc = _as_nobody(path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "error: emulation needs root (it creates network namespaces and TUN devices); "
        "run it as root"
    ]


def _nobody_cannot_import() -> str | None:
    """Why ``nobody`` cannot run this interpreter with reorderlab, if it
    cannot: a clone under a private folder (``mktemp -d`` makes it 0700)
    leaves the venv and the package unreadable to ``nobody``, and the test
    would fail with "No module named reorderlab" (issue 40, finding 7)."""
    try:
        proc = subprocess.run(
            [*NOBODY, sys.executable, "-c", "import reorderlab.cli"],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    except OSError as exc:
        proc = subprocess.CompletedProcess([], 1, "", str(exc))
    if proc.returncode == 0:
        return None
    why = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
    return (
        f"user nobody cannot run {sys.executable} with reorderlab (a checkout or venv "
        f"in a folder only root can read?): {why}"
    )


def _as_nobody(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*NOBODY, sys.executable, "-m", "reorderlab", "emulate", str(path)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "REORDERLAB_STORE": "/nonexistent/x.duckdb"},
    )


def test_parse_tcp_info_reads_the_kernel_layout() -> None:
    data = bytearray(248)
    data[1] = 3  # ca_state: recovery
    data[6] = 7 | (9 << 4)
    struct.pack_into("=I", data, 68, 50_250)  # rtt, us
    struct.pack_into("=I", data, 80, 37)  # snd_cwnd
    struct.pack_into("=Q", data, 120, 123_456_789)  # bytes_acked
    struct.pack_into("=I", data, 228, 47_400)  # snd_wnd
    info = tcpinfo.parse_tcp_info(bytes(data))
    assert info["ca_state"] == 3 and info["snd_wscale"] == 7 and info["rcv_wscale"] == 9
    assert (info["rtt"], info["snd_cwnd"], info["snd_wnd"]) == (50_250, 37, 47_400)
    assert info["bytes_acked"] == 123_456_789
    # An older kernel's shorter struct: the later fields are absent.
    short = tcpinfo.parse_tcp_info(bytes(data[:104]))
    assert "snd_cwnd" in short and "bytes_acked" not in short and "snd_wnd" not in short


def test_parse_diag_message_reads_addresses_and_attributes() -> None:
    msg = bytearray(72)
    msg[0], msg[1] = 2, 1
    struct.pack_into("!HH", msg, 4, 40000, 5001)
    msg[8:12] = bytes([10, 201, 0, 1])
    msg[24:28] = bytes([10, 202, 0, 1])
    cong = b"cubic\0"
    attr_cong = struct.pack("=HH", 4 + len(cong), tcpinfo.INET_DIAG_CONG) + cong + b"\0\0"
    info = bytearray(232)
    struct.pack_into("=I", info, 80, 12)
    attr_info = struct.pack("=HH", 4 + len(info), tcpinfo.INET_DIAG_INFO) + bytes(info)
    sock = tcpinfo.parse_diag_message(bytes(msg) + attr_cong + attr_info)
    assert (sock["src"], sock["dst"], sock["sport"], sock["dport"]) == (
        "10.201.0.1",
        "10.202.0.1",
        40000,
        5001,
    )
    assert sock["cc"] == "cubic" and sock["info"]["snd_cwnd"] == 12


def test_snmp_counters_are_named_as_nstat_names_them() -> None:
    text = "Tcp: RtoMin RetransSegs\nTcp: 200 17\nTcpExt: TCPSACKReorder\nTcpExt: 4\n"
    assert nsproc.parse_snmp(text) == {
        "TcpRtoMin": 200,
        "TcpRetransSegs": 17,
        "TcpExtTCPSACKReorder": 4,
    }
    with pytest.raises(ValueError, match="not a network sysctl"):
        nsproc.sysctl_path("kernel.panic")


def test_throughput_comes_from_the_bytes_acked_between_samples() -> None:
    info = [{"bytes_acked": b} for b in (0, 1000, 5000, 9000, 13000)]
    fs = result.FlowSamples(t=[0.1, 0.2, 1.2, 2.2, 3.2], info=info, cc="reno")  # type: ignore[arg-type]
    # From 1.0 s (last sample before: 0.2 s, 1000 bytes) to 3.0 s (2.2 s).
    assert result.acked_between(fs, 1.0, 3.0) == (8000.0, pytest.approx(2.0))
    # Before the connection existed: counted from 0 bytes at the start.
    assert result.acked_between(fs, 0.0, 3.5) == (13000.0, pytest.approx(3.2))


def test_flow_samples_pick_the_connection_that_carried_the_data() -> None:
    samples = [
        {
            "t_ns": 2_000_000_000,
            "sockets": [
                {"src": "10.201.0.1", "dst": "10.202.0.1", "info": {"bytes_acked": 10}},
                {
                    "src": "10.201.0.1",
                    "dst": "10.202.0.1",
                    "cc": "cubic",
                    "info": {"bytes_acked": 99},
                },
                {"src": "10.201.0.2", "dst": "10.202.0.2", "info": {"bytes_acked": 500}},
            ],
        }
    ]
    fs = result.flow_samples(samples, "10.201.0.1", "10.202.0.1", 1_000_000_000)
    assert fs.t == [1.0] and fs.info[0]["bytes_acked"] == 99 and fs.cc == "cubic"


def test_command_placeholders_are_replaced() -> None:
    got = _substitute(["-c", "{receiver}:{port}", "{x}"], {"receiver": "10.0.0.2", "port": "5001"})
    assert got == ["-c", "10.0.0.2:5001", "{x}"]


def test_bbr_info_and_rates_are_read() -> None:
    """Issue 37: ``tcpi_pacing_rate`` (offset 104), ``tcpi_delivery_rate``
    (160) and bbr's ``INET_DIAG_BBRINFO`` (bandwidth in bytes/s in two
    halves, min RTT in us, gains x 256), as segments/s and seconds."""
    data = bytearray(248)
    struct.pack_into("=Q", data, 104, 1_448_000)
    struct.pack_into("=Q", data, 160, 724_000)
    struct.pack_into("=I", data, 16, 1448)  # snd_mss
    info = tcpinfo.parse_tcp_info(bytes(data))
    assert (info["pacing_rate"], info["delivery_rate"]) == (1_448_000, 724_000)
    bbr = struct.pack("=5I", (1 << 32) - 1, 1, 50_000, 320, 512)
    got = tcpinfo.parse_bbr_info(bbr)
    assert got == {
        "bbr_bw": (1 << 33) - 1,
        "bbr_min_rtt": 50_000,
        "bbr_pacing_gain": 320,
        "bbr_cwnd_gain": 512,
    }
    assert tcpinfo.parse_bbr_info(bbr[:12]) == {}
    from reorderlab._emu.result import _field

    info.update(got)
    assert _field(info, "pacing_rate") == 1000.0
    assert _field(info, "delivery_rate") == 500.0
    assert _field(info, "bbr_min_rtt") == 0.05
