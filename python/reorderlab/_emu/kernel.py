"""From a scenario's TCP fields to the kernel's configuration, and back.

The emulated senders and receivers are the kernel's TCP, so a scenario's
``variant`` names a kernel configuration (:data:`PRESETS`), and each TCP
field either maps to a kernel setting (a per-namespace sysctl or a per-route
option) or is refused, naming the field. A field refused only when the
scenario sets it: left at its default, the kernel's own behaviour stands in
(and docs/emulation.md says which).

Every flow has its own pair of addresses (:func:`flow_addresses`), so the
per-flow settings are options of the host route between them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reorderlab.scenario import FieldError, FlowSpec, Scenario, ScenarioError

#: The kernel switches ``[emulation.kernel]`` may set (``net.ipv4.`` left out).
KERNEL_SWITCHES: tuple[str, ...] = (
    "tcp_congestion_control",
    "tcp_recovery",
    "tcp_reordering",
    "tcp_max_reordering",
    "tcp_dsack",
    "tcp_timestamps",
    "tcp_frto",
    "tcp_early_retrans",
    "tcp_sack",
    "tcp_slow_start_after_idle",
    "tcp_rto_min_us",
    "tcp_rto_max_ms",
)

#: Sender variants the kernel can be configured as, and the sysctls that do
#: it (both namespaces). ``Linux``: a fresh namespace's defaults (RACK-TLP,
#: PRR, DSACK and timestamp undo, adaptive reordering up to 300, F-RTO).
#: ``Linux-classic``: every loss-recovery switch off that has one: no TLP /
#: early retransmit, no F-RTO, no undo (the kernel undoes on any DSACK or
#: timestamp echo it gets, so neither is sent), reordering fixed at 3, and
#: ``tcp_recovery = 0``, which on 6.18 does not turn RACK off (measured: the
#: same fast retransmits with 0 and 1; the simulator's ``Linux-classic``
#: variant models RACK for that reason). PRR, the kernel's window growth and
#: its delayed ACKs have no switch.
PRESETS: dict[str, dict[str, str]] = {
    "Linux": {},
    "Linux-classic": {
        "tcp_recovery": "0",
        "tcp_early_retrans": "0",
        "tcp_frto": "0",
        "tcp_dsack": "0",
        "tcp_timestamps": "0",
        "tcp_reordering": "3",
        "tcp_max_reordering": "3",
    },
}

#: Data packet size (``tcp.mss``, headers included) when a scenario has none:
#: the simulator's default.
DEFAULT_PACKET = 1000

#: ``record.series`` names and how each is read from ``struct tcp_info``.
SERIES: dict[str, str] = {
    "cwnd": "snd_cwnd",
    "ssthresh": "snd_ssthresh",
    "srtt": "rtt",
    "rto": "rto",
    "dupthresh": "reordering",
    "pipe": "pipe",
    "delivered": "delivered",
    "sent": "data_segs_out",
    "pacing_rate": "pacing_rate",
    "delivery_rate": "delivery_rate",
    "bbr_bw": "bbr_bw",
    "bbr_min_rtt": "bbr_min_rtt",
}

#: TcpSpec fields the kernel has no setting for.
_NO_SWITCH = {
    "ack_size": "the kernel sizes its own ACKs",
    "initial_ssthresh": "the kernel starts with no ssthresh (a route metric applies only "
    "after a cached connection)",
    "initial_rto": "the kernel's initial RTO is fixed (1 s)",
    "granularity": "the kernel's timer granularity is fixed",
    "limited_transmit_bound": "the kernel has no limited-transmit bound",
    "fa_ratio": "the kernel has no FA ratio (RR-TCP)",
    "alpha": "the kernel has no TCP-PR",
    "beta": "the kernel has no TCP-PR",
}


def flow_addresses(i: int) -> tuple[str, str]:
    """Sender and receiver address of flow ``i``."""
    hi, lo = divmod(i, 250)
    return f"10.201.{hi}.{lo + 1}", f"10.202.{hi}.{lo + 1}"


SENDER_NET = "10.201.0.0/16"
RECEIVER_NET = "10.202.0.0/16"


@dataclass
class FlowPlan:
    """What the kernel is told for one flow."""

    index: int
    src: str
    dst: str
    cc: str
    start: float
    segments: int
    max_window: int | None
    min_rto: float | None
    #: options of the sender's host route to ``dst`` / the receiver's to ``src``
    sender_route: list[str] = field(default_factory=list)
    receiver_route: list[str] = field(default_factory=list)


@dataclass
class KernelPlan:
    """The whole configuration: device MTU, sysctls per side, per-flow routes."""

    variant: str
    mtu: int
    sysctls: dict[str, dict[str, str]]
    flows: list[FlowPlan]
    series: list[str]


def _err(path: str, message: str) -> ScenarioError:
    return ScenarioError([FieldError(path, message)])


def available_congestion_controls() -> list[str]:
    path = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
    return path.read_text(encoding="ascii").split() if path.exists() else []


def _sysctl_exists(name: str) -> bool:
    return (Path("/proc/sys/net/ipv4") / name).exists()


def _same(values: list[tuple[str, Any]], what: str) -> Any:
    """The value every flow gives a per-namespace setting; an error naming
    the first flow that differs (namespaces are shared by all flows)."""
    first = values[0][1]
    for path, value in values[1:]:
        if value != first:
            raise _err(
                path, f"{what} is one setting for all flows; flow 0 has {first!r}, got {value!r}"
            )
    return first


def _is_set(model: BaseModel, name: str) -> bool:
    """The field differs from its default (whether or not it was written:
    a scenario rebuilt from a dict has every field written)."""
    info = type(model).model_fields[name]
    default = info.get_default(call_default_factory=True)
    return bool(getattr(model, name) != default)


def _check_tcp(p: str, f: FlowSpec, timestamps: bool) -> None:
    tcp, rcv = f.tcp, f.receiver
    for name, why in _NO_SWITCH.items():
        if _is_set(tcp, name):
            raise _err(f"{p}.tcp.{name}", f"not available in emulation: {why}")
    if tcp.pacing and f.cc.lower() != "bbr":
        raise _err(
            f"{p}.tcp.pacing",
            "the kernel paces a control other than bbr only under the fq qdisc or "
            "SO_MAX_PACING_RATE, which emulation does not set",
        )
    if tcp.pacing is False and f.cc.lower() == "bbr":
        raise _err(f"{p}.tcp.pacing", "the kernel's bbr always paces")
    if tcp.rtt_timing == "per_rtt":
        raise _err(f"{p}.tcp.rtt_timing", "the kernel times every ACK (per_ack), got 'per_rtt'")
    if tcp.limited_transmit is False:
        raise _err(f"{p}.tcp.limited_transmit", "the kernel has no switch to turn it off")
    if tcp.min_rto is not None and not _sysctl_exists("tcp_rto_min_us"):
        raise _err(f"{p}.tcp.min_rto", "this kernel has no tcp_rto_min_us")
    if tcp.max_rto is not None and not _sysctl_exists("tcp_rto_max_ms"):
        raise _err(f"{p}.tcp.max_rto", "this kernel has no tcp_rto_max_ms")
    if rcv.delayed_ack == "rfc1122":
        raise _err(
            f"{p}.receiver.delayed_ack", "the kernel's receiver acks as 'quickack' or 'none'"
        )
    for name in ("delack_timeout", "delack_every"):
        if _is_set(rcv, name):
            raise _err(f"{p}.receiver.{name}", "the kernel's delayed-ACK timer is its own")
    blocks = 3 if timestamps else 4
    if _is_set(rcv, "max_sack_blocks") and rcv.max_sack_blocks != blocks:
        raise _err(
            f"{p}.receiver.max_sack_blocks",
            f"the kernel sends {blocks} SACK blocks with timestamps "
            f"{'on' if timestamps else 'off'}, got {rcv.max_sack_blocks}",
        )


def _kernel_overrides(overrides: Mapping[str, int | str]) -> dict[str, str]:
    out = {}
    for name, value in overrides.items():
        if name not in KERNEL_SWITCHES:
            raise _err(
                f"emulation.kernel.{name}", f"unknown switch (known: {', '.join(KERNEL_SWITCHES)})"
            )
        out[name] = str(value)
    return out


def _flow_plan(i: int, f: FlowSpec, cc: str, user_commands: bool) -> FlowPlan:
    p = f"flows[{i}]"
    if user_commands and f.segments:
        raise _err(f"{p}.segments", "the user's commands decide how much they send; set 0")
    src, dst = flow_addresses(i)
    plan = FlowPlan(i, src, dst, cc, f.start, f.segments, f.tcp.max_window, f.tcp.min_rto)
    plan.sender_route = ["congctl", cc]
    if f.tcp.initial_window is not None:
        plan.sender_route += ["initcwnd", str(f.tcp.initial_window)]
    if f.receiver.delayed_ack == "none":
        plan.receiver_route = ["quickack", "1"]
    return plan


def plan(
    sc: Scenario, overrides: Mapping[str, int | str] | None = None, *, user_commands: bool = False
) -> KernelPlan:
    """The kernel configuration of ``sc``; a :class:`ScenarioError` naming
    the field of anything the kernel cannot do."""
    flows = sc.flows
    if not flows:
        raise _err("flows", "emulation needs at least one flow")
    variant = _same(
        [(f"flows[{i}].variant", f.variant) for i, f in enumerate(flows)], "the variant"
    )
    if variant not in PRESETS:
        raise _err(
            "flows[0].variant",
            f"no kernel configuration for {variant!r} (emulation runs the kernel's TCP as "
            f"{' or '.join(PRESETS)})",
        )
    sysctl = {"tcp_no_metrics_save": "1", **PRESETS[variant], **_kernel_overrides(overrides or {})}
    timestamps = sysctl.get("tcp_timestamps", "1") != "0"
    known_cc = available_congestion_controls()
    plans = []
    for i, f in enumerate(flows):
        _check_tcp(f"flows[{i}]", f, timestamps)
        if variant == "Linux-classic" and f.receiver.dsack:
            raise _err(
                f"flows[{i}].receiver.dsack",
                "Linux-classic has no DSACK undo, but the kernel undoes on any DSACK it "
                "receives: set dsack = false",
            )
        cc = f.cc.lower()
        if known_cc and cc not in known_cc:
            raise _err(
                f"flows[{i}].cc",
                f"{cc!r} is not available in this kernel (available: {' '.join(known_cc)})",
            )
        plans.append(_flow_plan(i, f, cc, user_commands))
    _namespace_wide(sc, sysctl)
    mtu = _same(
        [(f"flows[{i}].tcp.mss", f.tcp.mss or DEFAULT_PACKET) for i, f in enumerate(flows)],
        "the packet size (the devices' MTU)",
    )
    if mtu < 576:
        raise _err("flows[0].tcp.mss", f"the kernel needs packets of at least 576 bytes, got {mtu}")
    for k, name in enumerate(sc.record.series):
        if name not in SERIES:
            raise _err(f"record.series[{k}]", f"the kernel has no {name!r}")
    sides = {"sender": dict(sysctl), "receiver": dict(sysctl)}
    return KernelPlan(variant, int(mtu), sides, plans, list(sc.record.series))


def _namespace_wide(sc: Scenario, sysctl: dict[str, str]) -> None:
    """Settings every flow shares (one namespace): SACK / DSACK at the
    receiver, reordering threshold, min and max RTO, window validation. (The
    congestion control is a route option: a namespace other than the host's
    may only default to one of the host's "allowed" controls.)"""
    flows = list(enumerate(sc.flows))
    sack = _same([(f"flows[{i}].receiver.sack", f.receiver.sack) for i, f in flows], "SACK")
    sysctl.setdefault("tcp_sack", "1" if sack else "0")
    dsack = _same([(f"flows[{i}].receiver.dsack", f.receiver.dsack) for i, f in flows], "DSACK")
    if not dsack:
        sysctl["tcp_dsack"] = "0"
    dupthresh = _same(
        [(f"flows[{i}].tcp.dupthresh", f.tcp.dupthresh) for i, f in flows], "dupthresh"
    )
    if dupthresh is not None:
        sysctl["tcp_reordering"] = str(dupthresh)
        if sysctl.get("tcp_max_reordering") == "3":  # a fixed threshold
            sysctl["tcp_max_reordering"] = str(dupthresh)
    min_rto = _same([(f"flows[{i}].tcp.min_rto", f.tcp.min_rto) for i, f in flows], "min RTO")
    if min_rto is not None:
        sysctl.setdefault("tcp_rto_min_us", str(round(min_rto * 1e6)))
    max_rto = _same([(f"flows[{i}].tcp.max_rto", f.tcp.max_rto) for i, f in flows], "max RTO")
    if max_rto is not None:
        sysctl.setdefault("tcp_rto_max_ms", str(round(max_rto * 1e3)))
    cwv = _same([(f"flows[{i}].tcp.cwv", f.tcp.cwv) for i, f in flows], "window validation")
    if cwv is not None:
        sysctl.setdefault("tcp_slow_start_after_idle", "1" if cwv == "rfc2861" else "0")
