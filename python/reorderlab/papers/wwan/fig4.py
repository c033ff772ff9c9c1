"""``fig4``: throughput vs the N2 buffer (:mod:`.setting`), and the buffer
each curve needs."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from reorderlab.checks import Check, band, difference, every
from reorderlab.claims import Claim
from reorderlab.papers.kit.claims import paper_claim, per_seed
from reorderlab.papers.kit.figure import LineFigure
from reorderlab.papers.kit.recipe import Derived, recipe
from reorderlab.papers.kit.runs import RUNS, Plan, Point, Runs, Sweep
from reorderlab.papers.wwan.setting import (
    BDP,
    DURATION,
    PAPER,
    PAPER_VARIANTS,
    RATE,
    SEEDS,
    VARIANTS,
    scenario,
)

FIG4_BUFFERS = (25, 50, 75, 100, 125, 150, 175, 200, 250)
#: The paper's three panels (drawn), then the no-error runs Sec. IV-B
#: speaks of (not drawn in the paper: the paper's variants, in-order).
FIG4_PANELS = (("droptail", 0.03), ("droptail", 0.10), ("red", 0.10))
NO_ERRORS = ("droptail", 0.0)
#: Throughput within this of another is "the same" (Mb/s): 1 % of the
#: link rate, a line's width on the paper's 0-10 Mb/s axis.
SAME = 0.01 * RATE / 1e6
WHERE = "Sec. IV-B, Fig. 4"


def _label(variant: str, in_order: bool) -> str:
    return f"{variant} {'in' if in_order else 'out'}"


def plan(quick: bool) -> Plan:
    duration = DURATION(quick)
    cases = [(q, e, v, io) for q, e in FIG4_PANELS for v in VARIANTS for io in (True, False)] + [
        (*NO_ERRORS, v, True) for v in PAPER_VARIANTS
    ]
    points: list[Point] = [
        (
            {"qdisc": q, "error": e, "variant": v, "in_order": io, "buffer": b},
            scenario(v, in_order=io, frame_error=e, duration=duration, buffer=b, qdisc=q),
        )
        for q, e, v, io in cases
        for b in FIG4_BUFFERS
    ]
    return {RUNS: Sweep(points, SEEDS(quick))}


#: A curve's buffer need when no buffer of Fig. 4's grid brings it within
#: reach of the panel's best: one 25-segment step past the grid's top, a
#: lower bound of the need (``fig4-need.csv``'s ``reached`` is false).
BEYOND = FIG4_BUFFERS[-1] + 25


def _smallest(curve: pd.DataFrame, level: float) -> float:
    enough = curve[curve["mbps"] >= level]["buffer"]
    return float(enough.min()) if len(enough) else math.nan


def _needs(runs: pd.DataFrame, within: float = SAME) -> pd.DataFrame:
    """Per curve and seed, the buffer need: the smallest buffer whose
    throughput comes within ``within`` Mb/s of "the highest possible
    throughput" (Sec. IV-B), read as the panel's best: the highest
    throughput any of the paper's curves reaches in that panel (queue and
    error rate) over the buffers, in that seed's runs (``need``; ``BEYOND``
    when the grid never gets there). ``need_own`` reads it as the curve's
    own best (shown beside, not judged)."""
    rows = []
    for (q, e, s), panel in runs.groupby(["qdisc", "error", "seed"], sort=False):
        panel_best = float(panel[panel["variant"].isin(PAPER_VARIANTS)]["mbps"].max())
        for (v, io), curve in panel.groupby(["variant", "in_order"], sort=False):
            best = float(curve["mbps"].max())
            need = _smallest(curve, panel_best - within)
            rows.append(
                {"qdisc": q, "error": e, "variant": v, "in_order": io, "seed": s,
                 "panel_mbps": panel_best, "best_mbps": best, "reached": not math.isnan(need),
                 "need": BEYOND if math.isnan(need) else need,
                 "need_own": _smallest(curve, best - within)}
            )  # fmt: skip
    return pd.DataFrame(rows)


#: Readings of "enough" for ``fig4_need_summary`` (share of the link rate).
NEED_READINGS = (0.01, 0.02, 0.05)


def _need_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per curve: the seed mean of its buffer need when "enough" is within
    1, 2 or 5 % of the link rate of the panel's best (``need_1pct``, ...;
    the claims read 1 %) and of the curve's own best (``own_need_1pct``,
    ...), and the share of seeds on which the panel's best is reached
    within 1 % on the grid (``reached``)."""
    keys = ["qdisc", "error", "variant", "in_order"]
    out = _needs(runs).groupby(keys, sort=False)["reached"].mean().reset_index()
    for share in NEED_READINGS:
        needs = _needs(runs, share * RATE / 1e6).groupby(keys, sort=False)
        for column, name in (("need", "need"), ("need_own", "own_need")):
            col = needs[column].mean().rename(f"{name}_{100 * share:g}pct").reset_index()
            out = out.merge(col, on=keys)
    return out


def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    df = runs.table()
    df["mbps"] = df["throughput_bps"].astype(float) / 1e6
    per_run = df[["qdisc", "error", "variant", "in_order", "buffer", "seed", "mbps"]].copy()
    means = (
        per_run.groupby(["qdisc", "error", "variant", "in_order", "buffer"], sort=False)["mbps"]
        .agg(["mean", "std", "count"])
        .reset_index()
        .rename(columns={"mean": "mbps", "std": "sd", "count": "seeds"})
    )
    csv = {
        "fig4": means,
        "fig4_runs": per_run,
        "fig4_need": _needs(per_run),
        "fig4_need_summary": _need_summary(per_run),
        "fig4_same": _alike_table(per_run),
    }
    return Derived(per_run, csv)


#: One panel per (queue, error rate) of ``FIG4_PANELS``.
THROUGHPUT = LineFigure(
    "fig4-{panel}",
    xlabel="N2 buffer (segments)",
    ylabel="throughput (Mb/s)",
    title="Fig. 4 {qdisc} {error:g} %",
)


def plot(runs: pd.DataFrame, out: Path, quick: bool) -> None:
    means = runs.groupby(["qdisc", "error", "variant", "in_order", "buffer"], sort=False)
    table = means["mbps"].mean().reset_index()
    for i, (q, e) in enumerate(FIG4_PANELS):
        sub = table[(table["qdisc"] == q) & (table["error"] == e)]
        series = {
            _label(str(v), bool(io)): (list(g["buffer"]), list(g["mbps"]), None)
            for (v, io), g in sub.groupby(["variant", "in_order"], sort=False)
        }
        THROUGHPUT.draw(out, series, panel=i + 1, qdisc=q, error=100 * e)


#: Per seed, one curve's buffer need: (qdisc, error, variant, in_order).
Need = Callable[[str, float, str, bool], dict[int, float]]
#: Per seed, one point's throughput (Mb/s): (qdisc, error, variant, in_order, buffer).
Thr = Callable[[str, float, str, bool, int], dict[int, float]]


def claims(runs: pd.DataFrame, quick: bool) -> list[Claim]:
    needs = _needs(runs)

    def need(q: str, e: float, v: str, io: bool) -> dict[int, float]:
        return per_seed(needs, "need", qdisc=q, error=e, variant=v, in_order=io)

    def thr(q: str, e: float, v: str, io: bool, b: int) -> dict[int, float]:
        return per_seed(runs, "mbps", qdisc=q, error=e, variant=v, in_order=io, buffer=b)

    return [
        _no_errors(thr),
        _need_grows(need),
        *_in_order_needs(need),
        _out_of_order_need_flat(need),
        _out_of_order_lower(thr),
        _ncr_lower_at_3(thr),
        _in_order_alike(thr),
        _aix_lowest(thr),
        _red_worse(runs),
    ]


def _no_errors(thr: Thr) -> Claim:
    def gain(v: str) -> dict[int, float]:
        at_bdp = thr(*NO_ERRORS, v, True, BDP)
        above = [thr(*NO_ERRORS, v, True, b) for b in FIG4_BUFFERS if b > BDP]
        return {s: max(t[s] for t in above) - at_bdp[s] for s in at_bdp}

    checks = {
        v: band(
            gain(v),
            None,
            SAME,
            f"0 % errors, {v}: best throughput above 75 segments - at 75 (Mb/s)",
            source="'does not increase the throughput' (Sec. IV-B): by less than 1 % of "
            "the 10 Mb/s link",
        )
        for v in PAPER_VARIANTS
    }
    return paper_claim(
        PAPER,
        "fig4",
        "without errors a DropTail buffer beyond 75 segments does not increase throughput",
        every(
            checks,
            "0 % errors, each paper TCP: its throughput gain from a buffer above "
            "75 segments, 95 % CI of the mean <= 0.1 Mb/s",
        ),
        quote="Our simulations confirm that increasing the size of the drop-tail buffer "
        "beyond 75 segments does not increase the throughput for any of the TCP flavors when "
        "there are no transmission errors.",
        where="Sec. IV-B",
    )


#: The buffer need as the checks' texts name it.
_NEED = (
    "the smallest buffer within 0.1 Mb/s of the panel's best, the highest throughput of "
    f"the paper's curves; {BEYOND} if none"
)


def _need_grows(need: Need) -> Claim:
    checks = {
        (v, e): difference(
            need("droptail", e, v, True),
            need(*NO_ERRORS, v, True),
            f"{v} in-order buffer need: {100 * e:g} % - 0 % errors (segments)",
        )
        for e in (0.03, 0.10)
        for v in PAPER_VARIANTS
    }
    return paper_claim(
        PAPER,
        "fig4",
        "with transmission errors in-order delivery needs more buffer than without",
        every(
            checks,
            f"DropTail, each paper TCP in-order: buffer need ({_NEED}) at 3 and 10 % "
            "minus at 0 %, 95 % CI of the mean > 0",
        ),
        quote="When there are transmission errors, the buffer need is larger; not primarily "
        "because of the increased burstiness, but because of the increased bdp that in-order "
        "delivery gives rise to.",
        where="Sec. IV-B",
    )


_EXTRA = (
    "'some additional buffer space is needed to accommodate the burstiness of the in-order "
    "traffic' (Sec. IV-B): up to one more 50-segment step"
)


def _in_order_needs(need: Need) -> list[Claim]:
    cases = (
        (0.03, BDP + 50, "75 + 50", "Thus, a drop-tail buffer size of 75 + 50 segments should "
         "be enough when few segments are retransmitted by the link layer more than once."),
        (0.10, BDP + 100, "75 + 100", "To achieve the highest possible throughput the buffer "
         "needs to be increased to 75 + 50 + 50 segments."),
    )  # fmt: skip
    out = []
    for e, stated, text, quote in cases:
        checks = {
            v: band(
                need("droptail", e, v, True),
                stated,
                stated + 50,
                f"{v} in-order buffer need at {100 * e:g} % (segments)",
                source=f"'{text}' segments (Sec. IV-B) and {_EXTRA}",
            )
            for v in PAPER_VARIANTS
        }
        out.append(
            paper_claim(
                PAPER,
                "fig4",
                f"DropTail {100 * e:g} %: in-order delivery needs about {text} segments of buffer",
                every(
                    checks,
                    f"DropTail {100 * e:g} %, each paper TCP in-order: buffer need "
                    f"({_NEED}), 95 % CI of the mean in [{stated}, {stated + 50}]",
                ),
                quote=quote,
                where=WHERE,
            )
        )
    return out


def _out_of_order_need_flat(need: Need) -> Claim:
    at3, at10 = need("droptail", 0.03, "TCP-Aix", False), need("droptail", 0.10, "TCP-Aix", False)
    return paper_claim(
        PAPER,
        "fig4",
        "with out-of-order delivery (TCP-Aix) the buffer need does not depend on the error rate",
        band(
            {s: at10[s] - at3[s] for s in at3},
            -25,
            25,
            f"TCP-Aix out-of-order buffer need ({_NEED}): 10 % - 3 % errors (segments)",
            source="'not affected by the error rate' (Sec. IV-B): within one step (25 "
            "segments) of Fig. 4's buffer grid",
        ),
        quote="With out-of-order delivery only the retransmitted segment suffers from a longer "
        "delay. The segments that are sent immediately after release acknowledgments and "
        "prevent disruption of the TCP acknowledgment clock. Therefore the buffer need is not "
        "affected by the error rate.",
        where="Sec. IV-B",
    )


def _vs(thr: Thr, e: float, a: tuple[str, bool], b: tuple[str, bool], op: str = ">") -> Check:
    return difference(
        thr("droptail", e, *a, BDP),
        thr("droptail", e, *b, BDP),
        f"DropTail {100 * e:g} %, 75-segment buffer: throughput {_label(*a)} - {_label(*b)} (Mb/s)",
        op=op,
    )


_LOWER = (
    "DropTail, a one-bdp (75-segment) buffer: 95 % CI of the mean throughput difference > 0 "
    "(more throughput from the same small buffer: a lower buffer requirement)"
)


def _out_of_order_lower(thr: Thr) -> Claim:
    cases = [("TCP-Aix", 0.03), ("TCP-Aix", 0.10), ("TCP-NCR-aggressive", 0.03)]
    checks = {(v, e): _vs(thr, e, (v, False), ("SACK-CWV", True)) for v, e in cases}
    return paper_claim(
        PAPER,
        "fig4",
        "out-of-order delivery with the reordering-robust TCPs needs less buffer than in-order "
        "delivery",
        every(
            checks,
            "TCP-Aix out-of-order at 3 and 10 % and TCP-NCR out-of-order at 3 % "
            f"(where Sec. IV-B says they apply) minus SACK-CWV in-order; {_LOWER}",
        ),
        quote="As can be seen in the figure, a network configured to allow out-of-order "
        "delivery has lower demands on the buffer size with reordering robust TCPs, than it "
        "has with in-order link delivery.",
        where=WHERE,
    )


def _ncr_lower_at_3(thr: Thr) -> Claim:
    ncr = "TCP-NCR-aggressive"
    return paper_claim(
        PAPER,
        "fig4",
        "at 3 % errors TCP-NCR needs less buffer with out-of-order than with in-order delivery",
        _vs(thr, 0.03, (ncr, False), (ncr, True)),
        quote="At 3% error rate, TCP-NCR has a lower buffer requirement than with in-order "
        "delivery.",
        where=WHERE,
    )


#: The in-order curves "perform the same" (Sec. IV-B) at each buffer: TCP-NCR
#: and TCP-Aix against the standards-compliant TCP, DropTail 3 and 10 %.
ALIKE = tuple(
    (e, v, b) for e in (0.03, 0.10) for v in ("TCP-NCR-aggressive", "TCP-Aix") for b in FIG4_BUFFERS
)
_SAME_SOURCE = (
    "'all perform the same' (Sec. IV-B), 'the graphs for all TCPs with in-order delivery "
    "overlap' (Fig. 4(a), (b)): within 1 % of the 10 Mb/s link"
)


def _alike(thr: Thr) -> dict[tuple[float, str, int], Check]:
    """Per (error rate, TCP, buffer): its in-order throughput minus
    SACK-CWV's in-order at that buffer, the 95 % CI inside +-``SAME``."""

    def minus_sack(e: float, v: str, b: int) -> dict[int, float]:
        a, ref = thr("droptail", e, v, True, b), thr("droptail", e, "SACK-CWV", True, b)
        return {s: a[s] - ref[s] for s in a}

    return {
        (e, v, b): band(
            minus_sack(e, v, b),
            -SAME,
            SAME,
            f"DropTail {100 * e:g} %, {b}-segment buffer: {v} in - SACK-CWV in (Mb/s)",
            source=_SAME_SOURCE,
        )
        for e, v, b in ALIKE
    }


def _alike_table(runs: pd.DataFrame) -> pd.DataFrame:
    """``fig4-same.csv``: each buffer's check of "perform the same" (the seed
    mean of the difference, its 95 % CI, the share of seeds within
    +-``SAME``, ``fits``: the narrowest symmetric band the CI lies in, so
    the verdict under any other width of "the same" can be read off), and
    the seed spread of each curve at that buffer."""

    def thr(q: str, e: float, v: str, io: bool, b: int) -> dict[int, float]:
        return per_seed(runs, "mbps", qdisc=q, error=e, variant=v, in_order=io, buffer=b)

    rows = []
    for (e, v, b), check in _alike(thr).items():
        rec = check.tests[0]
        per = [ok for _, ok in rec["per_seed"]]
        sd = {
            name: float(pd.Series(list(thr("droptail", e, name, True, b).values())).std())
            for name in (v, "SACK-CWV")
        }
        rows.append(
            {"error": e, "variant": v, "buffer": b, "diff": rec["estimate"], "lo": rec["lo"],
             "hi": rec["hi"], "fits": max(abs(rec["lo"]), abs(rec["hi"])), "holds": check.holds,
             "seed_share": sum(per) / len(per), "sd": sd[v], "sd_sack": sd["SACK-CWV"]}
        )  # fmt: skip
    return pd.DataFrame(rows)


def _in_order_alike(thr: Thr) -> Claim:
    return paper_claim(
        PAPER,
        "fig4",
        "with in-order delivery standard TCP, TCP-NCR and TCP-Aix perform the same",
        every(
            _alike(thr),
            "DropTail 3 and 10 %, at each buffer of Fig. 4: TCP-NCR and TCP-Aix in-order "
            "minus SACK-CWV in-order, 95 % CI of the mean within +-0.1 Mb/s",
        ),
        quote="Standards-compliant TCP, TCP-NCR, and TCP-Aix all perform the same with in-order "
        "delivery.",
        where=WHERE,
    )


def _aix_lowest(thr: Thr) -> Claim:
    others = [
        (v, io) for v in PAPER_VARIANTS for io in (True, False) if (v, io) != ("TCP-Aix", False)
    ]
    checks = {
        (e, v, io): _vs(thr, e, ("TCP-Aix", False), (v, io))
        for e in (0.03, 0.10)
        for v, io in others
    }
    return paper_claim(
        PAPER,
        "fig4",
        "TCP-Aix with out-of-order delivery has the lowest buffer requirement",
        every(
            checks, "at 3 and 10 %, TCP-Aix out-of-order minus every other paper curve; " + _LOWER
        ),
        quote="TCP-Aix has the lowest buffer requirement at the investigated error rates with "
        "out-of-order delivery.",
        where=WHERE,
    )


def _red_worse(runs: pd.DataFrame) -> Claim:
    paper = runs[runs["variant"].isin(PAPER_VARIANTS)]

    def mean_over_points(q: str) -> dict[int, float]:
        return per_seed(paper, "mbps", qdisc=q, error=0.10)

    return paper_claim(
        PAPER,
        "fig4",
        "RED performs worse than DropTail for one flow (10 % errors)",
        difference(
            mean_over_points("red"),
            mean_over_points("droptail"),
            "10 %: throughput RED - DropTail, mean over the paper's curves and buffers (Mb/s)",
            op="<",
        ),
        quote="The simulations also show that RED generally has worse performance than "
        "drop-tail when the buffer is dedicated to a single flow, Fig. 4(c).",
        where="Sec. IV-B, Fig. 4(c)",
    )


FIGURES = (
    recipe(
        PAPER,
        "fig4",
        "Throughput vs buffer size at N2 (DropTail 3 %, 10 %; RED 10 %)",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
