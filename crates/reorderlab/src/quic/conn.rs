//! A QUIC connection's two ends as the simulator holds them: sender,
//! receiver and the ACK frames between them ([`AckSlab`]).

use super::ack::AckSlab;
use super::config::QuicConfig;
use super::receiver::QuicReceiver;
use super::sender::{chunk_of, QuicSender};
use crate::engine::{Time, TimerKind};
use crate::net::packet::{Packet, PacketKind};
use crate::tcp::cc::CongestionControl;

#[derive(Debug, Clone)]
pub struct QuicEnds {
    pub sender: QuicSender,
    pub receiver: QuicReceiver,
    pub frames: AckSlab,
}

impl QuicEnds {
    /// Flow `flow` from node `src` to node `dst`.
    pub fn new(
        cfg: QuicConfig,
        cc: CongestionControl,
        flow: u32,
        (src, dst): (u32, u32),
        measure_from: Time,
    ) -> QuicEnds {
        QuicEnds {
            receiver: QuicReceiver::new(&cfg, flow, src, measure_from),
            sender: QuicSender::new(cfg, cc, flow, dst),
            frames: AckSlab::default(),
        }
    }

    /// The run's seed (BBR's random stream).
    pub fn seed(&mut self, seed: u64) {
        self.sender.seed(seed);
    }

    /// A packet of this flow reached its destination: data at the
    /// receiver, an ACK at the sender.
    pub fn on_packet(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::Data => {
                let pn = pkt.seq as u64;
                self.sender.truth.on_arrival(pn);
                let floor = self.sender.ack_floor();
                let r = &mut self.receiver;
                r.on_data((pn, chunk_of(pkt)), floor, now, &mut self.frames, out);
            }
            PacketKind::Ack => {
                let slot = pkt.seq;
                let frame = std::mem::take(&mut *self.frames.frame_mut(slot));
                self.sender.on_ack(&frame, now, out);
                *self.frames.frame_mut(slot) = frame;
                self.frames.release(slot);
            }
            PacketKind::Syn | PacketKind::SynAck => {}
        }
    }

    /// A packet of this flow was dropped in the network.
    pub fn on_drop(&mut self, pkt: &Packet) {
        match pkt.kind {
            PacketKind::Data => self.sender.truth.on_drop(pkt.seq as u64),
            PacketKind::Ack => self.frames.release(pkt.seq),
            PacketKind::Syn | PacketKind::SynAck => {}
        }
    }

    pub fn deadline(&self, kind: TimerKind) -> Option<Time> {
        match kind {
            TimerKind::DelAck => self.receiver.deadline(),
            _ => self.sender.deadline(kind),
        }
    }

    pub fn on_timer(&mut self, kind: TimerKind, now: Time, out: &mut Vec<Packet>) {
        match kind {
            TimerKind::DelAck => {
                let floor = self.sender.ack_floor();
                self.receiver.on_timer(now, floor, &mut self.frames, out)
            }
            _ => self.sender.on_timer(kind, now, out),
        }
    }

    /// Violations of the flow's invariants (none when sound).
    pub fn check(&self) -> Vec<String> {
        let mut bad = Vec::new();
        let t = &self.sender.truth;
        if t.declared_twice > 0 {
            bad.push(format!("{} packets declared lost twice", t.declared_twice));
        }
        let ld = &self.sender.ld;
        let flight: u64 = ld.outstanding.iter().map(|(_, p)| p.size as u64).sum();
        if flight != ld.bytes_in_flight {
            bad.push(format!(
                "bytes in flight {} != outstanding {}",
                ld.bytes_in_flight, flight
            ));
        }
        bad
    }
}

/// A QUIC flow's own results (`FlowResult::quic`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QuicFlowResult {
    /// Packets sent (every one with a new packet number).
    pub packets_sent: u64,
    /// Packets the sender declared lost.
    pub declared_lost: u64,
    /// Of those, packets that reached the receiver (ground truth).
    pub spuriously_lost: u64,
    /// declared_lost / packets_sent (quinn's `lost_packets` share).
    pub lost_share: f64,
    /// spuriously_lost / declared_lost.
    pub spurious_share: f64,
    /// Packets declared lost that an ACK acknowledged later (what the
    /// sender itself sees of its spurious losses).
    pub late_acked: u64,
    pub ptos: u64,
    pub probes_sent: u64,
    pub congestion_events: u64,
    pub persistent_congestions: u64,
    pub undos: u64,
    /// The thresholds at the end (adaptive variants move them).
    pub packet_threshold: u64,
    pub time_threshold: f64,
    /// Receiver: packets below the largest received, and those its
    /// duplicate-detection window discarded.
    pub reordered_packets: u64,
    pub window_discards: u64,
    pub immediate_acks: u64,
}

impl QuicFlowResult {
    pub fn of(q: &QuicEnds) -> QuicFlowResult {
        let (s, r, t) = (&q.sender.stats, &q.receiver.stats, &q.sender.truth);
        let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
        let th = q.sender.ld.thresholds;
        QuicFlowResult {
            packets_sent: s.packets_sent,
            declared_lost: s.declared_lost,
            spuriously_lost: t.spurious_losses,
            lost_share: ratio(s.declared_lost, s.packets_sent),
            spurious_share: ratio(t.spurious_losses, s.declared_lost),
            late_acked: s.late_acked,
            ptos: s.ptos,
            probes_sent: s.probes_sent,
            congestion_events: q.sender.cc.reductions,
            persistent_congestions: q.sender.cc.persistent_congestions,
            undos: q.sender.cc.undos,
            packet_threshold: th.packet,
            time_threshold: th.time.0 as f64 / th.time.1 as f64,
            reordered_packets: r.reordered,
            window_discards: r.window_discards,
            immediate_acks: r.immediate_acks,
        }
    }
}
