//! A UET flow's two ends as the simulator holds them, and its results.

use super::ack::AckSlab;
use super::config::UetConfig;
use super::receiver::UetReceiver;
use super::sender::UetSender;
use crate::engine::{Time, TimerKind};
use crate::net::packet::{Packet, PacketKind};

#[derive(Debug, Clone)]
pub struct UetEnds {
    pub sender: UetSender,
    pub receiver: UetReceiver,
    pub frames: AckSlab,
}

impl UetEnds {
    pub fn new(cfg: UetConfig, flow: u32, (src, dst): (u32, u32), measure_from: Time) -> UetEnds {
        UetEnds {
            receiver: UetReceiver::new(&cfg, flow, src, measure_from),
            sender: UetSender::new(cfg, flow, dst),
            frames: AckSlab::default(),
        }
    }

    /// A packet of this flow reached its destination whole: data or a
    /// probe at the receiver, an ACK or NACK at the sender.
    pub fn on_packet(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::Data => {
                self.sender.truth.on_arrival(pkt.seq, pkt.copy);
                self.receiver.on_data(pkt, now, &mut self.frames, out);
            }
            PacketKind::Syn => (self.receiver).on_probe(pkt.seq, now, &mut self.frames, out),
            PacketKind::Ack => {
                let frame = self.frames.take(pkt.seq);
                self.sender.on_ack(&frame, now, out);
            }
            PacketKind::SynAck => {}
        }
    }

    /// The header of a data packet arrived trimmed: the copy is lost
    /// (ground truth), the receiver answers with a NACK.
    pub fn on_trimmed(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        self.sender.truth.on_drop();
        self.receiver
            .on_trimmed(pkt.seq, now, &mut self.frames, out);
    }

    /// A packet of this flow was dropped in the network.
    pub fn on_drop(&mut self, pkt: &Packet) {
        match pkt.kind {
            PacketKind::Data => self.sender.truth.on_drop(),
            PacketKind::Ack => {
                self.frames.take(pkt.seq);
            }
            PacketKind::Syn | PacketKind::SynAck => {}
        }
    }

    pub fn deadline(&self, kind: TimerKind) -> Option<Time> {
        self.sender.deadline(kind)
    }

    pub fn on_timer(&mut self, kind: TimerKind, now: Time, out: &mut Vec<Packet>) {
        self.sender.on_timer(kind, now, out);
    }

    /// Violations of the flow's invariants (none when sound).
    pub fn check(&self) -> Vec<String> {
        let mut bad = Vec::new();
        let s = &self.sender;
        if s.cack > self.receiver.cack {
            bad.push(format!(
                "sender's cumulative ACK {} above the receiver's {}",
                s.cack, self.receiver.cack
            ));
        }
        if s.in_flight > s.next_psn as u64 * s.cfg.mss as u64 {
            bad.push(format!(
                "{} bytes in flight of {} sent",
                s.in_flight, s.next_psn
            ));
        }
        bad
    }
}

/// A UET flow's own results (`FlowResult::uet`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct UetFlowResult {
    /// Data packets sent (every copy), and of them retransmissions by
    /// cause: SLEEK, a NACK, the RTO.
    pub packets_sent: u64,
    pub retransmits: u64,
    pub sleek_retransmits: u64,
    pub nack_retransmits: u64,
    pub rto_retransmits: u64,
    /// Retransmissions of which an earlier copy arrived (ground truth).
    pub spurious_retransmits: u64,
    pub nacks_received: u64,
    pub probes_sent: u64,
    pub probe_acks: u64,
    /// Entries into loss recovery (SLEEK or a probe's answer).
    pub loss_recoveries: u64,
    /// Of them, entries by a probe's answer (queueing delay below target).
    pub probe_recoveries: u64,
    pub timeouts: u64,
    pub ece_received: u64,
    /// SLEEK's threshold at the end, packets.
    pub sleek_threshold: u64,
    /// Receiver: packets that arrived above a hole, and duplicates.
    pub out_of_order: u64,
    pub duplicates: u64,
}

impl UetFlowResult {
    pub fn of(u: &UetEnds) -> UetFlowResult {
        let (s, r) = (&u.sender.stats, &u.receiver.stats);
        UetFlowResult {
            packets_sent: s.packets_sent,
            retransmits: s.retransmits,
            sleek_retransmits: s.sleek_retransmits,
            nack_retransmits: s.nack_retransmits,
            rto_retransmits: s.rto_retransmits,
            spurious_retransmits: u.sender.truth.spurious_retransmits(),
            nacks_received: s.nacks_received,
            probes_sent: s.probes_sent,
            probe_acks: s.probe_acks,
            loss_recoveries: s.loss_recoveries,
            probe_recoveries: s.probe_recoveries,
            timeouts: s.timeouts,
            ece_received: s.ece_received,
            sleek_threshold: u.sender.sleek_threshold(),
            out_of_order: r.out_of_order,
            duplicates: r.duplicates,
        }
    }
}
