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


def test_figures_drawn_in_background_are_written_when_the_block_ends(tmp_path: Path) -> None:
    from reorderlab.plot import in_background, line_plot

    series = {"SACK": ([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], None)}
    line_plot(tmp_path / "now", "fig", series, xlabel="x", ylabel="y")
    with in_background():
        paths = line_plot(tmp_path / "later", "fig", series, xlabel="x", ylabel="y")
        assert paths[2].exists()  # the CSV at once
    for name in ("fig.png", "fig.svg", "fig.csv"):
        assert (tmp_path / "later" / name).read_bytes() == (tmp_path / "now" / name).read_bytes()


def test_a_figure_that_fails_in_background_fails_the_block(tmp_path: Path) -> None:
    import pytest

    from reorderlab.plot import in_background, line_plot

    with pytest.raises(ValueError), in_background():
        line_plot(
            tmp_path,
            "bad",
            {"a": ([1.0], [1.0], None)},
            xlabel="x",
            ylabel="y",
            styles={"a": "not a style"},  # matplotlib refuses it when drawing
        )


def test_figures_drawn_by_several_drawers_are_the_bytes_drawn_here(tmp_path: Path) -> None:
    from reorderlab.plot import DRAWERS, in_background, line_plot

    figures = {
        f"fig{i}": {"SACK": ([1.0, 2.0, 3.0], [3.0, 2.0, float(i)], None)}
        for i in range(DRAWERS + 2)
    }
    for stem, series in figures.items():
        line_plot(tmp_path / "now", stem, series, xlabel="x", ylabel="y", logx=True)
    with in_background():
        for stem, series in figures.items():
            line_plot(tmp_path / "later", stem, series, xlabel="x", ylabel="y", logx=True)
    for stem in figures:
        for ext in (".png", ".svg"):
            later = (tmp_path / "later" / f"{stem}{ext}").read_bytes()
            assert later == (tmp_path / "now" / f"{stem}{ext}").read_bytes(), stem + ext
