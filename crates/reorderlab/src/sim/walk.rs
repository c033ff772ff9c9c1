//! A packet's walk through the network ([`NetGraph`]), the one the simulator
//! and the emulator share: from a node to the link its route takes, through
//! the link's ingress impairment elements, its queue and transmitter, its
//! egress elements, to the far node; and an element's release, which
//! continues each released packet after that element.
//!
//! What happens at a node, to a dropped packet, at a capture tap and when a
//! transmitter delivers differs: the simulator hands packets to its TCP
//! endpoints ([`super::Simulation`], `path.rs`), the emulator to real hosts
//! (`emu/network.rs`). Each implements those hooks of [`Walk`]; the steps
//! are the trait's provided methods, written once. (Generic, so each user
//! gets its own copy with the hooks inlined: no dynamic dispatch on the
//! per-packet path.)

use crate::engine::timer::Fire;
use crate::engine::{Event, EventQueue, Time};
use crate::impair::Verdict;
use crate::metrics::pcap::Side;
use crate::net::link::Admit;
use crate::net::packet::Packet;
use crate::spec::Position;

use super::graph::NetGraph;

pub trait Walk {
    // ----- what the walker provides -----------------------------------------

    /// The network, and the event queue its links and elements schedule on.
    fn parts(&mut self) -> (&mut NetGraph, &mut EventQueue);
    /// `pkt` reached `node` at `now`: its destination, or a hop to forward
    /// it from ([`Walk::forward`]).
    fn arrive(&mut self, pkt: &mut Packet, node: u32, now: Time);
    /// `pkt` was dropped: by an element, a full queue, or for want of a
    /// route.
    fn on_drop(&mut self, pkt: &Packet);
    /// Link `li`'s transmitter delivered `pkt` at `now`, before the
    /// link's egress elements.
    fn departed(&mut self, li: u32, pkt: &Packet, now: Time);
    /// `pkt` is offered to link `li` or delivered by it (capture taps).
    #[inline(always)]
    fn tap(&mut self, _pkt: &Packet, _li: u32, _side: Side) {}

    // ----- the walk -----------------------------------------------------------

    /// Deliver the head packet of `link`, whose event is at the top of the
    /// queue: the link's next head takes that event's place (one path of
    /// the link-head tree replayed), then the packet moves on.
    fn deliver_link_head(&mut self, link: u32, now: Time) {
        let (graph, events) = self.parts();
        let l = &mut graph.links[link as usize];
        let mut pkt = l.pop_arrival();
        let next = l.next_arrival();
        events.replace_link_head(link, next);
        graph.note_head(link);
        if let Some(li) = events.next_link() {
            graph.prefetch_link(li);
        }
        self.departed(link, &pkt, now);
        self.leave_link(&mut pkt, link, 0, now);
    }

    /// Send a packet from `node` towards its destination: choose the link
    /// (multipath route, else the routing table), then offer it.
    fn forward(&mut self, pkt: &mut Packet, node: u32, now: Time) {
        let Some(li) = self.parts().0.next_link(pkt, node, now) else {
            // Validation guarantees routes for every flow; count as a drop.
            self.on_drop(pkt);
            return;
        };
        self.tap(pkt, li, Side::Offered);
        self.parts().0.links[li as usize].stats.arrivals += 1;
        self.enter_link(pkt, li, 0, now);
    }

    /// Run the link's ingress elements from `from` on, then its queue.
    /// (Most links have no elements: that path is inlined, the elements'
    /// loop is not, which saves a call and its register saves per hop.)
    #[inline(always)]
    fn enter_link(&mut self, pkt: &Packet, li: u32, from: usize, now: Time) {
        let link = &mut self.parts().0.links[li as usize];
        // (one look-up of the link on the usual path, no elements)
        let admitted = if from < link.ingress.len() {
            if !self.pass_ingress(pkt, li, from, now) {
                return;
            }
            self.parts().0.links[li as usize].admit(pkt, now)
        } else {
            link.admit(pkt, now)
        };
        match admitted {
            Admit::Accepted(Some(t)) => {
                let (graph, events) = self.parts();
                graph.note_head(li);
                events.schedule(t, Event::LinkDeliver { link: li })
            }
            Admit::Accepted(None) => {}
            Admit::Dropped => self.on_drop(pkt),
            Admit::Trimmed(Some(t)) => self
                .parts()
                .1
                .schedule(t, Event::HeaderDeliver { link: li }),
            Admit::Trimmed(None) => {}
        }
    }

    /// Deliver the head of link `link`'s priority lane (a trimmed header),
    /// whose event was just taken from the queue; its next head is
    /// scheduled.
    fn deliver_header(&mut self, link: u32, now: Time) {
        let (graph, events) = self.parts();
        let (mut pkt, next) = graph.links[link as usize].pop_header();
        if let Some(t) = next {
            events.schedule(t, Event::HeaderDeliver { link });
        }
        self.departed(link, &pkt, now);
        self.leave_link(&mut pkt, link, 0, now);
    }

    /// The link's ingress elements from `from` on: whether the packet
    /// passed them all (else an element dropped or holds it).
    #[inline(never)]
    fn pass_ingress(&mut self, pkt: &Packet, li: u32, from: usize, now: Time) -> bool {
        let n = self.parts().0.links[li as usize].ingress.len();
        for k in from..n {
            let graph = self.parts().0;
            let e = graph.links[li as usize].ingress[k];
            let verdict = graph.elements[e as usize].process(pkt, now);
            // A passing packet can move a deadline too (the reordering
            // generator arms its release on the first later packet).
            self.sync_element(e, now);
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.parts().0.links[li as usize].stats.ingress_drops += 1;
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
    fn leave_link(&mut self, pkt: &mut Packet, li: u32, from: usize, now: Time) {
        let link = &self.parts().0.links[li as usize];
        let (node, elements) = (link.to, link.egress.len());
        if from < elements && !self.pass_egress(pkt, li, from, now) {
            return;
        }
        self.tap(pkt, li, Side::Delivered);
        self.arrive(pkt, node, now);
    }

    /// The link's egress elements from `from` on: whether the packet
    /// passed them all.
    #[inline(never)]
    fn pass_egress(&mut self, pkt: &mut Packet, li: u32, from: usize, now: Time) -> bool {
        let n = self.parts().0.links[li as usize].egress.len();
        for k in from..n {
            let graph = self.parts().0;
            let e = graph.links[li as usize].egress[k];
            let verdict = graph.elements[e as usize].process(pkt, now);
            self.sync_element(e, now);
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.parts().0.links[li as usize].stats.egress_drops += 1;
                    self.on_drop(pkt);
                    return false;
                }
                Verdict::Hold => return false,
            }
        }
        true
    }

    /// Keep element `e`'s timer on its deadline.
    fn sync_element(&mut self, e: u32, now: Time) {
        let (graph, events) = self.parts();
        let deadline = graph.elements[e as usize].deadline();
        if let Some((t, gen)) = graph.element_timers[e as usize].sync(deadline, now) {
            events.schedule(t, Event::ImpairRelease { element: e, gen });
        }
    }

    /// An element's deadline: release what is due and continue each packet
    /// after that element.
    fn fire_element(&mut self, e: u32, gen: u32, now: Time) {
        let (graph, events) = self.parts();
        let deadline = graph.elements[e as usize].deadline();
        let timer = &mut graph.element_timers[e as usize];
        match timer.on_fire(gen, now, deadline) {
            Fire::Ignore => return,
            Fire::Requeue(t) => {
                let gen = timer.generation();
                events.schedule(t, Event::ImpairRelease { element: e, gen });
                return;
            }
            Fire::Expire => {}
        }
        let el = &mut graph.elements[e as usize];
        let (li, position, next) = (el.link, el.position, el.chain_index + 1);
        let mut batch = std::mem::take(&mut graph.released);
        el.on_deadline(now, &mut graph.links[li as usize], &mut batch);
        for mut pkt in batch.drain(..) {
            match position {
                Position::Ingress => self.enter_link(&pkt, li, next, now),
                Position::Egress => self.leave_link(&mut pkt, li, next, now),
            }
        }
        self.parts().0.released = batch;
        self.sync_element(e, now);
    }
}
