"""Warnings about valid scenarios that probably do not mean what their
author meant: ``reorderlab check SCENARIO``, and the same lines on stderr
before every ``run``, ``sweep`` and ``compare`` (``--strict`` makes them
errors). Python: :func:`check`.

Each :class:`Trap` names the field to change and says why, on one line:

* **not the bottleneck**: a chain's, dumbbell's or parking lot's access
  link slower than its bottleneck (the access link limits the flow; the
  chain's default access links are 10 Mb/s);
* **queue vs BDP**: the queue of a flow's narrowest link below half the
  path's bandwidth-delay product (expect queue drops) or above ten of them
  (the queue, not the path, sets the RTT);
* **a packet longer than the run**: one data packet's transmission on a
  link of a flow's path outlasts the run;
* **units**: a one-way link delay, a held delay or ARQ round trip of a
  second or more (milliseconds written as seconds?), a run of more than an
  hour, a rate below 10 kb/s (Mb/s written as b/s?);
* **window**: a flow's maximum window below the path's BDP;
* **short run**: a run shorter than 20 round trips of a flow's path.

The paths are the core's (``_core.flow_paths``: the links the routing
table takes, the sender's resolved segment size and window), so a warning
speaks of the network the simulator builds. The BDP is the narrowest
link's rate times the round-trip propagation delay, in segments; the
round trip of "short run" adds one data packet's and one ACK's
transmission on every hop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reorderlab import _core

if TYPE_CHECKING:
    from reorderlab.scenario import Scenario

__all__ = ["Trap", "check"]

#: A one-way delay, hold or link round trip at least this long (s) reads
#: like milliseconds written as seconds.
LONG_DELAY = 1.0
#: A run longer than this (s) reads like milliseconds written as seconds.
LONG_RUN = 3600.0
#: A rate below this (bit/s) reads like Mb/s written as b/s.
SLOW_RATE = 1e4
#: The queue of the narrowest link, in BDPs, outside which it is flagged.
QUEUE_BDP = (0.5, 10.0)
#: A run shorter than this many round trips is flagged.
MIN_RTTS = 20


@dataclass(frozen=True)
class Trap:
    """One warning: the field to look at and what is probably wrong."""

    path: str
    message: str
    #: What kind of problem (``queue``, ``window``, ...): a kind said of a
    #: field once is not said again for another flow.
    kind: str = field(default="", compare=False)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def check(scenario: Scenario) -> list[Trap]:
    """The warnings of a (valid) scenario, one per field (what is wrong
    with it joined by ``;``; a flow's path repeating what another's said
    about the same link is said once), in a fixed order."""
    paths = _paths(scenario)
    found: list[Trap] = []
    found += _units(scenario)
    for p in paths:
        found += _path_traps(scenario, p)
    merged: dict[str, list[Trap]] = {}
    for t in found:
        said = merged.setdefault(t.path, [])
        if not any(t.kind == s.kind for s in said):
            said.append(t)
    return [Trap(path, "; ".join(t.message for t in ts)) for path, ts in merged.items()]


def _paths(sc: Scenario) -> list[dict[str, Any]]:
    """The core's paths of ``sc``'s flows, computed once per network and
    flows (a sweep's points mostly differ elsewhere: loss rates, variants
    of one size; a 1000-pair dumbbell's routing table costs tens of ms)."""
    data = sc.to_dict()
    key = json.dumps([data["topology"], data.get("flows", []), data.get("seed")], sort_keys=True)
    if key not in _PATHS:
        if len(_PATHS) > 256:
            _PATHS.clear()
        _PATHS[key] = json.loads(_core.flow_paths(sc.to_json()))
    paths: list[dict[str, Any]] = _PATHS[key]
    return paths


#: Paths by network and flows (:func:`_paths`).
_PATHS: dict[str, list[dict[str, Any]]] = {}


# --- formatting ----------------------------------------------------------------


def rate_text(bps: float) -> str:
    """``100 Mb/s``, ``1.5 kb/s``, ``100 b/s``."""
    for factor, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if bps >= factor:
            return f"{bps / factor:.4g} {unit}"
    return f"{bps:.4g} b/s"


def time_text(s: float) -> str:
    """``13 s``, ``30 ms``, ``250 us``."""
    if s >= 1e4:
        return f"{s:.0f} s"
    if s >= 1:
        return f"{s:.4g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.4g} ms"
    return f"{s * 1e6:.4g} us"


# --- which field a link's value comes from ---------------------------------


def link_field(sc: Scenario, link: str, what: str) -> str:
    """The field that sets ``what`` (``rate``, ``delay`` or ``queue``) of
    the link named ``link`` (``from->to``) in ``sc``'s topology."""
    topo = sc.topology.model_dump(by_alias=True)
    kind = topo["kind"]
    a, _, b = link.partition("->")
    if kind in ("chain", "dumbbell"):
        core = {a, b} == {"R1", "R2"}
        if core:
            return "topology." + {"rate": "bottleneck_rate", "delay": "bottleneck_delay"}.get(
                what, "queue"
            )
        if what == "delay" and kind == "dumbbell" and topo["access_delays"]:
            pair = re.sub(r"\D", "", a + b)
            return f"topology.access_delays[{pair}]"
        return "topology." + {"rate": "access_rate", "delay": "access_delay"}.get(
            what, "access_queue"
        )
    if kind == "parking_lot":
        hops = [re.fullmatch(r"R(\d+)", n) for n in (a, b)]
        if hops[0] and hops[1]:
            i = max(int(hops[0][1]), int(hops[1][1]))
            return "topology." + {"rate": f"hop_rates[{i - 1}]", "delay": "hop_delay"}.get(
                what, "queue"
            )
        cross = re.fullmatch(r"CS(\d+)", a) or re.fullmatch(r"CS(\d+)", b)
        if what == "rate" and cross and topo["cross_access_rates"]:
            return f"topology.cross_access_rates[{int(cross[1]) - 1}]"
        return "topology." + {"rate": "access_rate", "delay": "access_delay"}.get(
            what, "access_queue"
        )
    if kind == "fat_tree":
        return "topology." + {"rate": "rate", "delay": "hop_delay"}.get(what, "buffer_bytes")
    for j, spec in enumerate(topo["links"]):
        ends = (spec["from"], spec["to"])
        if ends == (a, b) or (spec["duplex"] and ends == (b, a)):
            return f"topology.links[{j}].{what}"
    return "topology"


# --- the checks ----------------------------------------------------------------


def _mean_of(var: Any) -> float | None:
    """The mean of a random variable spec, where it is plain to see."""
    data = var.model_dump() if hasattr(var, "model_dump") else var
    dist = data.get("dist")
    if dist == "constant":
        return float(data["value"])
    if dist == "uniform":
        return (float(data["low"]) + float(data["high"])) / 2
    if dist in ("normal", "exponential"):
        return float(data["mean"])
    return None


def _units(sc: Scenario) -> list[Trap]:
    """Magnitudes that read like a unit mistake, outside the paths."""
    out = []
    if sc.duration > LONG_RUN:
        out.append(
            Trap(
                "duration",
                f"{time_text(sc.duration)} is over an hour of simulated time: milliseconds "
                f'written as seconds? (write "{sc.duration:g}ms" for milliseconds)',
                kind="long-run",
            )
        )
    for i, imp in enumerate(sc.impairments):
        held: Iterable[tuple[str, float | None]] = ()
        if imp.kind == "delay":
            held = [("delay", _mean_of(imp.delay))]
        elif imp.kind == "arq":
            held = [("link_rtt", imp.link_rtt)]
        elif imp.kind == "reorder":
            held = [("delay", None if imp.delay is None else _mean_of(imp.delay))]
        for name, value in held:
            if value is not None and value >= LONG_DELAY:
                out.append(
                    Trap(
                        f"impairments[{i}].{name}",
                        f"holds packets {time_text(value)} on average: milliseconds "
                        "written as seconds? (delays are in seconds)",
                        kind="held",
                    )
                )
    return out


def _rtt(p: dict[str, Any]) -> tuple[float, float]:
    """(round-trip propagation delay, that plus one data packet's and one
    ACK's transmission on every hop) of a flow's path, seconds."""
    prop = sum(h["delay"] for h in p["forward"]) + sum(h["delay"] for h in p["reverse"])
    tx = sum(8 * p["mss"] / h["rate"] for h in p["forward"])
    tx += sum(8 * p["ack_size"] / h["rate"] for h in p["reverse"])
    return prop, prop + tx


def _path_traps(sc: Scenario, p: dict[str, Any]) -> list[Trap]:
    """The checks of one flow's path."""
    if not p["forward"]:
        return []
    out = []
    flow = f"flows[{p['flow']}]"
    for h in [*p["forward"], *p["reverse"]]:
        if h["delay"] >= LONG_DELAY:
            out.append(
                Trap(
                    link_field(sc, h["link"], "delay"),
                    f"{time_text(h['delay'])} one way on {h['link']}: milliseconds written "
                    f'as seconds? (write "{h["delay"]:g}ms" for milliseconds)',
                    kind="delay",
                )
            )
        if h["rate"] < SLOW_RATE:
            out.append(
                Trap(
                    link_field(sc, h["link"], "rate"),
                    f"{rate_text(h['rate'])} on {h['link']}: Mb/s written as b/s? (rates are "
                    f'in bit/s; write "{h["rate"]:g}Mbps" for Mb/s)',
                    kind="rate",
                )
            )
    for h in p["forward"]:
        tx = 8 * p["mss"] / h["rate"]
        if tx > sc.duration:
            out.append(
                Trap(
                    link_field(sc, h["link"], "rate"),
                    f"one {p['mss']}-byte packet of {flow} takes {time_text(tx)} to send on "
                    f"{h['link']} at {rate_text(h['rate'])}, longer than the run "
                    f"({time_text(sc.duration)})",
                    kind="transmission",
                )
            )
    out += _bottleneck(sc, p)
    out += _bdp(sc, p)
    return out


def _bottleneck(sc: Scenario, p: dict[str, Any]) -> list[Trap]:
    """A builder's bottleneck (chain, dumbbell: R1-R2; parking lot: the
    router hops) faster than another link of the flow's path."""
    kind = sc.topology.kind
    if kind not in ("chain", "dumbbell", "parking_lot"):
        return []
    router = re.compile(r"R\d+")

    def designated(h: dict[str, Any]) -> bool:
        return all(router.fullmatch(n) for n in h["link"].split("->"))

    core = [h for h in p["forward"] if designated(h)]
    edge = [h for h in p["forward"] if not designated(h)]
    if not core or not edge:
        return []
    slowest_core = min(h["rate"] for h in core)
    slow = min(edge, key=lambda h: h["rate"])
    if slow["rate"] >= slowest_core:
        return []
    bottleneck = min(core, key=lambda h: h["rate"])
    return [
        Trap(
            link_field(sc, slow["link"], "rate"),
            f"{rate_text(slow['rate'])} on {slow['link']} is below the bottleneck "
            f"{link_field(sc, bottleneck['link'], 'rate')} ({rate_text(slowest_core)}): "
            f"the access link, not the bottleneck, limits flows[{p['flow']}]",
            kind="bottleneck",
        )
    ]


def _bdp(sc: Scenario, p: dict[str, Any]) -> list[Trap]:
    """The narrowest link's queue and the flow's window against the
    path's BDP; the run's length against its round trip."""
    out = []
    flow = f"flows[{p['flow']}]"
    narrow = min(p["forward"], key=lambda h: h["rate"])
    prop, rtt = _rtt(p)
    bdp = narrow["rate"] * prop / (8 * p["mss"])
    where = (
        f"{flow}'s path ({rate_text(narrow['rate'])} on {narrow['link']}, "
        f"{time_text(prop)} round-trip propagation, {p['mss']}-byte packets)"
    )
    limits = [narrow["limit_packets"]] if narrow["limit_packets"] is not None else []
    if narrow["limit_bytes"] is not None:
        limits.append(narrow["limit_bytes"] // p["mss"])
    if limits and bdp >= 1:
        q = min(limits)
        low, high = QUEUE_BDP
        field = link_field(sc, narrow["link"], "queue")
        if q < low * bdp:
            out.append(
                Trap(
                    field,
                    f"{q} packets is {q / bdp:.2f} BDP of {where}, whose BDP is "
                    f"{bdp:.0f} packets: expect queue drops at {narrow['link']}",
                    kind="queue",
                )
            )
        elif q > high * bdp:
            out.append(
                Trap(
                    field,
                    f"{q} packets is {q / bdp:.0f} BDPs of {where}: a full queue adds "
                    f"{time_text(q * 8 * p['mss'] / narrow['rate'])} to the RTT",
                    kind="queue",
                )
            )
    if p["max_window"] < bdp:
        out.append(
            Trap(
                f"{flow}.tcp.max_window",
                f"{p['max_window']} segments is below the BDP of {where}, {bdp:.0f} "
                "segments: the window, not the network, limits the flow",
                kind="window",
            )
        )
    if sc.duration < MIN_RTTS * rtt:
        out.append(
            Trap(
                "duration",
                f"{time_text(sc.duration)} is {sc.duration / rtt:.1f} round trips of {flow}'s "
                f"path ({time_text(rtt)}): shorter than {MIN_RTTS} RTTs, the run ends in "
                "slow start",
                kind="short-run",
            )
        )
    return out
