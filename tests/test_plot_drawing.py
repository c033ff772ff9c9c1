"""How the papers' line plots are drawn (issue 41): curves that coincide
stay visible and say so, one quantity per axis, a y axis for values that
span decades; the CSV of the plotted points is the same either way."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from reorderlab.plot import coinciding, line_plot


def _drawn(monkeypatch: object, tmp_path: Path, **kw: object) -> Figure:
    """Draw with line_plot and keep the figure it saved."""
    saved: list[Figure] = []
    original = Figure.savefig

    def keep(self: Figure, *args: object, **kwargs: object) -> None:
        saved.append(self)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Figure, "savefig", keep)  # type: ignore[attr-defined]
    line_plot(tmp_path, "p", xlabel="x", ylabel="value", **kw)  # type: ignore[arg-type]
    return saved[0]


SERIES = {
    "Linux": ([1.0, 2.0], [3.0, 4.0], None),
    "RACK-TLP": ([1.0, 2.0], [3.0, 4.0], None),
    "SACK": ([1.0, 2.0], [3.0, 5.0], None),
    "TLP": ([1.0, 2.0], [3.0, 5.02], None),  # 1 % of the span off SACK: on top
    "RTOR": ([1.0, 2.0], [3.1, 4.0], None),  # 5 % off: beside
}


def test_a_curve_equal_to_an_earlier_one_is_said_so(monkeypatch: object, tmp_path: Path) -> None:
    assert coinciding(SERIES) == {"RACK-TLP": "Linux", "TLP": "SACK"}
    fig = _drawn(monkeypatch, tmp_path, series=SERIES)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["Linux", "RACK-TLP (on top of Linux)", "SACK", "TLP (on top of SACK)", "RTOR"]
    lines = fig.axes[0].get_lines()
    assert lines[1].get_linestyle() == "--" and lines[1].get_markerfacecolor() == "none"
    assert lines[0].get_linestyle() == "-"


def test_panels_put_one_quantity_per_axis_and_keep_the_csv(
    monkeypatch: object, tmp_path: Path
) -> None:
    line_plot(tmp_path / "one", "p", SERIES, xlabel="x", ylabel="value")
    panels = {
        "Linux": "a (%)",
        "RACK-TLP": "b (ms)",
        "SACK": "a (%)",
        "TLP": "a (%)",
        "RTOR": "b (ms)",
    }
    fig = _drawn(monkeypatch, tmp_path, series=SERIES, panels=panels)
    assert [ax.get_ylabel() for ax in fig.axes] == ["a (%)", "b (ms)"]
    assert [len(ax.get_lines()) for ax in fig.axes] == [3, 2]
    assert (tmp_path / "p.csv").read_bytes() == (tmp_path / "one" / "p.csv").read_bytes()


def test_symlog_y_shows_zero_and_decades(monkeypatch: object, tmp_path: Path) -> None:
    series = {"a": ([1.0, 2.0, 3.0], [0.0, 5.0, 1000.0], None)}
    fig = _drawn(monkeypatch, tmp_path, series=series, symlogy=True)
    assert fig.axes[0].get_yscale() == "symlog"
