"""What a property-test worker process does with one case (see
``tests/test_properties.py``): build the scenario, run it, and judge the
outcome. Runs in a child process, so that a hang can be ended by a timeout
and an abort is seen as the child's death, not the test runner's."""

from __future__ import annotations

import math
import traceback
from typing import Any

#: Outcomes that are fine: a result with no impossible number, or a refusal
#: on one line naming a field.
GOOD = ("ok", "refused")


def serve(conn: Any) -> None:
    """Answer each ``(data, seed)`` received on ``conn`` with
    :func:`evaluate`'s verdict, until the pipe closes."""
    import reorderlab  # noqa: F401  (imported once, before the first case)

    while True:
        try:
            data, seed = conn.recv()
        except EOFError:
            return
        conn.send(evaluate(data, seed))


def evaluate(data: Any, seed: int) -> dict[str, Any]:
    """``{"outcome": ok | refused | impossible | traceback, "detail": str}``."""
    import reorderlab as rl
    from reorderlab.scenario import ScenarioError

    try:
        sc = rl.Scenario.from_dict(data)
    except ScenarioError as exc:
        return _refusal(str(exc))
    except Exception:
        return {"outcome": "traceback", "detail": traceback.format_exc()}
    try:
        res = rl.run(sc, seed=seed)
    except ScenarioError as exc:  # a limit reached during the run
        return _refusal(str(exc))
    except Exception:
        return {"outcome": "traceback", "detail": traceback.format_exc()}
    problems = impossible_numbers(sc.to_dict(), res.to_dict())
    if problems:
        return {"outcome": "impossible", "detail": "; ".join(problems[:5])}
    return {"outcome": "ok", "detail": ""}


def _refusal(text: str) -> dict[str, Any]:
    """A refusal must be one line: ``field.path: what, got value``."""
    path, sep, rest = text.partition(": ")
    if "\n" in text or not sep or not rest or " " in path:
        return {"outcome": "bad-message", "detail": text}
    return {"outcome": "refused", "detail": text}


def _numbers(obj: Any, where: str = "") -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _numbers(v, f"{where}.{k}" if where else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _numbers(v, f"{where}[{i}]")
    elif isinstance(obj, int | float) and not isinstance(obj, bool):
        out.append((where, float(obj)))
    return out


def _rates(scenario: dict[str, Any]) -> list[float]:
    topo = scenario["topology"]
    rates = [topo.get(k) for k in ("access_rate", "bottleneck_rate")]
    rates += topo.get("hop_rates", []) + topo.get("cross_access_rates", [])
    rates += [link["rate"] for link in topo.get("links", [])]
    return [float(r) for r in rates if r is not None]


def impossible_numbers(scenario: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """What no run can give: NaN or infinite numbers (the core writes a
    metric without a value as null), negative counts, goodput above the
    fastest link, a flow delivering more than it sent, a link delivering
    more than it accepted."""
    out: list[str] = []
    for where, v in _numbers(result):
        if not math.isfinite(v):
            out.append(f"{where} = {v}")
        elif v < 0 and not where.endswith(("_delta", "skew")):
            out.append(f"{where} = {v} < 0")
    # goodput is measured after the warmup: one packet finishing its
    # transmission may add its bits to a short window
    window = float(scenario["duration"]) - float(scenario.get("warmup", 0.0))
    fastest = max(_rates(scenario), default=math.inf) * 1.001 + 8 * 65_536 / window
    for i, f in enumerate(result.get("flows", [])):
        thr = f.get("throughput_bps") or 0.0
        if thr > fastest:
            out.append(f"flows[{i}].throughput_bps {thr} above the fastest link {fastest}")
        if f.get("segments_delivered", 0) > f.get("segments_sent", 0):
            out.append(f"flows[{i}] delivered {f['segments_delivered']} > sent")
        if f.get("bytes_delivered", 0) > f.get("bytes_sent", 0):
            out.append(f"flows[{i}] delivered {f['bytes_delivered']} bytes > sent")
    for link in result.get("links", []):
        name = link.get("link", "?")
        if link["delivered"] + link.get("in_system_at_end", 0) != link["enqueued"]:
            out.append(f"link {name}: enqueued != delivered + in system")
        if link["enqueued"] + link["queue_drops"] > link["arrivals"]:
            out.append(f"link {name}: more enqueued or dropped than arrived")
    return out
