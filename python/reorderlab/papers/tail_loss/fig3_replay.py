"""Fig. 3's loss patterns replayed (:mod:`.fig3`): a 4-segment flow over the
controlled chain of Figs. 1-2 with the one-way delay of a Fig. 3 case (no
queueing, no background) losing one set of its segments, for each of the 15
non-empty sets, each sender and receiver.

Sec. 3.2 explains Fig. 3's CDFs by loss pattern ("when only the last
segment is lost", "when either the last two or three segments are lost");
the runs under congestion record how many of a flow's last four segments
were dropped, not which (``fig3-loss-patterns.csv``). The replay gives each
sender's FCT for each pattern, the same on every seed (the controlled
scenario has no random element): the claims of those sentences are checked
on it, and a Fig. 3 CDF is a mixture of these outcomes (moved by queueing),
weighted by how often the background produces each pattern.
"""

from __future__ import annotations

import itertools

import pandas as pd

from reorderlab.checks import (
    difference,
    every,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
    per_seed,
)
from reorderlab.papers.kit.runs import (
    Point,
    Runs,
    Sweep,
    flow_column,
)
from reorderlab.papers.tail_loss.setting import (
    CONTROLLED_SEEDS,
    FIG3_OWDS,
    PAPER,
    PAPER_VARIANTS,
    RECEIVERS,
    controlled,
)

#: The plan entry of the replay.
REPLAY = "replay"
#: Segments of the replayed flow (Fig. 3's short flows).
SEGMENTS = 4


def pattern_name(lost: tuple[int, ...]) -> str:
    """Segments lost, 1-based as the paper counts them ("1+3")."""
    return "+".join(str(i + 1) for i in lost)


#: Every non-empty set of the flow's segments, 0-based.
PATTERNS = [p for k in range(1, SEGMENTS + 1) for p in itertools.combinations(range(SEGMENTS), k)]


def replay_rtt(owd: float) -> float:
    """The RTT of a Fig. 3 case without queueing: twice its one-way delay
    (``congested`` puts the two access links and the 1 ms bottleneck at
    ``owd`` in all)."""
    return 2 * owd


def points() -> list[Point]:
    out: list[Point] = []
    for owd in FIG3_OWDS:
        for r in RECEIVERS:
            for lost in PATTERNS:
                for v in PAPER_VARIANTS:
                    sc = controlled(v, replay_rtt(owd), r, 1, segments=SEGMENTS, pattern=lost)
                    params = {"variant": v, "owd": owd, "receiver": r, "lost": pattern_name(lost)}
                    out.append((params, sc))
    return out


def sweep() -> Sweep:
    return Sweep(points(), CONTROLLED_SEEDS)


def replay_table(runs: Runs) -> pd.DataFrame:
    """One row per sender, owd, receiver, pattern and seed: the FCT and how
    the flow recovered (timeouts, probes, fast retransmits)."""
    df = runs.table(REPLAY)
    out = df[["variant", "owd", "receiver", "lost", "seed"]].copy()
    for col in ("fct", "timeouts", "tlp_probes", "fast_retransmits"):
        out[col] = df[flow_column(df, 0, col)]
    return out


def _fct(df: pd.DataFrame, v: str, owd: float, r: str, lost: str) -> dict[int, float]:
    return per_seed(df, "fct", variant=v, owd=owd, receiver=r, lost=lost)


def _only_last(df: pd.DataFrame) -> Claim:
    """Fig. 3a (small RTT, quickack): with only the last segment lost TLP
    and TLPR wait for Eq. 2's PTO; with several tail segments lost they
    recover on Eq. 1's."""
    owd = min(FIG3_OWDS)
    several = ("3+4", "2+3+4", "1+2+3+4")
    parts = {
        f"{v} {p}": difference(
            _fct(df, v, owd, "quickack", "4"),
            _fct(df, v, owd, "quickack", p),
            f"{v} FCT with only segment 4 lost - with {p} lost, owd {owd * 1e3:g} ms (s)",
        )
        for v in ("TLP", "TLPR")
        for p in several
    }
    return paper_claim(
        PAPER,
        "fig3",
        "4 segments, smallest owd, quickack: with only the last segment lost TLP and TLPR "
        "recover later than with several tail segments lost",
        every(parts, "slower with only the last segment lost, for TLP and TLPR"),
        quote="However, when only the last segment is lost, Equation 2 is used and the loss "
        "recovery takes longer.",
        where="Sec. 3.2, Fig. 3a (loss patterns replayed)",
    )


def _last_two_three(df: pd.DataFrame, r: str) -> Claim:
    """Figs. 3d / 3e (the largest owd): RTOR ahead of TLP with quickack,
    TLP ahead of RTOR with delack, when the last two or three segments are
    lost."""
    owd = max(FIG3_OWDS)
    fast, slow = ("RTOR", "TLP") if r == "quickack" else ("TLP", "RTOR")
    parts = {
        p: difference(
            _fct(df, slow, owd, r, p),
            _fct(df, fast, owd, r, p),
            f"{slow} FCT - {fast} FCT, {p} lost, owd {owd * 1e3:g} ms, {r} (s)",
        )
        for p in ("3+4", "2+3+4")
    }
    if r == "quickack":
        quote = (
            "When either the last two or three segments are lost, RTOR performs slightly "
            "better than TLP."
        )
        where = "Sec. 3.2, Fig. 3d (loss patterns replayed)"
    else:
        quote = (
            "However, when either the last two or three segments are lost, TLP performs "
            "better than RTOR as shown in the same figure"
        )
        where = "Sec. 3.2, Fig. 3e (loss patterns replayed)"
    return paper_claim(
        PAPER,
        "fig3",
        f"4 segments, largest owd, {r}: {fast} ahead of {slow} when the last two or three "
        "segments are lost",
        every(parts, f"{fast}'s FCT below {slow}'s with the last two or three lost"),
        quote=quote,
        where=where,
    )


#: Fig. 3e's "approximately an extra 200 ms": at least 0.75 x the 200 ms
#: delayed-ACK timer, the margin the recipe gives the 200 ms of RTOR's
#: delack saving (Fig. 3).
EXTRA_DELACK = 0.75 * 0.2


def _delack_resets_pto(df: pd.DataFrame) -> Claim:
    owd = max(FIG3_OWDS)
    return paper_claim(
        PAPER,
        "fig3",
        "4 segments, largest owd, delack, only the last segment lost: TLP slower than RTOR "
        "by about the 200 ms delayed-ACK timer",
        difference(
            _fct(df, "TLP", owd, "delack", "4"),
            _fct(df, "RTOR", owd, "delack", "4"),
            f"TLP FCT - RTOR FCT, only segment 4 lost, owd {owd * 1e3:g} ms, delack (s)",
            op=">",
            limit=EXTRA_DELACK,
        ),
        quote="Approximately an extra 200 ms is added to FCTs. TLP becomes slower than RTOR "
        "as shown in the lower part of the CDF in the figure.",
        where="Sec. 3.2, Fig. 3e (loss patterns replayed)",
    )


def replay_claims(df: pd.DataFrame) -> list[Claim]:
    """The claims of Sec. 3.2's loss-pattern sentences, on the replay."""
    return [
        _only_last(df),
        _last_two_three(df, "quickack"),
        _delack_resets_pto(df),
        _last_two_three(df, "delack"),
    ]
