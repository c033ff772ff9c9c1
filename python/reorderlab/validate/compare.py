"""A cell's verdict: the simulator's runs against the kernel's.

* Bulk cells compare goodput in data segments per second (the kernel
  acknowledges payload bytes, 1448 or 1460 per 1500-byte packet; the
  simulator delivers packets of ``mss`` bytes), finite flows their
  completion time (from the SYN to the last byte at the receiver).
  The kernel's FCT is taken from the emulator's captures (SYN sent to the
  last segment's arrival, :func:`.firstdiff.wire_fct`), as the simulator
  counts it. The ratio is simulator (mean of the seeds) / kernel.
* Counts side by side: retransmissions (the wire's, both sides), recovery
  episodes, timeouts, spurious retransmissions (ground truth on the wire:
  a retransmission of a segment that had already arrived), and for
  information TLP probes, DSACKs received and undos.
* Targets (issue 35): ``Linux`` within 10 %, ``Linux-classic`` within
  15 %; each checked count within 20 % or +/- 2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from reorderlab.validate.cells import Cell
from reorderlab.validate.scenarios import PACKET, payload

#: simulator / kernel must lie within 1 +/- band
BANDS = {"Linux": 0.10, "Linux-classic": 0.15}
#: counts held to the 20 % / +/- 2 rule
CHECKED_COUNTS = ("retransmits", "fast_recoveries", "timeouts", "spurious_retransmits")
#: counts shown beside them
SHOWN_COUNTS = ("fast_retransmits", "tlp_probes", "dsacks_received", "undos")
COUNT_SHARE, COUNT_SLACK = 0.20, 2.0


def counts_agree(kernel: float | None, sim: float) -> bool:
    """The 20 % / +/- 2 rule (a count the kernel does not report agrees)."""
    if kernel is None or (isinstance(kernel, float) and math.isnan(kernel)):
        return True
    return abs(sim - kernel) <= max(COUNT_SLACK, COUNT_SHARE * abs(kernel))


def _mean(values: Sequence[Any]) -> float:
    xs = [
        float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))
    ]
    return sum(xs) / len(xs) if xs else math.nan


def _sd(values: Sequence[float]) -> float:
    xs = [v for v in values if not math.isnan(v)]
    if len(xs) < 2:
        return 0.0
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def kernel_value(cell: Cell, row: Mapping[str, Any]) -> float:
    """The kernel's goodput (segments/s) or FCT (s); NaN if it has none."""
    if cell.finite:
        fct = row.get("fct_wire", row.get("fct"))
        return float(fct) if fct is not None else math.nan
    return float(row["throughput_bps"]) / 8 / payload(cell.config)


def sim_values(cell: Cell, rows: Sequence[Mapping[str, Any]]) -> list[float]:
    """The simulator's goodput (segments/s) or FCT (s) of each seed."""
    if cell.finite:
        return [float(r["fct"]) if r.get("fct") is not None else math.nan for r in rows]
    return [float(r["throughput_bps"]) / 8 / PACKET for r in rows]


def verdict(
    cell: Cell, kernel_row: Mapping[str, Any], sim_rows: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """One row of the validation table."""
    k = kernel_value(cell, kernel_row)
    sims = sim_values(cell, sim_rows)
    s = _mean(sims)
    ratio = s / k if k and not math.isnan(k) else math.nan
    band = BANDS[cell.config]
    out: dict[str, Any] = {
        "cell": cell.name,
        "kind": cell.kind,
        "config": cell.config,
        "cc": cell.cc,
        "rate_mbps": cell.rate / 1e6,
        "rtt_ms": cell.rtt * 1000,
        "reorder": cell.reorder,
        "hold_rtt": cell.hold,
        "loss": cell.loss,
        "lost": cell.lost,
        "metric": "fct_s" if cell.finite else "goodput_pps",
        "kernel": k,
        "sim": s,
        "sim_sd": _sd(sims),
        "seeds": len(sims),
        "ratio": ratio,
        "band": band,
        "ratio_ok": not math.isnan(ratio) and abs(ratio - 1) <= band,
    }
    bad = []
    for name in CHECKED_COUNTS + SHOWN_COUNTS:
        kv = kernel_row.get(name)
        sv = _mean([r.get(name) for r in sim_rows])
        out[f"kernel_{name}"] = kv
        out[f"sim_{name}"] = sv
        if name in CHECKED_COUNTS and not counts_agree(kv, sv):
            bad.append(name)
    out["counts_ok"] = not bad
    out["counts_off"] = ",".join(bad)
    out["ok"] = bool(out["ratio_ok"] and not bad)
    return out
