//! What the simulator does at the ends of a packet's walk ([`super::walk`]):
//! a packet reaching its destination node goes to the flow's receiver or
//! sender, whose answers go back into the network; a dropped one is the
//! sender's ground truth; the capture taps see each hop.

use crate::engine::{EventQueue, Time, TimerKind};
use crate::metrics::pcap::Side;
use crate::net::packet::{Packet, PacketKind};
use crate::net::reps::Reps;
use crate::tcp::truth::RetxCause;

use super::graph::NetGraph;
use super::walk::Walk;
use super::world::{ConnSummary, Ends, Simulation, Source};

impl Walk for Simulation {
    #[inline(always)]
    fn parts(&mut self) -> (&mut NetGraph, &mut EventQueue) {
        (&mut self.graph, &mut self.events)
    }

    #[inline(always)]
    fn arrive(&mut self, pkt: &mut Packet, node: u32, _now: Time) {
        self.arrive_at(pkt, node);
    }

    #[inline(always)]
    fn on_drop(&mut self, pkt: &Packet) {
        self.dropped(pkt);
    }

    #[inline(always)]
    fn departed(&mut self, _li: u32, _pkt: &Packet, _now: Time) {
        self.counters.packet_hops += 1;
    }

    #[inline(always)]
    fn tap(&mut self, pkt: &Packet, li: u32, side: Side) {
        self.tap_hop(pkt, li, side);
    }
}

impl Simulation {
    /// A packet reached `node`. (Packets go down a hop by reference: a
    /// 64-byte copy per call level was a measurable share of each event.)
    fn arrive_at(&mut self, pkt: &mut Packet, node: u32) {
        if node != pkt.dst {
            self.forward(pkt, node, self.now);
            return;
        }
        if pkt.marks.trimmed() {
            self.trimmed_arrived(pkt);
            return;
        }
        let fi = pkt.flow as usize;
        let mut out = std::mem::take(&mut self.out);
        let f = &mut self.flows[fi];
        f.in_network -= 1;
        if matches!(f.ends, Ends::Quic(_)) {
            if pkt.is_data() {
                f.ce_arrivals += pkt.marks.ce() as u64;
            }
            self.out = out;
            self.quic_arrive(pkt);
            return;
        }
        let at_receiver = matches!(pkt.kind, PacketKind::Data | PacketKind::Syn);
        let from = match pkt.kind {
            PacketKind::Data => {
                f.data_arrivals += 1;
                f.ce_arrivals += pkt.marks.ce() as u64;
                let receiver = &mut f.live_mut().receiver;
                receiver.on_data(pkt, self.now, &mut out);
                if pkt.marks.ce() || pkt.entropy != 0 {
                    echo_marks(pkt, &mut out);
                }
                let (completed, delivered) = (
                    receiver.stats.completed_at.is_some(),
                    receiver.stats.segments_delivered,
                );
                if f.origin.is_some() && !f.done && completed {
                    f.done = true;
                    self.object_done(fi);
                } else if f.web.is_some_and(|w| w.busy && delivered >= w.end) {
                    self.web_object_done(fi, &mut out);
                }
                self.flows[fi].dst
            }
            PacketKind::Syn => {
                f.live_mut().receiver.on_syn(self.now, &mut out);
                if let (Some(w), Some(o)) = (f.web, f.origin) {
                    // The browser's request goes out with the handshake.
                    if let Source::Page(p) = &mut self.traffic[o.source as usize].source {
                        p.on_handshake(w.object, self.now);
                    }
                }
                self.flows[fi].dst
            }
            PacketKind::Ack | PacketKind::SynAck => {
                if let Some(t) = self.tracer.as_mut() {
                    t.on_ack(pkt.flow, pkt.seq, self.now);
                }
                if let Some(d) = self.details.as_mut() {
                    d.on_ack(pkt.flow, pkt.seq, pkt.sack.as_slice(), self.now);
                }
                f.live_mut().sender.on_packet(pkt, self.now, &mut out);
                if let Some(r) = self.reps.as_mut().and_then(|r| r.get_mut(fi)) {
                    r.on_ack(pkt.entropy, pkt.marks.ece(), self.now);
                }
                f.src
            }
        };
        self.send_all(&mut out, pkt.flow, from);
        self.out = out;
        if at_receiver {
            self.sync_receiver_timer(pkt.flow);
        } else {
            self.sync_sender_timers(pkt.flow);
        }
        if self.flows[fi].origin.is_some() {
            self.retire_if_over(fi);
        }
    }

    /// A connection a traffic generator opened for one object (`http`)
    /// that is over: everything acknowledged, the object delivered, nothing
    /// of it in the network and no timer armed. Nothing can reach it any
    /// more, so nothing of it can change: its counters are kept
    /// ([`ConnSummary`]) and its sender and receiver freed. A run opening
    /// tens of thousands of connections (the tail-loss paper's congested background)
    /// otherwise kept every one until the end: its memory grew to ~300 MB
    /// and page faults, `malloc` and moving the flows took about a third
    /// of its time.
    #[inline(never)]
    pub(super) fn retire_if_over(&mut self, fi: usize) {
        let f = &mut self.flows[fi];
        if f.origin.is_none() || f.web.is_some() || f.in_network != 0 || self.keep_connections {
            return;
        }
        let Ends::Live(e) = &f.ends else {
            return;
        };
        let (s, r) = (&e.sender, &e.receiver);
        let over = s.is_done()
            && r.stats.completed_at.is_some()
            && s.deadline(TimerKind::Rto).is_none()
            && s.deadline(TimerKind::Aux).is_none()
            && r.deadline().is_none();
        if over {
            f.ends = Ends::Over(ConnSummary::of(e));
        }
    }

    /// Send the packets an end of flow `flow` produced (all of that flow)
    /// from `node`.
    #[inline(always)]
    pub(super) fn send_all(&mut self, out: &mut Vec<Packet>, flow: u32, node: u32) {
        debug_assert!(out.iter().all(|p| p.flow == flow));
        if let Some(t) = self.tracer.as_mut() {
            for p in out.iter().filter(|p| p.is_data()) {
                t.on_send(p.flow, p.seq, p.copy, self.now);
            }
        }
        if let Some(d) = self.details.as_mut() {
            if d.wants(flow) && matches!(self.flows[flow as usize].ends, Ends::Live(_)) {
                let s = self.flows[flow as usize].sender();
                let truth = s.truth();
                let counts = [RetxCause::Fast, RetxCause::Timeout, RetxCause::Probe]
                    .map(|c| truth.retransmits(c));
                d.on_sent(flow, out, counts, s.cfg().max_window, self.now);
            }
        }
        self.flows[flow as usize].in_network += out.len() as u32;
        if let Some(r) = self.reps.as_mut() {
            // (a traffic generator's connections are opened during the run)
            while r.len() <= flow as usize {
                r.push(Reps::new(self.seed, r.len() as u32));
            }
            let (r, now) = (&mut r[flow as usize], self.now);
            out.iter_mut()
                .filter(|p| p.is_data())
                .for_each(|p| p.entropy = r.next_value(now));
        }
        for mut pkt in out.drain(..) {
            self.forward(&mut pkt, node, self.now);
        }
    }

    /// A trimmed header reached the receiver: for a sender that used them
    /// it is a NACK (NDP, Sec. 3.2; Ultra Ethernet); to the receivers and
    /// senders here it is the loss of that copy, counted as such.
    #[cold]
    #[inline(never)]
    fn trimmed_arrived(&mut self, pkt: &Packet) {
        self.flows[pkt.flow as usize].trimmed_arrivals += 1;
        self.dropped(pkt);
    }

    /// A packet of a flow left the network without arriving: for a data
    /// segment, the sender's ground truth.
    fn dropped(&mut self, pkt: &Packet) {
        let f = &mut self.flows[pkt.flow as usize];
        f.in_network -= 1;
        if let Some(q) = f.quic_mut() {
            q.on_drop(pkt);
            return;
        }
        if pkt.is_data() {
            f.live_mut().sender.on_drop(pkt.seq, pkt.copy);
            if let Some(d) = self.details.as_mut() {
                d.on_drop(pkt.flow, pkt.seq, pkt.copy, self.now);
            }
        }
        // (A flow whose last packet is dropped while it is otherwise over
        // stays live: rare, and a check here could come between two
        // packets of one send.)
    }
}

/// What the receiving host's NIC echoes in the ACKs a data segment made:
/// its entropy value (REPS) and, if it arrived marked CE, ECN-Echo on
/// each (one ACK per marked segment, as DCTCP's receiver does without
/// delayed ACKs: Alizadeh et al., SIGCOMM 2010, Sec. 3.1).
fn echo_marks(pkt: &Packet, out: &mut [Packet]) {
    for a in out.iter_mut().filter(|a| !a.is_data()) {
        a.entropy = pkt.entropy;
        if pkt.marks.ce() {
            a.marks.set_ece();
        }
    }
}
