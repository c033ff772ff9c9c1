"""Plots: the same plot gives the same bytes (PNG, SVG, CSV) every time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

PLOT = """
import sys
sys.path.insert(0, {root!r})
from reorderlab.plot import line_plot
line_plot({out!r}, "fig", {{"SACK": ([0.001, 0.01, 0.1], [9e6, 5e6, 1e6], None),
                           "RR": ([0.001, 0.01, 0.1], [9.5e6, 6e6, 2e6], [1e5, 2e5, 3e5])}},
          xlabel="loss rate", ylabel="throughput (b/s)", title="t", logx=True)
"""


def test_a_plot_is_the_same_bytes_in_another_process(tmp_path: Path) -> None:
    # each in a new process: matplotlib's SVG ids were salted per process
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        code = PLOT.format(root=str(ROOT), out=str(out))
        subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    for name in ("fig.png", "fig.svg", "fig.csv"):
        first, second = ((out / name).read_bytes() for out in outs)
        assert first == second, name
    assert b"<dc:date>" not in (outs[0] / "fig.svg").read_bytes()
