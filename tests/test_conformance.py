"""The packet-level conformance scripts (``reorderlab script``,
docs/conformance.md): the language subset, the interpreter's verdicts, the
simulator backend on the whole suite, and the kernel backend where root and
TUN exist."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reorderlab.conformance import parse_file, run_scripts, run_sim
from reorderlab.conformance.kernel import PREFIX, run_kernel, skip_reason
from reorderlab.conformance.model import ScriptError, TimeKind
from reorderlab.conformance.parser import parse_text

SUITE = Path(__file__).parent / "scripts"
SCRIPTS = sorted(SUITE.glob("*.pkt"))
FIRST = SUITE / "sack-fast-retransmit.pkt"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["reorderlab", *args],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"),
    )


# -- the suite ------------------------------------------------------------------


def test_the_suite_has_forty_scripts_each_naming_its_rule() -> None:
    assert len(SCRIPTS) >= 40, len(SCRIPTS)
    for path in SCRIPTS:
        script = parse_file(path)
        assert script.header, f"{path.name}: no header comment"
        assert any(w in script.header for w in ("RFC", "tcp_", "net/ipv4")), (
            f"{path.name}: the header names no RFC section or kernel function"
        )


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_suite_on_the_simulator(path: Path) -> None:
    outcome = run_sim(parse_file(path))
    assert outcome.ok, outcome.line()
    if outcome.status == "xfail":  # marked, and failing for a reason shown
        assert outcome.failure is not None and outcome.xfail_reason


# -- the language -----------------------------------------------------------------


def test_times_absolute_relative_ranged_and_any() -> None:
    s = parse_text(
        "0.1 %{ assert tcpi_rto > 0 }%\n+0.2 %{ assert tcpi_rto > 0 }%\n"
        "0.3~0.4 %{ assert tcpi_rto > 0 }%\n+0.1~+0.2 %{ assert tcpi_rto > 0 }%\n"
        "* %{ assert tcpi_rto > 0 }%\n"
    )
    kinds = [(e.time.kind, e.time.start, e.time.end) for e in s.events]
    assert kinds == [
        (TimeKind.ABSOLUTE, 0.1, None),
        (TimeKind.RELATIVE, 0.2, None),
        (TimeKind.ABSOLUTE, 0.3, 0.4),
        (TimeKind.RELATIVE, 0.1, 0.2),
        (TimeKind.ANY, 0.0, None),
    ]


def test_segment_options_are_read() -> None:
    s = parse_text(
        "0 < . 1:1(0) ack 1 win 257 <nop,nop,TS val 5 ecr 6,sack 1001:2001 3001:4001>\n"
        "+0 > S. 0:0(0) ack 1 <mss 1460,sackOK,nop,wscale 7>\n"
    )
    seg = s.events[0].action
    assert str(seg.option("sack")) == "sack 1001:2001 3001:4001"  # type: ignore[union-attr]
    assert seg.option("TS").ecr == 6  # type: ignore[union-attr]
    assert s.events[1].action.option("wscale").value == 7  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("0 < . 1:1(0) ack 1 win 257 <mss>\n", ":1:32:", "mss value"),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 frobnicate(3) = 0\n",
            ":2:4:",
            "frobnicate",
        ),
        ("0 < . 1:1001(999) ack 1\n", ":1:9:", "not (999)"),
        ("0 < Q 1:1(0)\n", ":1:5:", "flag 'Q'"),
        ("0.2 %{ assert tcpi_bogus == 1 }%\n", ":1:", "tcpi_bogus"),
        ("0 < . 1:1(0) ack 1 <sack 1:2\n", ":1:29:", "'>'"),
        ("0.5 < S 0:0(0)\n0.1~0.05 < . 1:1(0) ack 1\n", ":2:10:", "before it starts"),
        ("--frob=1\n", ":1:1:", "unknown option"),
        ("0 < . 1:1(0) ack 1 $\n", ":1:20:", "unexpected character"),
    ],
)
def test_a_malformed_script_is_one_line_with_file_line_column(
    tmp_path: Path, text: str, where: str, what: str
) -> None:
    path = tmp_path / "bad.pkt"
    path.write_text(text)
    with pytest.raises(ScriptError) as info:
        parse_file(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path) + where), message
    assert what in message, message
    r = _cli("script", str(path))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"error: {message}"]
    assert "Traceback" not in r.stderr


# -- the interpreter's verdicts on the simulator ------------------------------------


def _variant_of(tmp_path: Path, old: str, new: str) -> Path:
    text = FIRST.read_text()
    assert old in text
    path = tmp_path / "changed.pkt"
    path.write_text(text.replace(old, new, 1))
    return path


def test_a_changed_segment_fails_with_the_first_difference(tmp_path: Path) -> None:
    path = _variant_of(tmp_path, "0.200 > . 1:1001(1000) ack 1", "0.200 > . 1001:2001(1000) ack 1")
    o = run_sim(parse_file(path))
    assert o.status == "fail"
    assert o.failure is not None and o.failure.kind == "mismatch"
    assert o.failure.expected == "> . 1001:2001(1000) ack 1"
    assert o.failure.got.startswith("> . 1:1001(1000) ack 1")
    line = 1 + FIRST.read_text().splitlines().index("0.200 > . 1:1001(1000) ack 1")
    assert o.failure.where == f"{path}:{line}:7"


def test_a_segment_at_the_wrong_time_fails_on_timing(tmp_path: Path) -> None:
    path = _variant_of(tmp_path, "0.200 > . 1:1001(1000) ack 1", "0.250 > . 1:1001(1000) ack 1")
    o = run_sim(parse_file(path))
    assert o.failure is not None and o.failure.kind == "timing", o.line()
    assert "expected at 0.250000" in o.failure.message


def test_a_range_accepts_a_time_inside_it(tmp_path: Path) -> None:
    path = _variant_of(
        tmp_path, "0.200 > . 1:1001(1000) ack 1", "0.150~0.250 > . 1:1001(1000) ack 1"
    )
    assert run_sim(parse_file(path)).status == "pass"


def test_a_failed_assert_names_the_field_and_value(tmp_path: Path) -> None:
    path = _variant_of(tmp_path, "assert tcpi_sacked == 3", "assert tcpi_sacked == 4")
    o = run_sim(parse_file(path))
    assert o.failure is not None and o.failure.kind == "assert"
    assert "tcpi_sacked = 3" in o.failure.message


def test_a_segment_the_script_lacks_fails(tmp_path: Path) -> None:
    text = FIRST.read_text().split("0.200 > . 1:1001(1000) ack 1")[0]
    path = tmp_path / "short.pkt"
    path.write_text(text)
    o = run_sim(parse_file(path))
    assert o.failure is not None and o.failure.kind == "unexpected", o.line()
    assert o.failure.got.startswith("> . 1:1001(1000)")


def test_an_expected_failure_is_xfail_and_a_pass_is_xpass(tmp_path: Path) -> None:
    bad = _variant_of(tmp_path, "assert tcpi_sacked == 3", "assert tcpi_sacked == 4")
    bad.write_text("// xfail-sim: a reason\n" + bad.read_text())
    assert run_sim(parse_file(bad)).status == "xfail"
    good = tmp_path / "good.pkt"
    good.write_text("// xfail-sim: stale\n" + FIRST.read_text())
    o = run_sim(parse_file(good))
    assert o.status == "xpass" and not o.ok


def test_cli_json_and_exit_code(tmp_path: Path) -> None:
    r = _cli("script", str(FIRST), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [(d["backend"], d["status"]) for d in data] == [("sim", "pass")]
    bad = _variant_of(tmp_path, "assert tcpi_sacked == 3", "assert tcpi_sacked == 4")
    r = _cli("script", str(bad))
    assert r.returncode == 1
    assert "FAIL" in r.stdout and "tcpi_sacked = 3" in r.stdout


def test_another_variant_is_held_to_the_same_script() -> None:
    # NewReno without SACK has no SACK scoreboard: the script's assert on
    # sacked segments cannot hold (the script is Linux's, not NewReno's).
    o = run_scripts([FIRST], ("sim",), variant="NewReno")[0]
    assert o.status == "fail", o.line()


# -- the kernel backend ---------------------------------------------------------------

KERNEL = skip_reason()


def _leftovers() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    return [line.split()[0] for line in out.stdout.splitlines() if line.startswith(PREFIX)]


@pytest.mark.skipif(KERNEL is not None, reason=f"kernel backend: {KERNEL}")
def test_kernel_runs_a_script_and_leaves_nothing_behind() -> None:
    before = set(_leftovers())
    o = run_kernel(parse_file(FIRST), None)
    assert o.status == "pass", o.line()
    assert set(_leftovers()) <= before


@pytest.mark.skipif(KERNEL is not None, reason=f"kernel backend: {KERNEL}")
@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_suite_on_the_kernel(path: Path) -> None:
    outcome = run_kernel(parse_file(path), None)
    assert outcome.ok, outcome.line() + "\n" + "\n".join(outcome.trace)


@pytest.mark.skipif(KERNEL is not None, reason=f"kernel backend: {KERNEL}")
def test_kernel_a_hung_script_is_ended_at_the_timeout(tmp_path: Path) -> None:
    # a blocking accept() with no peer: the agent hangs until it is killed
    path = tmp_path / "hang.pkt"
    path.write_text(
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 bind(3, ..., ...) = 0\n"
        "+0 listen(3, 1) = 0\n+0 `sleep 30`\n"
    )
    before = set(_leftovers())
    o = run_kernel(parse_file(path), None, timeout=2.0)
    assert o.status == "fail" and o.failure is not None
    assert "timeout" in o.failure.message
    assert set(_leftovers()) <= before
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=False)
    assert "tun0" not in links.stdout


def test_kernel_skips_with_the_reason_where_it_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import reorderlab.conformance.kernel as kernel

    monkeypatch.setattr(kernel, "skip_reason", lambda: "needs root")
    o = kernel.run_kernel(parse_file(FIRST), None)
    assert (o.status, o.skip_reason) == ("skip", "needs root")
    assert o.ok


# -- the report's table -----------------------------------------------------------------


def test_report_table_from_conformance_json(tmp_path: Path) -> None:
    from reorderlab.report_conformance import conformance_html, read_outcomes

    assert read_outcomes(tmp_path) == []
    bad = _variant_of(tmp_path, "assert tcpi_sacked == 3", "assert tcpi_sacked == 4")
    r = _cli("script", str(FIRST), str(bad), "--out", str(tmp_path / "res"))
    assert r.returncode == 1
    page = conformance_html(read_outcomes(tmp_path / "res"))
    assert "sim: 1 of 2 pass" in page
    assert '<td class="fail" title="' in page and "tcpi_sacked = 3" in page
    (tmp_path / "res" / "conformance.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"conformance\.json"):
        read_outcomes(tmp_path / "res")
