"""Fig. 3's data (:mod:`.fig3`): the flows with a tail drop of each case,
pooled over the seeds and seed by seed, and each run's bottleneck."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reorderlab.papers.tail_loss.setting import (
    FIG3_OWDS,
    FIG3_RATE,
    FIG3_SIZES,
    MSS,
    RECEIVERS,
    as_records,
    floats,
    ints,
)


def tail_objects(raw: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The foreground objects that completed with a drop among their last
    four segments, in order: their FCTs (s), timeouts and tail drops."""
    fg = next(t for t in raw["traffic"] if t["name"] == "fg")
    objs = as_records(fg["object_list"])
    octs, drops = floats(objs, "oct"), ints(objs, "tail_drops")
    keep = ~np.isnan(octs) & (drops > 0)
    return octs[keep], ints(objs, "timeouts")[keep], drops[keep]


#: (segments, one-way delay, receiver) of a Fig. 3 panel.
Case = tuple[int, float, str]


def fig3_mode(quick: bool) -> tuple[float, tuple[int, ...], tuple[float, ...], list[Case]]:
    """Run length, object sizes, one-way delays and the panels' cases."""
    duration = 120.0 if quick else 300.0
    sizes = (4, 100) if quick else FIG3_SIZES
    owds = (0.005, 0.16) if quick else FIG3_OWDS
    cases = [
        (n, owd, r) for n in sizes for owd in owds for r in RECEIVERS if n < 100 or r == "quickack"
    ]
    return duration, sizes, owds, cases


@dataclass(frozen=True)
class Fig3:
    """FCTs of the objects with a tail drop, by (variant, size, owd,
    receiver), with their timeouts and tail drops; each run's bottleneck
    drop rate and largest queueing delay (s); per variant, the foreground's
    spurious retransmissions and data packets sent."""

    octs: dict[tuple[str, int, float, str], list[float]]
    timeouts: dict[tuple[str, int, float, str], list[int]]
    drops: dict[tuple[str, int, float, str], list[int]]
    loss: list[float]
    queueing: list[float]
    spurious: dict[str, list[int]]

    @staticmethod
    def empty() -> Fig3:
        return Fig3({}, {}, {}, [], [], {})

    def add(self, rec: dict[str, Any], raw: dict[str, Any]) -> None:
        """Add one run: its tail-drop objects (FCT, timeouts) and its bottleneck."""
        case = (str(rec["variant"]), int(rec["size"]), float(rec["owd"]), str(rec["receiver"]))
        octs, timeouts, drops = tail_objects(raw)
        self.octs.setdefault(case, []).extend(octs.tolist())
        self.timeouts.setdefault(case, []).extend(timeouts.tolist())
        self.drops.setdefault(case, []).extend(drops.tolist())
        loss, queueing = bottleneck(raw)
        self.loss.append(loss)
        self.queueing.append(queueing)
        fg = next(t for t in raw["traffic"] if t["name"] == "fg")
        count = self.spurious.setdefault(case[0], [0, 0])
        count[0] += int(fg["spurious_retransmits"])
        count[1] += int(fg["data_packets_sent"])

    def merge(self, other: Fig3) -> None:
        for case, x in other.octs.items():
            self.octs.setdefault(case, []).extend(x)
        for case, t in other.timeouts.items():
            self.timeouts.setdefault(case, []).extend(t)
        for case, t in other.drops.items():
            self.drops.setdefault(case, []).extend(t)
        self.loss.extend(other.loss)
        self.queueing.extend(other.queueing)
        for v, (spurious, sent) in other.spurious.items():
            count = self.spurious.setdefault(v, [0, 0])
            count[0] += spurious
            count[1] += sent

    def median(self, v: str, n: int, owd: float, r: str) -> float:
        x = self.octs.get((v, n, owd, r), [])
        return float(np.median(x)) if x else float("nan")


@dataclass(frozen=True)
class Fig3Data:
    """Fig. 3 pooled over its seeds and seed by seed, the calibration and
    sensitivity tables, and the loss patterns replayed."""

    pooled: Fig3
    seeds: dict[int, Fig3]
    calibration: pd.DataFrame
    sensitivity: pd.DataFrame
    replay: pd.DataFrame


def bottleneck(raw: dict[str, Any]) -> tuple[float, float]:
    """A Fig. 3 run's bottleneck drop rate and largest queueing delay (s)."""
    link = next(x for x in raw["links"] if x["link"] == "R1->R2")
    loss = link["queue_drops"] / max(1, link["arrivals"])
    return float(loss), float(link["max_queue"]) * MSS * 8 / FIG3_RATE
