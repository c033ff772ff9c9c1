//! The scenario's network for real packets: the simulator's own links
//! (rate, propagation delay, queue discipline), impairment elements,
//! routing table and multipath splitters, built with the same random
//! streams, driven by the caller's clock instead of the simulator's event
//! loop.
//!
//! Every model call takes the time explicitly, so nothing here knows which
//! clock it runs on. An event (a link's head arriving at the far node, an
//! element's release) is handled at its own scheduled time even when the
//! caller comes late: the model's behaviour does not depend on the host's
//! scheduling, only the moment a packet is written out does (that lateness
//! is the timing error the emulator reports).
//!
//! The packet walk (ingress elements, queue, link, egress elements, next
//! node) is the one of `sim.rs`; flows, timers and traffic live in the real
//! hosts, not here.

use crate::engine::time::secs;
use crate::engine::timer::Fire;
use crate::engine::{Event, EventQueue, Time, TimerSlot};
use crate::impair::{Element, Verdict};
use crate::net::link::Admit;
use crate::net::multipath::Multipath;
use crate::net::packet::Packet;
use crate::net::topology::build_topology;
use crate::net::{Link, RoutingTable};
use crate::sim::build::{attach_impairments, build_multipath};
use crate::spec::{Position, Scenario};

/// Where packets leave the network: delivered to their destination node
/// (with the scheduled time) or dropped.
#[derive(Debug, Default)]
pub struct Sink {
    pub delivered: Vec<(Packet, Time)>,
    pub dropped: Vec<Packet>,
}

/// A departure of a link's transmitter, for the achieved-rate measurement:
/// the link, the packet's size and its scheduled arrival at the far node.
pub type Departure = (u32, u16, Time);

#[derive(Debug)]
pub struct Network {
    pub node_names: Vec<String>,
    pub node_index: std::collections::HashMap<String, u32>,
    pub links: Vec<Link>,
    pub elements: Vec<Element>,
    pub multipath: Multipath,
    routing: RoutingTable,
    element_timers: Vec<TimerSlot>,
    events: EventQueue,
    released: Vec<Packet>,
    /// Link arrivals handled since the caller last took them.
    pub departures: Vec<Departure>,
}

impl Network {
    /// Build the scenario's network; the scenario must be valid. The same
    /// component indices as the simulator, so each element, link and
    /// splitter draws from the stream it draws from in a simulation.
    pub fn new(scenario: &Scenario, seed: u64) -> Network {
        let topo = build_topology(&scenario.topology, seed);
        let pairs: Vec<(u32, u32)> = topo.links.iter().map(|l| (l.from, l.to)).collect();
        let routing = RoutingTable::shortest_paths(topo.node_names.len(), &pairs);
        let mut links = topo.links;
        let elements = attach_impairments(scenario, &topo.link_index, &mut links, seed);
        let multipath = build_multipath(scenario, &topo.link_index, &topo.node_index, &links, seed);
        let mut net = Network {
            node_names: topo.node_names,
            node_index: topo.node_index,
            events: EventQueue::with_links(links.len()),
            links,
            element_timers: vec![TimerSlot::default(); elements.len()],
            elements,
            multipath,
            routing,
            released: Vec::with_capacity(64),
            departures: Vec::with_capacity(256),
        };
        for e in 0..net.elements.len() as u32 {
            net.sync_element(e, 0); // swap elements have a deadline from the start
        }
        net
    }

    /// One-way propagation plus serialisation of a `bytes` packet from
    /// `from` to `to` on an idle path (for the self-checks of tests).
    pub fn unloaded_latency(&self, from: u32, to: u32, bytes: u32) -> Time {
        let mut node = from;
        let mut t = 0;
        while node != to {
            let Some(li) = self.routing.next_link(node, to) else {
                break;
            };
            let l = &self.links[li as usize];
            t += l.delay + crate::engine::time::tx_time(bytes, l.rate);
            node = l.to;
        }
        t
    }

    /// Time of the next event, if any.
    pub fn next_event(&self) -> Option<Time> {
        self.events.peek().map(|(t, _)| t)
    }

    /// A packet enters the network at `node` at `now` (not earlier than any
    /// event already handled).
    pub fn inject(&mut self, mut pkt: Packet, node: u32, now: Time, sink: &mut Sink) {
        self.forward(&mut pkt, node, now, sink);
    }

    /// Handle every event due at or before `until`, each at its own time.
    pub fn run_until(&mut self, until: Time, sink: &mut Sink) {
        while let Some((t, event)) = self.events.peek() {
            if t > until {
                break;
            }
            match event {
                Event::LinkDeliver { link } => self.deliver_link_head(link, t, sink),
                Event::ImpairRelease { element, gen } => {
                    self.events.pop();
                    self.fire_element(element, gen, t, sink);
                }
                _ => {
                    self.events.pop();
                }
            }
        }
    }

    fn deliver_link_head(&mut self, link: u32, now: Time, sink: &mut Sink) {
        let l = &mut self.links[link as usize];
        let mut pkt = l.pop_arrival();
        let next = l.next_arrival();
        match next {
            Some(t) => self.events.replace_top(t, Event::LinkDeliver { link }),
            None => {
                self.events.pop();
            }
        }
        self.departures.push((link, pkt.size, now));
        self.leave_link(&mut pkt, link, 0, now, sink);
    }

    fn forward(&mut self, pkt: &mut Packet, node: u32, now: Time, sink: &mut Sink) {
        if node == pkt.dst {
            sink.delivered.push((*pkt, now));
            return;
        }
        let Some(li) = self.next_link(pkt, node) else {
            sink.dropped.push(*pkt);
            return;
        };
        self.links[li as usize].stats.arrivals += 1;
        self.enter_link(pkt, li, 0, now, sink);
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

    fn enter_link(&mut self, pkt: &Packet, li: u32, from: usize, now: Time, sink: &mut Sink) {
        let n = self.links[li as usize].ingress.len();
        for k in from..n {
            let e = self.links[li as usize].ingress[k];
            let verdict = self.elements[e as usize].process(pkt, now);
            self.sync_element(e, now);
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.links[li as usize].stats.ingress_drops += 1;
                    sink.dropped.push(*pkt);
                    return;
                }
                Verdict::Hold => return,
            }
        }
        match self.links[li as usize].admit(pkt, now) {
            Admit::Accepted(Some(t)) => self.events.schedule(t, Event::LinkDeliver { link: li }),
            Admit::Accepted(None) => {}
            Admit::Dropped => sink.dropped.push(*pkt),
        }
    }

    fn leave_link(&mut self, pkt: &mut Packet, li: u32, from: usize, now: Time, sink: &mut Sink) {
        let n = self.links[li as usize].egress.len();
        for k in from..n {
            let e = self.links[li as usize].egress[k];
            let verdict = self.elements[e as usize].process(pkt, now);
            self.sync_element(e, now);
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.links[li as usize].stats.egress_drops += 1;
                    sink.dropped.push(*pkt);
                    return;
                }
                Verdict::Hold => return,
            }
        }
        let node = self.links[li as usize].to;
        self.forward(pkt, node, now, sink);
    }

    fn sync_element(&mut self, e: u32, now: Time) {
        let deadline = self.elements[e as usize].deadline();
        if let Some((t, gen)) = self.element_timers[e as usize].sync(deadline, now) {
            let event = Event::ImpairRelease { element: e, gen };
            self.events.schedule(t, event);
        }
    }

    fn fire_element(&mut self, e: u32, gen: u32, now: Time, sink: &mut Sink) {
        let deadline = self.elements[e as usize].deadline();
        match self.element_timers[e as usize].on_fire(gen, now, deadline) {
            Fire::Ignore => return,
            Fire::Requeue(t) => {
                let gen = self.element_timers[e as usize].generation();
                let event = Event::ImpairRelease { element: e, gen };
                self.events.schedule(t, event);
                return;
            }
            Fire::Expire => {}
        }
        let el = &mut self.elements[e as usize];
        let (li, position, next) = (el.link, el.position, el.chain_index + 1);
        let mut batch = std::mem::take(&mut self.released);
        el.on_deadline(now, &mut self.links[li as usize], &mut batch);
        for mut pkt in batch.drain(..) {
            match position {
                Position::Ingress => self.enter_link(&pkt, li, next, now, sink),
                Position::Egress => self.leave_link(&mut pkt, li, next, now, sink),
            }
        }
        self.released = batch;
        self.sync_element(e, now);
    }
}

/// Seconds to the model's nanoseconds (re-exported for the emulator).
pub fn to_time(s: f64) -> Time {
    secs(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::{ms, tx_time};
    use crate::net::packet::PacketKind;

    fn scenario(extra: &str) -> Scenario {
        let text = format!(
            r#"{{"duration": 10, "topology": {{"kind": "chain", "bottleneck_rate": 8e6,
                "bottleneck_delay": 0.02}}, "impairments": [{extra}],
                "flows": [{{"src": "S1", "dst": "D"}}]}}"#
        );
        let sc = Scenario::from_json(&text).unwrap();
        sc.validate().unwrap();
        sc
    }

    fn data(seq: u32, dst: u32) -> Packet {
        Packet::data(0, dst, 1000, seq, 0, 0)
    }

    /// Drive the network to the end, returning (seq, delivery time).
    fn drain(net: &mut Network, sink: &mut Sink) -> Vec<(u32, Time)> {
        net.run_until(Time::MAX, sink);
        sink.delivered.iter().map(|(p, t)| (p.seq, *t)).collect()
    }

    #[test]
    fn an_idle_chain_delivers_after_propagation_and_serialisation() {
        let mut net = Network::new(&scenario(""), 1);
        let (s1, d) = (net.node_index["S1"], net.node_index["D"]);
        let mut sink = Sink::default();
        net.inject(data(0, d), s1, ms(5), &mut sink);
        let got = drain(&mut net, &mut sink);
        // 2 access hops of 10 Mb/s, 1 ms and the 8 Mb/s, 20 ms bottleneck.
        let want = ms(5) + 2 * (ms(1) + tx_time(1000, 10e6)) + ms(20) + tx_time(1000, 8e6);
        assert_eq!(got, vec![(0, want)]);
        assert_eq!(net.unloaded_latency(s1, d, 1000), want - ms(5));
    }

    #[test]
    fn a_burst_leaves_the_bottleneck_at_its_rate() {
        let mut net = Network::new(&scenario(""), 1);
        let (s1, d) = (net.node_index["S1"], net.node_index["D"]);
        let mut sink = Sink::default();
        for s in 0..20 {
            net.inject(data(s, d), s1, 0, &mut sink);
        }
        let got = drain(&mut net, &mut sink);
        let gaps: Vec<Time> = got.windows(2).map(|w| w[1].1 - w[0].1).collect();
        // Back to back on the bottleneck: 1 ms apart (8 Mb/s, 1000 bytes).
        assert!(gaps[2..].iter().all(|&g| g == ms(1)), "{gaps:?}");
    }

    #[test]
    fn delayed_packets_arrive_after_later_ones_and_acks_pass() {
        let delay = r#"{"link": "R1->R2", "kind": "delay", "fraction": 0.5,
            "delay": {"dist": "constant", "value": 0.05}}"#;
        let mut net = Network::new(&scenario(delay), 3);
        let (s1, d) = (net.node_index["S1"], net.node_index["D"]);
        let mut sink = Sink::default();
        for s in 0..40 {
            net.run_until(ms(2 * s as u64), &mut sink);
            net.inject(data(s, d), s1, ms(2 * s as u64), &mut sink);
        }
        let got = drain(&mut net, &mut sink);
        assert_eq!(got.len(), 40);
        assert!(got.windows(2).any(|w| w[1].0 < w[0].0), "some reordering");
        assert!(got.windows(2).all(|w| w[1].1 >= w[0].1), "in time order");
        let held = net.elements[0].stats.held;
        assert!((10..=30).contains(&held), "held {held}");
        let mut ack_sink = Sink::default();
        let ack = Packet::control(PacketKind::Ack, 0, s1, 40, 0);
        net.inject(ack, d, ms(200), &mut ack_sink);
        assert_eq!(drain(&mut net, &mut ack_sink).len(), 1);
    }

    /// The same packets at the same times give the same result as the
    /// simulator's elements would: same streams, so a second network built
    /// with the same seed makes the same decisions.
    #[test]
    fn the_same_seed_makes_the_same_decisions() {
        let loss = r#"{"link": "R1->R2", "kind": "loss", "p": 0.3}"#;
        let run = |seed| {
            let mut net = Network::new(&scenario(loss), seed);
            let (s1, d) = (net.node_index["S1"], net.node_index["D"]);
            let mut sink = Sink::default();
            for s in 0..200 {
                net.inject(data(s, d), s1, ms(s as u64), &mut sink);
            }
            net.run_until(Time::MAX, &mut sink);
            sink.dropped.iter().map(|p| p.seq).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let n = run(7).len();
        assert!((35..=85).contains(&n), "dropped {n} of 200 at p = 0.3");
    }
}
