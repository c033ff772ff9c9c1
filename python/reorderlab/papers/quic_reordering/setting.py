"""quinn issue 2711's path, and the QUIC senders on it (``docs/quic.md``).

Paper key ``quic-reordering``: quinn-rs/quinn issue 2711, "Fixed
packet_threshold spuriously fast-retransmits under rate-scaled reordering
displacement - consider RACK-style adaptation", 2026-07-05 (its table is
repeated in PR 2713), and issue 2710 (the receiver's duplicate-detection
window). Its result: on a 197 ms path with netem ``delay 5ms reorder 25%
50%`` and BBR, packet thresholds 3 / 300 / 1000 / effectively infinite
gave 125 / 306 / 563 / 632-710 Mbit/s against 828 on the clean path, with
``lost_packets`` about 65 / 64 / 52 / 14 % of the packets sent.

Setting
    A chain: 10 Gb/s access links of 1 ms, a 1 Gb/s bottleneck of 96.5 ms
    one way (197 ms round trip), a 20000-packet DropTail queue (about 1.2
    bandwidth-delay products). netem on the bottleneck: ``{ kind =
    "netem", delay = 0.005, reorder = 0.25, correlation = 0.5 }``
    (``docs/impairments.md``). One QUIC flow, ``cc = "bbr"``, 1500-byte
    packets, 512 MiB, in a 60 s run.

Rows
    The clean path (no netem); packet thresholds 3, 300, 1000 and off
    (4294967295) on ``QUIC``; the adaptive variants from threshold 3
    (``QUIC-quiche``, ``QUIC-quinn2713``, ``QUIC-undo``); and issue 2710's
    129-packet duplicate window with no packet threshold.

Assumptions (the issue does not give them)
    * The bottleneck rate (1 Gb/s) and queue: the issue reports a clean-path
      goodput of 828 Mbit/s on a "real path"; the ratios to the clean path
      are compared, not the rates.
    * Where netem sits (the bottleneck, for the data packets and the ACKs
      that share its direction: none here).
    * The BBR: this project's Linux BBR v1, not quinn's.

Full fidelity: 5 seeds per row; quick: 3 (a seed draws netem's choices and
BBR's phases). Full scale in both modes: a run takes 1-5 s.
"""

from __future__ import annotations

from typing import Any

from reorderlab.papers.kit.mode import Modes
from reorderlab.scenario import Scenario

PAPER = "quic-reordering"

MSS = 1500
TRANSFER_BYTES = 512 * 1024 * 1024
SEGMENTS = TRANSFER_BYTES // MSS
DURATION = 60.0
RATE = 1e9
ONE_WAY = 0.0965
QUEUE = 20_000
NETEM = {"kind": "netem", "delay": 0.005, "reorder": 0.25, "correlation": 0.5}
#: "effectively infinite": above any packet number of the run.
NO_THRESHOLD = 4_294_967_295

#: row -> (variant, packet threshold or None: the variant's, netem on,
#: duplicate window or None).
ROWS: dict[str, tuple[str, int | None, bool, int | None]] = {
    "clean": ("QUIC", None, False, None),
    "3": ("QUIC", 3, True, None),
    "300": ("QUIC", 300, True, None),
    "1000": ("QUIC", 1000, True, None),
    "inf": ("QUIC", NO_THRESHOLD, True, None),
    "QUIC-quiche": ("QUIC-quiche", None, True, None),
    "QUIC-quinn2713": ("QUIC-quinn2713", None, True, None),
    "QUIC-undo": ("QUIC-undo", None, True, None),
    "dedup 129": ("QUIC", NO_THRESHOLD, True, 129),
}

#: The published rows: goodput (Mbit/s, low and high) and lost share.
PUBLISHED: dict[str, tuple[float, float, float]] = {
    "clean": (828.0, 828.0, 0.01),
    "3": (125.0, 125.0, 0.65),
    "300": (306.0, 306.0, 0.64),
    "1000": (563.0, 563.0, 0.52),
    "inf": (632.0, 710.0, 0.14),
}

SEEDS = Modes(full=5, quick=3)


def scenario(row: str) -> Scenario:
    """The path and the flow of ``row`` (:data:`ROWS`)."""
    variant, threshold, netem, dedup = ROWS[row]
    quic: dict[str, Any] = {}
    if threshold is not None:
        quic["packet_threshold"] = threshold
    if dedup is not None:
        quic["dedup_window"] = dedup
    flow: dict[str, Any] = {
        "src": "S1",
        "dst": "D",
        "variant": variant,
        "cc": "bbr",
        "segments": SEGMENTS,
        "tcp": {"mss": MSS},
    }
    if quic:
        flow["quic"] = quic
    return Scenario.from_dict(
        {
            "name": f"quic-reordering {row}",
            "duration": DURATION,
            "topology": {
                "kind": "chain",
                "access_rate": 10e9,
                "access_delay": 0.001,
                "bottleneck_rate": RATE,
                "bottleneck_delay": ONE_WAY,
                "queue": {"kind": "droptail", "limit_packets": QUEUE},
            },
            "impairments": [{"link": "R1->R2", **NETEM}] if netem else [],
            "flows": [flow],
        }
    )
