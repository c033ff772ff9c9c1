"""``fig6-8``: SACK vs Reno normalized throughput, the reference spread of
Figs. 5 right and 7 (:mod:`.setting`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    each_at_most,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
)
from reorderlab.papers.tcp_pr.setting import (
    PAPER,
    PR,
    RENO,
    SACK,
)
from reorderlab.papers.tcp_pr.tables import (
    PR_PANELS,
    Fairness,
    Panels,
    dumbbell_panel,
    fairness_recipe,
)

#: Figs. 6 / 8 panels -> the TCP-PR vs SACK panel of the same setting.
FIG6_8_MATCH = {
    "Fig. 6 DropTail, 15 Mb/s, 20 ms, 250 pkts": "Fig. 5 DropTail, 15 Mb/s, 20 ms, 250 pkts",
    "Fig. 8 DropTail, 1.5 Mb/s, 20 ms, 25 pkts": "Fig. 7 DropTail, 1.5 Mb/s, 20 ms, 25 pkts",
    "Fig. 8 RED, 1.5 Mb/s, 20 ms, 25 pkts": "Fig. 7 RED, 1.5 Mb/s, 20 ms, 25 pkts",
}

RENO_PANELS: Panels = {
    f"Fig. {fig} {q}, {rate / 1e6:g} Mb/s, 20 ms, {limit} pkts": dumbbell_panel(
        rate=rate, limit=limit, qdisc=q.lower(), variants=(SACK, RENO)
    )
    for fig, rate, limit in ((6, 15e6, 250), (8, 1.5e6, 25))
    for q in ("DropTail", "RED")
}


def _reference_spread(data: Fairness) -> list[Claim]:
    """The reference spread: TCP-PR vs SACK (Figs. 5 right, 7) should stray
    from 1 no more than SACK vs Reno does in the same setting (Figs. 6, 8)."""
    assert data.reference is not None

    def spread(t: pd.DataFrame, panel: str, pair: tuple[str, str]) -> float:
        sub = t[t["panel"] == panel][[f"norm.{v}" for v in pair]].to_numpy(dtype=float)
        return float(np.nanmax(np.abs(sub - 1)))

    pairs = {
        reno_panel: (
            spread(data.reference, pr_panel, (PR, SACK)),
            spread(data.table, reno_panel, (SACK, RENO)),
        )
        for reno_panel, pr_panel in FIG6_8_MATCH.items()
    }
    check = each_at_most(
        {k: a for k, (a, _) in pairs.items()},
        Ref({k: b for k, (_, b) in pairs.items()}, "that of SACK/Reno", plus=0.05),
        "max |mean normalized throughput - 1| of TCP-PR/SACK",
        "in each matched setting",
    )
    return [
        make_claim(
            PAPER,
            "fig6-8",
            "TCP-PR and SACK share no less fairly than the SACK vs Reno reference "
            "(Figs. 5 right and 7 against Figs. 6 and 8)",
            check,
            "; ".join(f"{k}: PR/SACK {a:.2f} vs SACK/Reno {b:.2f}" for k, (a, b) in pairs.items()),
            spreads=pairs,
        )
    ]


FIGURES = (
    fairness_recipe(
        "fig6-8",
        "SACK vs Reno normalized throughput (reference spread)",
        RENO_PANELS,
        (SACK, RENO),
        "SACK and Reno",
        reference={ref: PR_PANELS[ref] for ref in FIG6_8_MATCH.values()},
        more_claims=_reference_spread,
    ),
)
