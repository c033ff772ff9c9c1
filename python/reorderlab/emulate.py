"""Emulation: a scenario's network applied to the real Linux TCP stack.

``emulate(scenario)`` runs the scenario's flows as real TCP connections of the
kernel, between a sender-side and a receiver-side network namespace joined
by two TUN devices, and the link emulator of the core (``crates/reorderlab/
src/emu``) in between: the scenario's links (rate, propagation delay, queue
and discipline), impairments and routing, as the simulator's own code
computes them, on the wall clock. The result has the simulator's schema
(:class:`reorderlab.Result`), so a scenario can be simulated and emulated
and compared point by point; what only the emulation has is under the
result's ``emulation`` key. See ``docs/emulation.md``.

Needs Linux, root, ``/dev/net/tun`` and ``ip`` (iproute2);
:func:`unavailable_reason` says what is missing. Real time: a 30 s scenario
takes 30 s, plus about two seconds of set-up.

A scenario file may carry an ``[emulation]`` table, read by :func:`load`
and ignored by the simulator's loader only if removed first::

    [emulation]
    kernel = { tcp_recovery = 0 }   # sysctls over the variant's preset
    pcap_snaplen = 128              # bytes kept per packet; 0: no capture
    realtime = true                 # SCHED_FIFO for the link emulator
"""

from __future__ import annotations

import json
import shutil
import signal
import tempfile
import threading
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from reorderlab import _core
from reorderlab._emu import result as results
from reorderlab._emu.kernel import KernelPlan, plan
from reorderlab._emu.netns import EmulationError, EmulationUnavailableError, unavailable_reason
from reorderlab._emu.run import Commands, Outcome, Run
from reorderlab.runner import Result
from reorderlab.scenario import FieldError, Scenario, ScenarioError, check_seed

__all__ = [
    "EmulationError",
    "EmulationSpec",
    "EmulationUnavailableError",
    "emulate",
    "load",
    "unavailable_reason",
]

#: Per-packet timing error (99th percentile) above which a result carries a
#: warning: the emulated path was not the configured one.
TIMING_LIMIT_US = 1000.0


@dataclass
class EmulationSpec:
    """The ``[emulation]`` table of a scenario file."""

    kernel: dict[str, int | str] = field(default_factory=dict)
    pcap_snaplen: int = 128
    realtime: bool = True

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str | None = None) -> EmulationSpec:
        def bad(name: str, message: str) -> ScenarioError:
            return ScenarioError([FieldError(f"emulation.{name}", message)], source)

        unknown = set(data) - {"kernel", "pcap_snaplen", "realtime"}
        if unknown:
            raise bad(sorted(unknown)[0], "unknown field (known: kernel, pcap_snaplen, realtime)")
        kernel = data.get("kernel", {})
        if not isinstance(kernel, Mapping):
            raise bad("kernel", f"must be a table of sysctls, got {kernel!r}")
        for name, value in kernel.items():
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise bad(f"kernel.{name}", f"must be an integer or a name, got {value!r}")
        snaplen = data.get("pcap_snaplen", 128)
        if isinstance(snaplen, bool) or not isinstance(snaplen, int) or snaplen < 0:
            raise bad("pcap_snaplen", f"must be an integer >= 0, got {snaplen!r}")
        realtime = data.get("realtime", True)
        if not isinstance(realtime, bool):
            raise bad("realtime", f"must be true or false, got {realtime!r}")
        return cls(dict(kernel), snaplen, realtime)


def load(path: str | Path) -> tuple[Scenario, EmulationSpec]:
    """A scenario file and its ``[emulation]`` table (defaults if none)."""
    p = Path(path)
    source = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(
            [FieldError("", f"cannot read: {exc.strerror or exc}")], source
        ) from None
    try:
        data = json.loads(text) if p.suffix == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ScenarioError([FieldError("", f"invalid file: {exc}")], source) from None
    emu = data.pop("emulation", {})
    if not isinstance(emu, Mapping):
        raise ScenarioError([FieldError("emulation", "must be a table")], source)
    return Scenario.from_dict(data, source), EmulationSpec.from_dict(emu, source)


def check(
    sc: Scenario, spec: EmulationSpec | None = None, *, user_commands: bool = False
) -> KernelPlan:
    """What the kernel and the link emulator will be told; a
    :class:`ScenarioError` naming the field of anything they cannot do."""
    try:
        _core.emulation_check(sc.to_json())
    except ValueError as exc:
        raise ScenarioError.from_core(str(exc)) from None
    except AttributeError:
        raise EmulationUnavailableError(
            "this build of reorderlab has no emulator (Linux only)"
        ) from None
    return plan(sc, (spec or EmulationSpec()).kernel, user_commands=user_commands)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM interrupts the run like Ctrl-C (so that clean-up runs)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def emulate(
    scenario: Scenario,
    *,
    seed: int | None = None,
    out: str | Path | None = None,
    emulation: EmulationSpec | None = None,
    sender_cmd: Sequence[str] | None = None,
    receiver_cmd: Sequence[str] | None = None,
    log: Callable[[str], None] | None = None,
) -> Result:
    """Run ``scenario`` on the real kernel through the emulated network.

    ``out``: directory for ``result.json`` (and the CSVs of ``reorderlab
    run``), the pcap of each side, the sampled ``struct tcp_info``
    (``tcpinfo.jsonl``), the workload's logs. Without it nothing is kept.
    ``sender_cmd`` / ``receiver_cmd``: run these (per flow, see
    :class:`reorderlab._emu.run.Commands`) instead of the built-in bulk pair.

    Raises :class:`EmulationUnavailableError` (not root, no TUN, no netns),
    :class:`ScenarioError` (something the emulator cannot do, naming the
    field), :class:`EmulationError` (a failure during the run, e.g. a
    crashed workload or a window the kernel did not apply).
    """
    if (sender_cmd is None) != (receiver_cmd is None):
        raise ValueError("give both a sender and a receiver command, or neither")
    spec = emulation or EmulationSpec()
    effective = scenario.seed if seed is None else check_seed(seed)
    kp = check(scenario, spec, user_commands=sender_cmd is not None)
    reason = unavailable_reason()
    if reason is not None:
        raise EmulationUnavailableError(reason)
    say = log or (lambda _msg: None)
    keep = out is not None
    work = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="reorderlab-emu-"))
    work.mkdir(parents=True, exist_ok=True)
    commands = Commands(
        list(sender_cmd) if sender_cmd is not None else None,
        list(receiver_cmd) if receiver_cmd is not None else None,
    )
    run = Run(
        scenario,
        effective,
        kp,
        work,
        commands,
        pcap_snaplen=spec.pcap_snaplen if keep else 0,
        realtime=spec.realtime,
        log=say,
    )
    try:
        with _sigterm_as_interrupt():
            load_before = results_load()
            kernel = run.start()
            names = f"{run.ns.sender} / {run.ns.receiver}"
            say(f"namespaces {names} ready; running {scenario.duration:g} s")
            t0, end = run.drive()
            outcome = run.finish(t0, end, kernel)
            outcome.load = {"before": load_before, "after": results_load()}
    finally:
        run.cleanup()
    res = Result(_result_data(scenario, effective, kp, outcome, run, work if keep else None))
    if keep:
        res.save(work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return res


def results_load() -> list[float]:
    """The machine's load average (1, 5, 15 min), reported with the timing."""
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return []


def _verify(
    sc: Scenario,
    flows: list[dict[str, Any]],
    wire: list[dict[str, Any]],
    samples: list[results.FlowSamples],
    warnings: list[str],
) -> None:
    """What was asked of the kernel and the wire, checked on what happened.
    A flow without a TCP connection is an error of the built-in workload
    (``flows[i]["builtin"]``); a user's command may use another protocol."""
    for i, (spec, w, fs) in enumerate(zip(sc.flows, wire, samples, strict=True)):
        if not fs.info:
            if flows[i]["builtin"]:
                raise EmulationError(f"flows[{i}]: no TCP connection of this flow was seen")
            warnings.append(f"flows[{i}]: no TCP connection was seen (a non-TCP workload?)")
            continue
        if spec.tcp.max_window is not None:
            told = w.get("window_advertised")
            seen = max(int(i.get("snd_wnd", 0)) for i in fs.info)
            if told is None or w.get("window_unclamped", 0) > 0:
                raise EmulationError(
                    f"flows[{i}].tcp.max_window: the receiver's window could not be limited "
                    "(no SYN-ACK of the connection was seen)"
                )
            if seen > told:
                raise EmulationError(
                    f"flows[{i}].tcp.max_window: the sender saw a window of {seen} bytes, "
                    f"above the {told} bytes ({spec.tcp.max_window} segments) asked for"
                )
        if spec.tcp.min_rto is not None:
            low = min(i["rto"] for i in fs.info) / 1e6
            if low < spec.tcp.min_rto * 0.999:
                raise EmulationError(
                    f"flows[{i}].tcp.min_rto: the kernel's RTO went down to {low:g} s, "
                    f"below the {spec.tcp.min_rto:g} s asked for"
                )
        if fs.cc is not None and fs.cc != flows[i]["cc"]:
            raise EmulationError(
                f"flows[{i}].cc: the kernel used {fs.cc!r}, not {flows[i]['cc']!r}"
            )


def _result_data(
    sc: Scenario, seed: int, kp: KernelPlan, o: Outcome, run: Run, work: Path | None
) -> dict[str, Any]:
    link = o.link
    wire: list[dict[str, Any]] = link["flows"]
    samples = [results.flow_samples(o.samples, f.src, f.dst, o.t0_ns) for f in kp.flows]
    one_flow = len(sc.flows) == 1
    rows = [
        results.flow_row(
            i,
            sc,
            kp,
            wire[i],
            samples[i],
            o.counters["sender"] if one_flow else None,
            o.receivers[i],
            o.t0_ns,
        )
        for i in range(len(sc.flows))
    ]
    warnings: list[str] = []
    builtin = not run.commands.user
    _verify(sc, [{"cc": f.cc, "builtin": builtin} for f in kp.flows], wire, samples, warnings)
    series = {}
    if kp.series:
        chosen = sc.record.flows or list(range(len(sc.flows)))
        series = {str(i): results.series_of(samples[i], kp.series) for i in chosen}
    timing = link["timing"]
    if timing["p99_us"] > TIMING_LIMIT_US:
        warnings.append(
            f"timing error p99 {timing['p99_us'] / 1000:.2f} ms > {TIMING_LIMIT_US / 1000:g} ms "
            f"(load {o.load.get('before')} -> {o.load.get('after')}): the emulated path was "
            "slower than the scenario's"
        )
    emulation = {
        "variant": kp.variant,
        "kernel": o.kernel,
        "mtu": kp.mtu,
        "segment_payload": run.payload(),
        "routes": {
            str(i): {"sender": f.sender_route, "receiver": f.receiver_route}
            for i, f in enumerate(kp.flows)
        },
        "addresses": {str(i): {"sender": f.src, "receiver": f.dst} for i, f in enumerate(kp.flows)},
        "counters": o.counters,
        "wire": wire,
        "timing": timing,
        "rates": link["rates"],
        "realtime": link["realtime"],
        "load": o.load,
        "seconds": (o.end_ns - o.t0_ns) / 1e9,
        "packets_read": link["packets_read"],
        "packets_written": link["packets_written"],
        "unroutable": link["unroutable"],
        "write_errors": link["write_errors"],
        "samples": {str(i): results.kernel_series(s) for i, s in enumerate(samples)},
        "receivers": o.receivers,
        "senders": o.senders,
        "files": sorted(p.name for p in work.iterdir()) if work is not None else [],
        "warnings": warnings,
    }
    return {
        "scenario": sc.name,
        "seed": seed,
        "engine_version": link["engine_version"],
        "duration": sc.duration,
        "events": 0,
        "packet_hops": sum(int(lk["delivered"]) for lk in link["links"]),
        "flows": rows,
        "fairness": None,
        "traffic": [],
        "links": link["links"],
        "series": series,
        "traces": {},
        "reorder_density": {str(i): w["reorder_density"] for i, w in enumerate(wire)},
        "impairments": link["impairments"],
        "multipath_routes": link["multipath_routes"],
        "emulation": emulation,
    }
