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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u32, u32); 4],
    len: u8,
}

impl SackBlocks {
    pub const MAX: usize = 4;

    pub fn push(&mut self, start: u32, end: u32) {
        debug_assert!(start < end);
        if (self.len as usize) < Self::MAX {
            self.blocks[self.len as usize] = (start, end);
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
        let mut s = SackBlocks::default();
        for i in 0..6 {
            s.push(i * 10, i * 10 + 1);
        }
        assert_eq!(s.len(), 4);
        assert_eq!(s.as_slice()[3], (30, 31));
    }
}
