"""The validation matrix: which cells there are, their names, the quick and
full selections and the ``--cells`` filter (issue 35).

A cell is one setting run on the kernel (``reorderlab emulate``) and in the
simulator. Three kinds:

* ``bulk``: one bulk flow over a chain whose bottleneck has the given rate
  and round-trip time and a queue of one bandwidth-delay product; none, or a
  fraction of the data packets held for a constant ``hold`` x RTT (which
  reorders them); random loss of a fraction of the data packets;
* ``tail``: the tail-loss paper's Fig. 1 setting: a 10-segment flow on a
  fresh connection whose last ``lost`` segments are dropped once;
* ``burst``: a 100-segment flow losing a burst of ``lost`` consecutive
  segments in its middle.

Each with congestion control reno, cubic or bbr (BBRv1 with the kernel's
internal pacing; issue 37), and the kernel configured as
``Linux`` (its defaults) or ``Linux-classic`` (the classic switches,
``docs/emulation.md``), against the simulator's variant of the same name.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Literal

Kind = Literal["bulk", "tail", "burst"]
CONFIGS = ("Linux", "Linux-classic")
CCS = ("reno", "cubic", "bbr")

#: Full matrix (bulk): bottleneck rates, RTTs, reordering (fraction, hold
#: as a multiple of the RTT; (0, 0): none), random loss.
RATES = (10e6, 100e6)
RTTS = (0.01, 0.05, 0.2)
REORDERINGS = ((0.0, 0.0), *tuple((f, h) for f in (0.01, 0.05, 0.25) for h in (0.25, 1.0)))
LOSSES = (0.0, 0.01)
#: Finite flows: tail-loss Fig. 1 (n lost of 10 at these RTTs), the burst.
TAIL_LOST = (0, 1, 2, 3, 4)
TAIL_RTTS = (0.01, 0.02, 0.04, 0.08, 0.16)
BURST_RTTS = (0.01, 0.05, 0.2)
BURST_LOST = 5


@dataclass(frozen=True)
class Cell:
    """One setting of the matrix."""

    kind: Kind
    config: str
    cc: str
    rtt: float
    rate: float = 10e6
    reorder: float = 0.0
    hold: float = 0.0
    loss: float = 0.0
    lost: int = 0

    @property
    def name(self) -> str:
        """``kind/config/cc/...``: unique, readable, matched by ``--cells``."""
        head = f"{self.kind}/{self.config}/{self.cc}"
        rtt = f"{self.rtt * 1000:g}ms"
        if self.kind == "tail":
            return f"{head}/{rtt}/n{self.lost}"
        if self.kind == "burst":
            return f"{head}/{rtt}/burst{self.lost}"
        reo = "none" if self.reorder == 0 else f"{self.reorder:.0%}x{self.hold:g}rtt"
        return f"{head}/{self.rate / 1e6:g}M/{rtt}/{reo}/loss{self.loss:.0%}"

    @property
    def finite(self) -> bool:
        return self.kind != "bulk"


def full_cells() -> list[Cell]:
    """Every cell of the full matrix (issue 35's product)."""
    cells: list[Cell] = []
    for config in CONFIGS:
        for cc in CCS:
            for rate in RATES:
                for rtt in RTTS:
                    for f, h in REORDERINGS:
                        for loss in LOSSES:
                            cells.append(Cell("bulk", config, cc, rtt, rate, f, h, loss))
            for rtt in TAIL_RTTS:
                for n in TAIL_LOST:
                    cells.append(Cell("tail", config, cc, rtt, lost=n))
            for rtt in BURST_RTTS:
                cells.append(Cell("burst", config, cc, rtt, lost=BURST_LOST))
    return cells


def quick_cells() -> list[Cell]:
    """The quick selection (<= 15 minutes of real time with its kernel runs):
    10 Mb/s x 50 ms bulk cells with no impairment, 1 % loss, 5 % held 0.25
    RTT and 25 % held 1 RTT, for the three controls and both configurations; a clean
    100 Mb/s x 10 ms cell per configuration (cubic); tail loss of 1 and 3
    segments at 10, 40 and 160 ms (cubic); a burst at 50 ms."""
    cells: list[Cell] = []
    for config in CONFIGS:
        for cc in CCS:
            for f, h, loss in ((0, 0, 0), (0, 0, 0.01), (0.05, 0.25, 0), (0.25, 1.0, 0)):
                cells.append(Cell("bulk", config, cc, 0.05, 10e6, f, h, loss))
        cells.append(Cell("bulk", config, "cubic", 0.01, 100e6))
        for rtt in (0.01, 0.04, 0.16):
            for n in (1, 3):
                cells.append(Cell("tail", config, "cubic", rtt, lost=n))
        cells.append(Cell("burst", config, "cubic", 0.05, lost=BURST_LOST))
    return cells


def select(quick: bool, pattern: str | None) -> list[Cell]:
    """The cells of a mode, filtered by ``pattern``: shell-style patterns
    (``*`` any text) separated by commas, each matched against the cell's
    name (``bulk/Linux/*``, ``tail/*/cubic/*``); a plain word matches any
    cell whose name contains it."""
    cells = quick_cells() if quick else full_cells()
    if not pattern:
        return cells
    parts = [p.strip() for p in pattern.split(",") if p.strip()]

    def matches(name: str) -> bool:
        for p in parts:
            glob = p if any(c in p for c in "*?[") else f"*{p}*"
            if fnmatch.fnmatchcase(name, glob):
                return True
        return False

    return [c for c in cells if matches(c.name)]
