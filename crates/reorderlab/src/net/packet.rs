//! The packet: small, `Copy`, no heap data, so moving it through queues never
//! allocates.

use crate::engine::Time;

/// What a packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// A data segment (sender -> receiver).
    Data,
    /// A pure acknowledgment (receiver -> sender).
    Ack,
    /// Connection request (sender -> receiver).
    Syn,
    /// Connection accept (receiver -> sender).
    SynAck,
}

/// Up to four SACK blocks, each a half-open range of segment numbers
/// `[start, end)`. The first block may be a DSACK block (RFC 2883).
///
/// The blocks in use come first; an unused slot is `(0, 0)` (no block is
/// empty), so the count needs no field of its own and the packet keeps
/// four bytes for its marks and entropy within 64 bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u32, u32); 4],
}

impl SackBlocks {
    pub const MAX: usize = 4;

    pub fn push(&mut self, start: u32, end: u32) {
        debug_assert!(start < end);
        let len = self.len();
        if len < Self::MAX && start < end {
            self.blocks[len] = (start, end);
        }
    }

    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.len()]
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.blocks.iter().take_while(|b| b.1 != 0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks[0].1 == 0
    }
}

/// A packet's one-bit marks: ECN's Congestion Experienced and its echo
/// (RFC 3168 Sec. 5 and 6.1.3), and a header left by trimming (NDP,
/// Handley et al., SIGCOMM 2017, Sec. 3.2; Ultra Ethernet's packet
/// trimming).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks(u8);

impl Marks {
    const CE: u8 = 1;
    const ECE: u8 = 2;
    const TRIMMED: u8 = 4;

    /// Data: a switch's queue was above its ECN threshold (the CE codepoint).
    #[inline]
    pub fn ce(self) -> bool {
        self.0 & Self::CE != 0
    }
    /// Ack: the segment it answers arrived with CE (ECN-Echo).
    #[inline]
    pub fn ece(self) -> bool {
        self.0 & Self::ECE != 0
    }
    /// Data: only the header is left (the payload was trimmed at a full queue).
    #[inline]
    pub fn trimmed(self) -> bool {
        self.0 & Self::TRIMMED != 0
    }
    pub fn set_ce(&mut self) {
        self.0 |= Self::CE;
    }
    pub fn set_ece(&mut self) {
        self.0 |= Self::ECE;
    }
    pub fn set_trimmed(&mut self) {
        self.0 |= Self::TRIMMED;
    }
}

/// One packet in the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    pub kind: PacketKind,
    /// Index of the flow it belongs to.
    pub flow: u32,
    /// Destination node.
    pub dst: u32,
    /// Size on the wire, bytes (validated <= 65535).
    pub size: u16,
    /// Multipath route id (0 = follow the routing table); see
    /// [`crate::net::multipath`].
    pub route: u16,
    /// Data: segment number. Ack: cumulative ACK (next segment expected).
    pub seq: u32,
    /// Data: transmission index of this segment (0 = original). Ground truth
    /// for spurious-retransmission accounting; a real sender cannot see it.
    pub copy: u16,
    /// Ack: the ACK acknowledges a segment received out of order or a
    /// duplicate (it was sent at once, not delayed).
    pub immediate: bool,
    /// Timestamp option (RFC 7323). Data and SYN: TSval, the send time.
    /// Ack: TSecr, the TSval echoed back. One field keeps the packet in 64
    /// bytes; the model's senders never need the other half.
    pub ts: Time,
    /// Ack: SACK / DSACK blocks.
    pub sack: SackBlocks,
    /// ECN and trimming marks (all clear unless a fabric sets them).
    pub marks: Marks,
    /// Data: the entropy value a fabric's switches hash with the flow
    /// (REPS, `net/reps.rs`); Ack: the one of the segment it answers.
    /// 0 unless the fabric's load balancing is `reps`.
    pub entropy: u16,
}

impl Packet {
    pub fn data(flow: u32, dst: u32, size: u32, seq: u32, copy: u16, now: Time) -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow,
            dst,
            size: size as u16,
            route: 0,
            seq,
            copy,
            immediate: false,
            ts: now,
            sack: SackBlocks::default(),
            marks: Marks::default(),
            entropy: 0,
        }
    }

    pub fn control(kind: PacketKind, flow: u32, dst: u32, size: u32, now: Time) -> Packet {
        Packet {
            kind,
            flow,
            dst,
            size: size as u16,
            route: 0,
            seq: 0,
            copy: 0,
            immediate: true,
            ts: now,
            sack: SackBlocks::default(),
            marks: Marks::default(),
            entropy: 0,
        }
    }

    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_stays_small_and_sack_blocks_cap_at_four() {
        assert!(std::mem::size_of::<Packet>() <= 64);
        assert!(SackBlocks::default().is_empty());
        let mut s = SackBlocks::default();
        for i in 0..6 {
            s.push(i * 10, i * 10 + 1);
        }
        assert_eq!(s.len(), 4);
        assert_eq!(s.as_slice()[3], (30, 31));
        let mut t = SackBlocks::default();
        t.push(0, 2);
        t.push(5, 9);
        assert_eq!((t.len(), t.as_slice()), (2, &[(0, 2), (5, 9)][..]));
    }

    #[test]
    fn marks_are_independent_bits() {
        let mut m = Marks::default();
        assert!(!m.ce() && !m.ece() && !m.trimmed());
        m.set_ce();
        assert!(m.ce() && !m.ece() && !m.trimmed());
        m.set_trimmed();
        m.set_ece();
        assert!(m.ce() && m.ece() && m.trimmed());
    }
}
