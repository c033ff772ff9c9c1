"""The ``struct tcp_info`` fields a script may assert on, and the names of
the congestion-avoidance states (``include/uapi/linux/tcp.h``: ``enum
tcp_ca_state``).

Each field is named as in ``struct tcp_info`` without ``tcpi_``; both
backends give every one of them (the kernel from ``getsockopt(TCP_INFO)``,
the simulator from its sender's state, ``crates/reorderlab/src/conformance``).
"""

from __future__ import annotations

#: field -> what it is (units as the kernel reports them)
INFO_FIELDS: dict[str, str] = {
    "ca_state": "congestion-avoidance state (TCP_CA_Open .. TCP_CA_Loss)",
    "snd_cwnd": "congestion window, segments",
    "snd_ssthresh": "slow-start threshold, segments (2147483647: none yet)",
    "retrans": "retransmitted segments not yet acknowledged (retrans_out)",
    "lost": "segments marked lost (lost_out)",
    "sacked": "segments SACKed above SND.UNA (sacked_out)",
    "reordering": "reordering degree, segments (tp->reordering)",
    "rto": "retransmission timeout, microseconds",
    "unacked": "segments sent and not acknowledged (packets_out)",
    "total_retrans": "segments retransmitted over the connection",
}

#: ``enum tcp_ca_state``
CA_STATES: dict[str, int] = {
    "TCP_CA_Open": 0,
    "TCP_CA_Disorder": 1,
    "TCP_CA_CWR": 2,
    "TCP_CA_Recovery": 3,
    "TCP_CA_Loss": 4,
}

#: ``TCP_INFINITE_SSTHRESH``: the ssthresh of a connection that has not
#: reduced its window yet.
INFINITE_SSTHRESH = 0x7FFFFFFF


def ca_state_name(value: int) -> str:
    for name, v in CA_STATES.items():
        if v == value:
            return name
    return str(value)
