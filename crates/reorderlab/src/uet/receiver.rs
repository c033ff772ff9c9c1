//! A UET receiver (the PDS target of one flow): which PSNs arrived, the
//! cumulative ACK, the out-of-order count, and when it answers. ACK
//! policy after uet-htsim's `UecSink::processData` (read, not copied):
//! an ACK once [`ACK_BYTES`] arrived since the last one, and at once for
//! the first packet, a CE-marked packet, a packet with the ACK-request
//! flag (retransmissions and a message's last packet carry it; another
//! ACK follows when the out-of-order set drains), and a duplicate. A
//! trimmed header is answered with a NACK (`processTrimmed`), a probe
//! with an ACK marked as the probe's answer.

use super::ack::{AckSlab, UetAck};
use super::config::{UetConfig, ACK_BYTES, SACK_BITS};
use crate::engine::Time;
use crate::net::packet::{Packet, PacketKind};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecvStats {
    pub packets_received: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
    pub acks_sent: u64,
    pub nacks_sent: u64,
    pub probe_acks_sent: u64,
    pub ecn_received: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    pub bytes_delivered_measured: u64,
    pub completed_at: Option<Time>,
}

#[derive(Debug, Clone)]
pub struct UetReceiver {
    flow: u32,
    /// The sender's node (ACKs go there).
    src: u32,
    mss: u32,
    ack_size: u32,
    expected: Option<u64>,
    measure_from: Time,
    /// `rx[psn]`: received (PSNs below `cack` are all received).
    rx: Vec<bool>,
    pub cack: u32,
    pub ooo: u32,
    accepted_bytes: u64,
    ack_request: bool,
    pub stats: RecvStats,
}

impl UetReceiver {
    pub fn new(cfg: &UetConfig, flow: u32, src: u32, measure_from: Time) -> UetReceiver {
        UetReceiver {
            flow,
            src,
            mss: cfg.mss,
            ack_size: cfg.ack_size,
            expected: cfg.segments,
            measure_from,
            rx: Vec::new(),
            cack: 0,
            ooo: 0,
            accepted_bytes: 0,
            ack_request: false,
            stats: RecvStats::default(),
        }
    }

    fn received(&self, psn: u32) -> bool {
        psn < self.cack || self.rx.get(psn as usize).copied().unwrap_or(false)
    }

    /// A data packet (whole, not trimmed) arrived.
    pub fn on_data(&mut self, pkt: &Packet, now: Time, slab: &mut AckSlab, out: &mut Vec<Packet>) {
        let (psn, ce, ar) = (pkt.seq, pkt.marks.ce(), pkt.immediate);
        self.stats.packets_received += 1;
        self.stats.ecn_received += ce as u64;
        if self.received(psn) {
            self.stats.duplicates += 1;
            self.ack(psn, ce, false, false, now, slab, out);
            return;
        }
        let mut force = self.stats.packets_delivered == 0;
        self.accepted_bytes += pkt.size as u64;
        self.deliver(now);
        if ar {
            force = true;
            self.ack_request = true;
        }
        if self.rx.len() <= psn as usize {
            self.rx.resize(psn as usize + 1, false);
        }
        self.rx[psn as usize] = true;
        if psn == self.cack {
            let from = self.cack;
            while self.rx.get(self.cack as usize).copied().unwrap_or(false) {
                self.cack += 1;
            }
            // the packets now below cack but above `psn` were counted out of order
            self.ooo -= self.cack - from - 1;
            if self.ooo == 0 && self.ack_request {
                force = true;
                self.ack_request = false;
            }
        } else {
            self.ooo += 1;
            self.stats.out_of_order += 1;
        }
        if self.expected.is_some_and(|n| self.cack as u64 >= n) && self.stats.completed_at.is_none()
        {
            self.stats.completed_at = Some(now);
            force = true;
        }
        if ce || force || self.accepted_bytes >= ACK_BYTES {
            self.ack(psn, ce, false, false, now, slab, out);
        }
    }

    fn deliver(&mut self, now: Time) {
        let bytes = self.mss as u64;
        self.stats.packets_delivered += 1;
        self.stats.bytes_delivered += bytes;
        if now >= self.measure_from {
            self.stats.bytes_delivered_measured += bytes;
        }
    }

    /// The header of PSN `psn` arrived trimmed: a NACK (or an ACK if the
    /// packet is already here).
    pub fn on_trimmed(&mut self, psn: u32, now: Time, slab: &mut AckSlab, out: &mut Vec<Packet>) {
        let nack = !self.received(psn);
        self.ack(psn, false, false, nack, now, slab, out);
    }

    /// Probe number `probe` arrived: its answer (naming the probe).
    pub fn on_probe(&mut self, probe: u32, now: Time, slab: &mut AckSlab, out: &mut Vec<Packet>) {
        self.ack(probe, false, true, false, now, slab, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn ack(
        &mut self,
        psn: u32,
        ece: bool,
        probe: bool,
        nack: bool,
        now: Time,
        slab: &mut AckSlab,
        out: &mut Vec<Packet>,
    ) {
        // the bitmap ends at the PSN that made the ACK (uet-htsim's
        // sackBitmapBase: max(psn - 63, cack)); a probe's at the highest
        let top = if probe { self.rx.len() as u32 } else { psn };
        let base = top.saturating_sub(SACK_BITS - 1).max(self.cack);
        let mut bitmap = 0u64;
        for i in 0..SACK_BITS {
            if self.rx.get((base + i) as usize).copied().unwrap_or(false) {
                bitmap |= 1 << i;
            }
        }
        let frame = UetAck {
            cack: self.cack,
            ref_psn: psn,
            base,
            bitmap,
            ooo: self.ooo,
            ece,
            probe,
            nack,
        };
        match (nack, probe) {
            (true, _) => self.stats.nacks_sent += 1,
            (_, true) => self.stats.probe_acks_sent += 1,
            _ => self.stats.acks_sent += 1,
        }
        self.accepted_bytes = 0;
        let mut a = Packet::control(PacketKind::Ack, self.flow, self.src, self.ack_size, now);
        a.seq = slab.put(frame);
        a.marks = Default::default();
        if ece {
            a.marks.set_ece();
        }
        out.push(a);
    }
}
