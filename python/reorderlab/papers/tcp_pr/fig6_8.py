"""``fig6-8``: SACK vs Reno normalized throughput (:mod:`.setting`).

The paper shows these panels "for comparison purposes" (Sec. V) and states
no outcome of them: they are drawn, not judged (``coverage.toml``).
"""

from __future__ import annotations

from reorderlab.papers.tcp_pr.setting import (
    RENO,
    SACK,
)
from reorderlab.papers.tcp_pr.tables import (
    Panels,
    dumbbell_panel,
    fairness_recipe,
)

RENO_PANELS: Panels = {
    f"Fig. {fig} {q}, {rate / 1e6:g} Mb/s, 20 ms, {limit} pkts": dumbbell_panel(
        rate=rate, limit=limit, qdisc=q.lower(), variants=(SACK, RENO)
    )
    for fig, rate, limit in ((6, 15e6, 250), (8, 1.5e6, 25))
    for q in ("DropTail", "RED")
}


FIGURES = (
    fairness_recipe(
        "fig6-8",
        "SACK vs Reno normalized throughput (for comparison; no claim)",
        RENO_PANELS,
        (SACK, RENO),
        judged=False,
    ),
)
