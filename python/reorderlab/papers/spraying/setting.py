"""Packet spraying on a fat-tree, and what it does to TCP's loss detection.

Paper key ``spraying``: A. Dixit, P. Prakash, Y. C. Hu, R. R. Kompella,
"On the impact of packet spraying in data center networks", IEEE INFOCOM
2013, pp. 2130-2138. Its result: on a symmetric multi-rooted tree the
equal-cost paths have similar queues, so TCP tolerates the reordering that
random packet spraying (RPS) brings; once symmetry breaks (a failed link)
RPS suffers.

Setting (``docs/fabrics.md``)
    A 3-tier k = 4 fat-tree (16 hosts, 20 switches): 10 Gb/s links, 1 us
    per hop, 150 kB (100-packet) tail-drop switch ports, 1500-byte packets.
    Traffic: three random permutations at once (every host sends three
    1 MB flows and receives three), each flow starting within 10 us of 0.
    Every switch balances by ECMP (one path per flow), random per-packet
    spraying, per-packet round robin, or adaptively (each packet to the
    uplink with the least queued, DRILL-like), by flowlets (LetFlow: a
    new random uplink after a 100 us gap), or by REPS (the sender recycles
    the entropy values whose ACKs came back; without ECN here every
    returned value is good; a timeout freezes them for 10 ms). The
    asymmetric fabric has one
    cable down, ``agg0 - core0``: pod 0's traffic to other pods leaves
    through the remaining core links of its aggregation switches, and
    sprayed packets of a flow see different queues. In the third fabric
    the same cable goes down at 0.8 ms, while every flow is sending (the
    switches route around it at once; what it had accepted still
    arrives).

Senders (every flow of a run the same)
    The DupThresh family: ``NewReno`` (no SACK), ``SACK`` (RFC 6675);
    DSACK-TA (RR-TCP's adaptive DupThresh); the RACK family: ``RACK-TLP``
    (RFC 8985) and the ``Linux`` model. TCP-PR is left out (:data:`VARIANTS`).

Measures, per run and sender
    FCT slowdown: a flow's completion time over its ideal (its bytes at the
    host rate plus the unloaded round trip of its path), p50 and p99 over
    the run's flows; spurious retransmissions by the simulator's ground
    truth (a retransmitted segment whose earlier copy was not lost);
    goodput: the bytes of all flows over the time the last one took.

Assumptions (the paper does not give them for a simulation)
    * The fabric's size, rates, buffers and the workload (the paper used a
      hardware testbed and its own simulations of larger trees).
    * min RTO 10 ms, initial RTO 10 ms for every sender: data-center
      practice, so that a loss costs a timeout of the fabric's scale and
      not Linux's 200 ms (the paper's kernel).
    * The failed link: one aggregation-core cable, the paper's "link
      failure" in its simplest form.

Full fidelity: 10 seeds per point; quick: 4 seeds (a seed draws the
permutations, the start jitter and every switch's choices).
"""

from __future__ import annotations

from reorderlab.papers.kit.mode import Modes
from reorderlab.scenario import Scenario

PAPER = "spraying"

K = 4
HOSTS = K**3 // 4
RATE = 10e9
HOP_DELAY = 1e-6
BUFFER_BYTES = 150_000
MSS = 1500
FLOW_BYTES = 1_000_000
PERMUTATIONS = 3
JITTER = 10e-6
MIN_RTO = 0.01
DURATION = 0.5
FAILED = "agg0->core0"

#: The switches' load balancing (``docs/fabrics.md``): per flow (ECMP), per
#: packet (random, round robin, least queued), per flowlet (LetFlow) and
#: REPS's recycled entropy values (with its freezing mode after a timeout).
POLICIES = ("ecmp", "spray", "round_robin", "adaptive", "flowlet", "reps")
#: Symmetric, :data:`FAILED` down from the start, and :data:`FAILED` going
#: down at :data:`FAIL_AT`, while every flow is still sending.
FABRICS = ("symmetric", "failed link", "failed mid-run")
#: When the cable fails in the "failed mid-run" fabric: a third of the way
#: into the ideal 3 MB a host sends (2.4 ms at 10 Gb/s), every flow under way.
FAIL_AT = 0.8e-3
#: The DupThresh family, RR-TCP's adaptive DupThresh, the RACK family. (TCP-PR
#: is left out: on this loaded fabric most of its flows meet its extreme-loss
#: rule (tcp-pr Table III: a burst of drops emulates a timeout), which waits
#: mxrtt raised to at least 1 s whatever ``tcp.min_rto`` says, longer than the
#: 0.5 s run: 6-15 of 48 flows finish; run for 5 s all 48 do, the median in
#: 1.004 s. Comparable only once that wait follows the flow's minimum RTO, a
#: sender change.)
VARIANTS = ("NewReno", "SACK", "DSACK-TA", "RACK-TLP", "Linux")

SEEDS = Modes(full=10, quick=4)


def scenario(variant: str, policy: str, fabric: str) -> Scenario:
    """The fat-tree with ``policy`` at every switch, ``fabric`` symmetric or
    with :data:`FAILED` down, and the permutations sent by ``variant``."""
    topology = {
        "kind": "fat_tree",
        "k": K,
        "tiers": 3,
        "rate": RATE,
        "hop_delay": HOP_DELAY,
        "buffer_bytes": BUFFER_BYTES,
        "load_balancing": policy,
        "failed_links": [FAILED] if fabric == "failed link" else [],
    }
    if fabric == "failed mid-run":
        topology["events"] = [{"at": FAIL_AT, "link": FAILED, "action": "down"}]
    workload = {
        "pattern": "permutation",
        "flow_size": {"dist": "constant", "value": FLOW_BYTES},
        "jitter": JITTER,
        "variant": variant,
        "tcp": {"mss": MSS, "min_rto": MIN_RTO, "initial_rto": MIN_RTO},
    }
    return Scenario.from_dict(
        {
            "name": f"spraying {variant} {policy} {fabric}",
            "duration": DURATION,
            "topology": topology,
            "workloads": [{**workload, "name": f"p{i}"} for i in range(PERMUTATIONS)],
        }
    )


def hops(src: int, dst: int) -> int:
    """Links between two hosts of the k = 4 fat-tree (2, 4 or 6)."""
    half = K // 2
    if src // half == dst // half:
        return 2
    if src // (half * half) == dst // (half * half):
        return 4
    return 6


def ideal_fct(src: int, dst: int) -> float:
    """A flow's completion time alone on the fabric (the receiver has every
    byte): its packets back to back at the host rate, the last one's
    store-and-forward over the other hops, and the propagation."""
    n = hops(src, dst)
    packets = -(-FLOW_BYTES // MSS)
    return (packets + n - 1) * MSS * 8 / RATE + n * HOP_DELAY
