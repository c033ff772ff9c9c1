"""``fig4``: the rr-tcp paper's Fig. 4 on the real kernel vs the simulator, and
the steps of a figure that also runs the kernel (:class:`KernelFigure`).
The setting and what was found: :mod:`.setting`."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from reorderlab.checks import (
    each_within,
    pct,
    that,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    series_str,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    Lines,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    FigureRecipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
    write_table,
)
from reorderlab.papers.rr_tcp.setting import (
    MSS,
)
from reorderlab.papers.validation.setting import (
    BAND,
    CONFIGS,
    DURATION,
    FIGURE,
    FRACTIONS_OF,
    PAPER,
    SIM_SEEDS,
    KernelPoint,
    grid,
    measure,
    read_kernel,
    s_pps,
    scenario,
)
from reorderlab.store import (
    Store,
)


def _points(quick: bool) -> Plan:
    duration = DURATION(quick)
    points: list[Point] = [
        ({"config": config, "x": x}, scenario(config, x, duration)) for config, x in grid(quick)
    ]
    return {RUNS: Sweep(points, seeds=SIM_SEEDS)}


def _table(
    runs: Runs, kernel: Mapping[tuple[str, float], KernelPoint]
) -> Derived[list[dict[str, Any]]]:
    """One row per (configuration, fraction): kernel and simulator
    throughput over S, their ratio, and what each counted."""
    df = runs.table()
    rows: list[dict[str, Any]] = []
    for key, g in df.groupby(["config", "x"], sort=False):
        config, x = cast(tuple[str, float], key)
        k = kernel[(str(config), float(x))]
        norm = g["throughput_bps"].astype(float) / 8 / MSS / s_pps()
        sim = float(norm.mean())
        rows.append(
            {
                "config": str(config),
                "x": float(x),
                "kernel": k.norm,
                "sim": sim,
                "sim_sd": float(norm.std(ddof=1)) if len(norm) > 1 else 0.0,
                "ratio": sim / k.norm if k.norm > 0 else math.nan,
                "kernel_fast_retransmits": k.fast_retransmits,
                "sim_fast_retransmits": float(g["fast_retransmits"].astype(float).mean()),
                "kernel_timeouts": k.timeouts,
                "sim_timeouts": float(g["timeouts"].astype(float).mean()),
                "kernel_undos": k.undos,
                "timing_p99_us": k.timing_p99_us,
            }
        )
    return Derived(rows, {"fig4_points": rows})


def _unused_table(runs: Runs, quick: bool) -> Derived[list[dict[str, Any]]]:
    raise RuntimeError("the validation table reads the kernel runs: use KernelFigure.derive")


_TITLE = "Fig. 4 setting: kernel vs simulator ({duration:g} s, sim {seeds} seeds)"
XLABEL = "fraction of packets delayed (%)"
KERNEL_VS_SIMULATOR = LineFigure(
    "fig4_kernel_vs_simulator",
    XLABEL,
    "throughput / S",
    _TITLE,
    styles={
        "kernel Linux": "o-",
        "simulator Linux": "s--",
        "kernel Linux-classic": "^-",
        "simulator Linux-classic": "v--",
    },
)
RATIO = LineFigure(
    "fig4_ratio", XLABEL, "simulator / kernel", f"{_TITLE}: ratio (band {1 - BAND:g}-{1 + BAND:g})"
)


def _plot(rows: list[dict[str, Any]], out: Path, quick: bool) -> None:
    series: Lines = {}
    ratios: Lines = {}
    for config in CONFIGS:
        mine = [r for r in rows if r["config"] == config]
        xs = [100 * r["x"] for r in mine]
        series[f"kernel {config}"] = (xs, [r["kernel"] for r in mine], None)
        series[f"simulator {config}"] = (xs, [r["sim"] for r in mine], [r["sim_sd"] for r in mine])
        ratios[config] = (xs, [r["ratio"] for r in mine], None)
    fields = {"duration": DURATION(quick), "seeds": SIM_SEEDS}
    KERNEL_VS_SIMULATOR.draw(out, series, **fields)
    RATIO.draw(out, ratios, **fields)


def _claim(claim: str, check: Any, measured: str, **values: Any) -> Claim:
    return make_claim(PAPER, FIGURE, claim, check, measured, **values)


def _claims(rows: list[dict[str, Any]], quick: bool) -> list[Claim]:
    by = {(r["config"], r["x"]): r for r in rows}
    fractions = FRACTIONS_OF(quick)
    claims = []
    for config in CONFIGS:
        ratios = {x: by[(config, x)]["ratio"] for x in fractions}
        claims.append(
            _claim(
                f"The simulator's {config} variant predicts the kernel configured as "
                f"{config} at every fraction of delayed packets",
                each_within(
                    ratios, 1 - BAND, 1 + BAND, "simulator / kernel throughput", "at every fraction"
                ),
                "ratio by fraction delayed: " + series_str(ratios, "{:.3f}", "{:.0%}"),
                ratios=ratios,
            )
        )
    top = max(fractions)
    if top > 0:
        sides = {
            side: by[("Linux-classic", top)][side] / by[("Linux", top)][side]
            for side in ("kernel", "sim")
        }
        claims.append(
            _claim(
                f"Without undo (Linux-classic) throughput at {top:.0%} delayed falls far below "
                "the kernel's defaults, on the kernel and in the simulator alike",
                that(all(v < 0.5 for v in sides.values()), "classic / defaults < 0.5 on both"),
                f"kernel {sides['kernel']:.3f}, simulator {sides['sim']:.3f}",
                **sides,
            )
        )
    p99 = {f"{r['config']} {pct(r['x'])}": r["timing_p99_us"] for r in rows}
    worst = max(p99.values())
    claims.append(
        _claim(
            "The emulated path kept its schedule in every kernel run",
            that(worst < 1000, "per-packet timing error p99 < 1 ms in every kernel run"),
            f"worst p99 {worst:.0f} us",
            p99_us=p99,
        )
    )
    return claims


@dataclass(frozen=True)
class KernelFigure(FigureRecipe):
    """A figure that also needs the real kernel: :meth:`run` first makes the
    kernel runs (:func:`measure`, real time), or says why it cannot and
    returns no claim; :meth:`derive` reads them back beside the simulated
    runs, so a recheck reads everything and runs nothing."""

    def run(
        self, quick: bool, out: Path, store: Store | None, plan: Plan | None = None
    ) -> list[Claim]:
        from reorderlab.emulate import unavailable_reason

        reason = unavailable_reason()
        if reason is not None:
            print(f"validation: skipped: {reason}", file=sys.stderr)
            return []
        measure(quick, out)
        return super().run(quick, out, store, plan)

    def derive(self, runs: Runs, quick: bool, out: Path) -> Derived[Any]:
        derived = _table(runs, read_kernel(out, quick))
        for stem, rows in derived.csv.items():
            write_table(out, stem, rows)
        return derived


FIGURES = (
    KernelFigure(
        PAPER,
        FIGURE,
        "rr-tcp Fig. 4 on the real kernel vs the simulator (root; Linux and Linux-classic)",
        points=_points,
        table=_unused_table,
        plot=_plot,
        claims=_claims,
        in_all=False,
    ),
)
