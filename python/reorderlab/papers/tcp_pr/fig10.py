"""``fig10``: TCP-PR vs SACK on the parking lot with HTTP cross traffic
(:mod:`.setting`)."""

from __future__ import annotations

from reorderlab.papers.tcp_pr.setting import (
    PR,
    SACK,
)
from reorderlab.papers.tcp_pr.tables import (
    fairness_recipe,
    parking_lot_panel,
)

FIGURES = (
    fairness_recipe(
        "fig10",
        "TCP-PR vs SACK on the parking lot with HTTP cross traffic",
        {
            f"Fig. 10 {q}, parking lot, 15 Mb/s, 20 ms, 250 pkts": parking_lot_panel(q.lower())
            for q in ("DropTail", "RED")
        },
        (PR, SACK),
        "TCP-PR and SACK on the parking lot",
    ),
)
