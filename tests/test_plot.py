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


def _full_cdf(sample: list[float]) -> list[tuple[float, float]]:
    """Every point of the empirical CDF, as the plots drew it before."""
    import numpy as np

    v = np.sort(np.asarray(sample, dtype=float))
    ys = np.arange(1, len(v) + 1) / len(v)
    return list(zip(v.tolist(), ys.tolist(), strict=True))


def test_a_small_cdf_keeps_every_point() -> None:
    from reorderlab.plot import cdf_points

    sample = [0.3, 0.1, 0.2, 0.2, 5.0]
    xs, ys = cdf_points(sample, max_points=5)
    assert list(zip(xs, ys, strict=True)) == _full_cdf(sample)
    assert cdf_points([]) == ([], [])


def test_a_big_cdf_is_thinned_to_exact_points_with_its_extremes() -> None:
    import itertools
    import math

    import numpy as np

    from reorderlab.plot import cdf_points

    rng = np.random.default_rng(1)
    for n, most in ((100_003, 1000), (5_000, 1000), (1001, 1000), (50, 7), (10, 2)):
        # heavy-tailed, with ties (values rounded to 1 ms)
        sample = np.round(rng.lognormal(-1.0, 1.5, n), 3).tolist()
        full = _full_cdf(sample)
        xs, ys = cdf_points(sample, max_points=most)
        kept = list(zip(xs, ys, strict=True))
        assert len(kept) <= most
        assert kept[0] == full[0] and kept[-1] == full[-1]  # min, and max at 1.0
        assert ys[-1] == 1.0 and xs[0] == min(sample) and xs[-1] == max(sample)
        assert set(kept) <= set(full)  # each exactly a point of the whole CDF
        assert kept == sorted(kept)
        gap = math.ceil(n / (most - 1)) / n
        assert max(b - a for a, b in itertools.pairwise(ys)) <= gap + 1e-12


def test_a_cdf_needs_two_points() -> None:
    import pytest

    from reorderlab.plot import cdf_points

    with pytest.raises(ValueError, match="max_points: must be >= 2, got 1"):
        cdf_points([1.0, 2.0, 3.0], max_points=1)
