//! The QUIC receiver: the ACK policy of RFC 9000 Sec. 13.2 (an ACK at
//! least every `ack_eliciting_threshold` ack-eliciting packets, within
//! max_ack_delay, and at once on a reordered packet or a gap: Sec.
//! 13.2.1), ACK frames with ranges and ack_delay, the stream's in-order
//! delivery, and an optional duplicate-detection window below which
//! packets are discarded (quinn issue 2710).

use super::ack::{AckSlab, RangeSet};
use super::config::QuicConfig;
use crate::engine::Time;
use crate::net::packet::{Packet, PacketKind};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuicReceiverStats {
    pub packets_received: u64,
    /// Packets with a number below the largest received (reordered).
    pub reordered: u64,
    pub duplicates: u64,
    /// Packets discarded by the duplicate-detection window.
    pub window_discards: u64,
    pub acks_sent: u64,
    pub immediate_acks: u64,
    pub chunks_delivered: u64,
    pub bytes_delivered: u64,
    pub bytes_delivered_measured: u64,
    pub completed_at: Option<Time>,
}

#[derive(Debug, Clone)]
pub struct QuicReceiver {
    flow: u32,
    /// The sender's node.
    dst: u32,
    ack_size: u32,
    mss: u32,
    threshold: u32,
    max_ack_delay: Time,
    max_ranges: usize,
    dedup_window: Option<u64>,
    expected: Option<u64>,
    measure_from: Time,
    received: RangeSet,
    largest_at: Time,
    unacked: u32,
    ack_at: Option<Time>,
    /// Stream chunks received (a bit each) and the next one in order.
    chunks: Vec<u64>,
    next_in_order: u64,
    pub stats: QuicReceiverStats,
}

impl QuicReceiver {
    pub fn new(cfg: &QuicConfig, flow: u32, sender_node: u32, measure_from: Time) -> QuicReceiver {
        QuicReceiver {
            flow,
            dst: sender_node,
            ack_size: cfg.ack_size,
            mss: cfg.mss,
            threshold: cfg.ack_eliciting_threshold.max(1),
            max_ack_delay: cfg.max_ack_delay,
            max_ranges: cfg.max_ack_ranges,
            dedup_window: cfg.dedup_window,
            expected: cfg.segments,
            measure_from,
            received: RangeSet::new(cfg.max_ack_ranges),
            largest_at: 0,
            unacked: 0,
            ack_at: None,
            chunks: Vec::new(),
            next_in_order: 0,
            stats: QuicReceiverStats::default(),
        }
    }

    /// A data packet with number `pn` carrying `chunk` arrived; `floor`
    /// is the lowest packet number the sender still tracks (an ACK sent
    /// now leaves out the ranges below it: [`super::ack::RangeSet::fill`]).
    pub fn on_data(
        &mut self,
        (pn, chunk): (u64, u32),
        floor: u64,
        now: Time,
        slab: &mut AckSlab,
        out: &mut Vec<Packet>,
    ) {
        self.stats.packets_received += 1;
        let largest = self.received.largest();
        if let (Some(w), Some(l)) = (self.dedup_window, largest) {
            if l >= pn + w {
                // too old for the window: taken for a duplicate, dropped
                // unacknowledged (quinn issue 2710)
                self.stats.window_discards += 1;
                return;
            }
        }
        if !self.received.insert(pn) {
            self.stats.duplicates += 1;
            return;
        }
        // Sec. 13.2.1: at once when the packet is below the largest
        // received, or above it with packets missing in between.
        let immediate = match largest {
            Some(l) if pn < l => {
                self.stats.reordered += 1;
                true
            }
            Some(l) => pn > l + 1,
            None => pn > 0,
        };
        if largest.is_none_or(|l| pn > l) {
            self.largest_at = now;
        }
        self.deliver(chunk, now);
        self.unacked += 1;
        if immediate {
            self.stats.immediate_acks += 1;
            self.send_ack(now, floor, slab, out);
        } else if self.unacked >= self.threshold {
            self.send_ack(now, floor, slab, out);
        } else if self.ack_at.is_none() {
            self.ack_at = Some(now + self.max_ack_delay);
        }
    }

    fn deliver(&mut self, chunk: u32, now: Time) {
        let (w, b) = (chunk as usize / 64, chunk % 64);
        if w >= self.chunks.len() {
            self.chunks.resize(w + 1, 0);
        }
        if self.chunks[w] >> b & 1 == 1 {
            return; // the chunk came before in another packet
        }
        self.chunks[w] |= 1 << b;
        while self.has_chunk(self.next_in_order) {
            self.next_in_order += 1;
            self.stats.chunks_delivered += 1;
            self.stats.bytes_delivered += self.mss as u64;
            if now >= self.measure_from {
                self.stats.bytes_delivered_measured += self.mss as u64;
            }
        }
        if self.expected.is_some_and(|n| self.next_in_order >= n)
            && self.stats.completed_at.is_none()
        {
            self.stats.completed_at = Some(now);
        }
    }

    fn has_chunk(&self, c: u64) -> bool {
        let (w, b) = ((c / 64) as usize, c % 64);
        self.chunks.get(w).is_some_and(|x| x >> b & 1 == 1)
    }

    fn send_ack(&mut self, now: Time, floor: u64, slab: &mut AckSlab, out: &mut Vec<Packet>) {
        let Some(largest) = self.received.largest() else {
            return;
        };
        let (slot, frame) = slab.alloc();
        frame.largest = largest;
        frame.ack_delay = now - self.largest_at;
        self.received
            .fill(&mut frame.ranges, self.max_ranges, floor);
        let mut p = Packet::control(PacketKind::Ack, self.flow, self.dst, self.ack_size, now);
        p.seq = slot;
        out.push(p);
        self.unacked = 0;
        self.ack_at = None;
        self.stats.acks_sent += 1;
    }

    pub fn deadline(&self) -> Option<Time> {
        self.ack_at
    }

    /// max_ack_delay passed since the first unacknowledged packet.
    pub fn on_timer(&mut self, now: Time, floor: u64, slab: &mut AckSlab, out: &mut Vec<Packet>) {
        if self.ack_at.is_some_and(|t| t <= now) {
            self.send_ack(now, floor, slab, out);
        }
    }
}
