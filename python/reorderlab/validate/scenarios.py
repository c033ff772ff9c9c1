"""A cell of the matrix as a scenario: the same one is emulated (the kernel)
and simulated (the variant of the configuration's name).

The path: ``S1 -(1 Gb/s, 0.5 ms)- R1 -(rate, RTT/2 - 1 ms)- R2 -(1 Gb/s,
0.5 ms)- D`` with a DropTail queue of one bandwidth-delay product (at least
10 packets) at the bottleneck, 1500-byte packets (the kernel sends 1448
bytes of payload with timestamps, 1460 without; the simulator's captures
map its segments to the same bytes). The flow opens with a handshake on
both sides (the kernel always does). Impairments act on the data packets
at the bottleneck's entry (``R1->R2``, ingress).

The receivers are the kernel's: ``quickack`` delayed ACKs (quick ACKs at
the start and after a gap, one ACK per two segments otherwise), 3 SACK
blocks with timestamps (``Linux``), 4 and no DSACK without
(``Linux-classic``: the kernel's ``tcp_dsack = 0``).
"""

from __future__ import annotations

import math

from reorderlab.scenario import (
    ChainTopology,
    ConstantVar,
    DelayImpairment,
    DroptailQueue,
    FlowSpec,
    Impairment,
    LossImpairment,
    PositionedImpairment,
    ReceiverSpec,
    Scenario,
    TcpSpec,
)
from reorderlab.validate.cells import Cell

PACKET = 1500
ACCESS_RATE = 1e9
ACCESS_DELAY = 0.0005
BOTTLENECK = "R1->R2"
#: Bulk cells run this long (s); finite flows until they complete (at most
#: FINITE_DURATION).
BULK_DURATION = {False: 20.0, True: 10.0}
FINITE_DURATION = 10.0
TAIL_SEGMENTS = 10
BURST_SEGMENTS = 100


def payload(config: str) -> int:
    """Payload bytes of a data packet: timestamps are on for ``Linux``."""
    return PACKET - 40 - (12 if config == "Linux" else 0)


def bdp_packets(cell: Cell) -> int:
    """The path's bandwidth-delay product in packets (at least 10)."""
    return max(10, math.ceil(cell.rate * cell.rtt / 8 / PACKET))


def receiver(config: str) -> ReceiverSpec:
    if config == "Linux":
        return ReceiverSpec(delayed_ack="quickack", max_sack_blocks=3)
    return ReceiverSpec(delayed_ack="quickack", dsack=False)


def impairments(cell: Cell) -> list[Impairment]:
    out: list[Impairment] = []
    if cell.kind == "bulk":
        if cell.reorder > 0:
            hold = ConstantVar(value=cell.hold * cell.rtt)
            out.append(
                DelayImpairment(link=BOTTLENECK, fraction=cell.reorder, delay=hold, data_only=True)
            )
        if cell.loss > 0:
            out.append(LossImpairment(link=BOTTLENECK, p=cell.loss))
    elif cell.kind == "tail" and cell.lost > 0:
        first = TAIL_SEGMENTS - cell.lost
        out.append(
            PositionedImpairment(
                link=BOTTLENECK, flow=0, segments=list(range(first, TAIL_SEGMENTS))
            )
        )
    elif cell.kind == "burst":
        first = BURST_SEGMENTS // 2
        out.append(
            PositionedImpairment(
                link=BOTTLENECK, flow=0, segments=list(range(first, first + cell.lost))
            )
        )
    return out


def scenario(cell: Cell, quick: bool) -> Scenario:
    """The cell's scenario (seed 1; the simulator runs seeds 1..n)."""
    segments = {"bulk": 0, "tail": TAIL_SEGMENTS, "burst": BURST_SEGMENTS}[cell.kind]
    rate = cell.rate
    duration = BULK_DURATION[quick] if cell.kind == "bulk" else FINITE_DURATION
    return Scenario(
        name=f"validate/{cell.name}",
        duration=duration,
        topology=ChainTopology(
            access_rate=ACCESS_RATE,
            access_delay=ACCESS_DELAY,
            bottleneck_rate=rate,
            bottleneck_delay=cell.rtt / 2 - 2 * ACCESS_DELAY,
            queue=DroptailQueue(limit_packets=bdp_packets(cell)),
        ),
        impairments=impairments(cell),
        flows=[
            FlowSpec(
                name=cell.config,
                src="S1",
                dst="D",
                variant=cell.config,
                cc=cell.cc,
                segments=segments,
                tcp=TcpSpec(mss=PACKET, syn=True),
                receiver=receiver(cell.config),
            )
        ],
    )
