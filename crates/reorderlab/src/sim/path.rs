//! A packet's path: links, impairment elements and nodes.

use super::{ConnSummary, Ends, Simulation, Source};
use crate::engine::timer::Fire;
use crate::engine::{Event, TimerKind};
use crate::impair::Verdict;
use crate::metrics::pcap::Side;
use crate::net::link::Admit;
use crate::net::packet::{Packet, PacketKind};
use crate::spec::Position;

impl Simulation {
    /// Deliver the head packet of `link`, whose event is at the top of the
    /// queue: the link's next head takes that event's place (one path of
    /// the link-head tree replayed), then the packet moves on.
    pub(super) fn deliver_link_head(&mut self, link: u32) {
        let l = &mut self.links[link as usize];
        let mut pkt = l.pop_arrival();
        let next = l.next_arrival();
        self.events.replace_link_head(link, next);
        self.counters.packet_hops += 1;
        self.leave_link(&mut pkt, link, 0);
    }

    /// A packet reached `node`. (Packets go down a hop by reference: a
    /// 64-byte copy per call level was a measurable share of each event.)
    fn arrive(&mut self, pkt: &mut Packet, node: u32) {
        if node != pkt.dst {
            self.forward(pkt, node);
            return;
        }
        let fi = pkt.flow as usize;
        let mut out = std::mem::take(&mut self.out);
        let f = &mut self.flows[fi];
        f.in_network -= 1;
        let at_receiver = matches!(pkt.kind, PacketKind::Data | PacketKind::Syn);
        let from = match pkt.kind {
            PacketKind::Data => {
                f.data_arrivals += 1;
                let receiver = &mut f.live_mut().receiver;
                receiver.on_data(pkt, self.now, &mut out);
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
                f.live_mut().sender.on_packet(pkt, self.now, &mut out);
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
        self.flows[flow as usize].in_network += out.len() as u32;
        for mut pkt in out.drain(..) {
            self.forward(&mut pkt, node);
        }
    }

    /// Send a packet from `node` towards its destination: choose the link
    /// (multipath route, else the routing table), then offer it.
    fn forward(&mut self, pkt: &mut Packet, node: u32) {
        let Some(li) = self.next_link(pkt, node) else {
            // Validation guarantees routes for every flow; count as a drop.
            self.on_drop(pkt);
            return;
        };
        self.tap(pkt, li, Side::Offered);
        self.links[li as usize].stats.arrivals += 1;
        self.enter_link(pkt, li, 0);
    }

    fn next_link(&mut self, pkt: &mut Packet, node: u32) -> Option<u32> {
        if self.multipath.is_empty() {
            return self.routing.next_link(node, pkt.dst);
        }
        if pkt.route != 0 {
            match self.multipath.next_link(pkt.route, node) {
                Some(l) => return Some(l),
                None => pkt.route = 0,
            }
        }
        if let Some(route) = self.multipath.choose(node, pkt) {
            pkt.route = route;
            return self.multipath.next_link(route, node);
        }
        self.routing.next_link(node, pkt.dst)
    }

    /// Run the link's ingress elements from `from` on, then its queue.
    /// (Most links have no elements: that path is inlined, the elements'
    /// loop is not, which saves a call and its register saves per hop.)
    #[inline(always)]
    fn enter_link(&mut self, pkt: &Packet, li: u32, from: usize) {
        let now = self.now;
        let link = &mut self.links[li as usize];
        // (one look-up of the link on the usual path, no elements)
        let admitted = if from < link.ingress.len() {
            if !self.pass_ingress(pkt, li, from) {
                return;
            }
            self.links[li as usize].admit(pkt, now)
        } else {
            link.admit(pkt, now)
        };
        match admitted {
            Admit::Accepted(Some(t)) => self.events.schedule(t, Event::LinkDeliver { link: li }),
            Admit::Accepted(None) => {}
            Admit::Dropped => self.on_drop(pkt),
        }
    }

    /// The link's ingress elements from `from` on: whether the packet
    /// passed them all (else an element dropped or holds it).
    #[inline(never)]
    fn pass_ingress(&mut self, pkt: &Packet, li: u32, from: usize) -> bool {
        let n = self.links[li as usize].ingress.len();
        for k in from..n {
            let e = self.links[li as usize].ingress[k];
            let verdict = self.elements[e as usize].process(pkt, self.now);
            // A passing packet can move a deadline too (the reordering
            // generator arms its release on the first later packet).
            self.sync_element(e);
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.links[li as usize].stats.ingress_drops += 1;
                    self.on_drop(pkt);
                    return false;
                }
                Verdict::Hold => return false,
            }
        }
        true
    }

    /// Run the link's egress elements from `from` on, then hand the packet
    /// to the far node.
    #[inline(always)]
    fn leave_link(&mut self, pkt: &mut Packet, li: u32, from: usize) {
        let link = &self.links[li as usize];
        let (node, elements) = (link.to, link.egress.len());
        if from < elements && !self.pass_egress(pkt, li, from) {
            return;
        }
        self.tap(pkt, li, Side::Delivered);
        self.arrive(pkt, node);
    }

    /// The link's egress elements from `from` on: whether the packet
    /// passed them all.
    #[inline(never)]
    fn pass_egress(&mut self, pkt: &mut Packet, li: u32, from: usize) -> bool {
        let n = self.links[li as usize].egress.len();
        for k in from..n {
            let e = self.links[li as usize].egress[k];
            let verdict = self.elements[e as usize].process(pkt, self.now);
            self.sync_element(e);
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.links[li as usize].stats.egress_drops += 1;
                    self.on_drop(pkt);
                    return false;
                }
                Verdict::Hold => return false,
            }
        }
        true
    }

    fn sync_element(&mut self, e: u32) {
        let deadline = self.elements[e as usize].deadline();
        if let Some((t, gen)) = self.element_timers[e as usize].sync(deadline, self.now) {
            self.events
                .schedule(t, Event::ImpairRelease { element: e, gen });
        }
    }

    /// An element's deadline: release what is due and continue each packet
    /// after that element.
    pub(super) fn fire_element(&mut self, e: u32, gen: u32) {
        let deadline = self.elements[e as usize].deadline();
        match self.element_timers[e as usize].on_fire(gen, self.now, deadline) {
            Fire::Ignore => return,
            Fire::Requeue(t) => {
                let gen = self.element_timers[e as usize].generation();
                self.events
                    .schedule(t, Event::ImpairRelease { element: e, gen });
                return;
            }
            Fire::Expire => {}
        }
        let el = &mut self.elements[e as usize];
        let (li, position, next) = (el.link, el.position, el.chain_index + 1);
        let mut batch = std::mem::take(&mut self.released);
        el.on_deadline(self.now, &mut self.links[li as usize], &mut batch);
        for mut pkt in batch.drain(..) {
            match position {
                Position::Ingress => self.enter_link(&pkt, li, next),
                Position::Egress => self.leave_link(&mut pkt, li, next),
            }
        }
        self.released = batch;
        self.sync_element(e);
    }

    fn on_drop(&mut self, pkt: &Packet) {
        let f = &mut self.flows[pkt.flow as usize];
        f.in_network -= 1;
        if pkt.is_data() {
            f.live_mut().sender.on_drop(pkt.seq, pkt.copy);
        }
        // (A flow whose last packet is dropped while it is otherwise over
        // stays live: rare, and a check here could come between two
        // packets of one send.)
    }
}
