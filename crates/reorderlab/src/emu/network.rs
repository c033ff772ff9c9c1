//! The scenario's network for real packets: the simulator's own network
//! ([`NetGraph`]: links with their rate, propagation delay and queue
//! discipline, impairment elements, routing table and multipath splitters),
//! built with the same random streams, driven by the caller's clock instead
//! of the simulator's event loop.
//!
//! Every model call takes the time explicitly, so nothing here knows which
//! clock it runs on. An event (a link's head arriving at the far node, an
//! element's release) is handled at its own scheduled time even when the
//! caller comes late: the model's behaviour does not depend on the host's
//! scheduling, only the moment a packet is written out does (that lateness
//! is the timing error the emulator reports).
//!
//! The packet walk (ingress elements, queue, link, egress elements, next
//! node) is the simulator's own ([`Walk`]); here a packet at its
//! destination node leaves the network for the caller's [`Sink`]. Flows,
//! timers and traffic live in the real hosts, not here.

use crate::engine::time::secs;
use crate::engine::{Event, EventQueue, Time};
use crate::net::packet::Packet;
use crate::sim::graph::NetGraph;
use crate::sim::walk::Walk;
use crate::spec::Scenario;

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
    /// Nodes, links, impairment elements, routing, multipath.
    pub graph: NetGraph,
    events: EventQueue,
    /// Link arrivals handled since the caller last took them.
    pub departures: Vec<Departure>,
    /// The caller's sink while a call runs ([`Network::inject`],
    /// [`Network::run_until`]).
    sink: Sink,
}

impl Walk for Network {
    #[inline(always)]
    fn parts(&mut self) -> (&mut NetGraph, &mut EventQueue) {
        (&mut self.graph, &mut self.events)
    }

    fn arrive(&mut self, pkt: &mut Packet, node: u32, now: Time) {
        if node == pkt.dst {
            self.sink.delivered.push((*pkt, now));
        } else {
            self.forward(pkt, node, now);
        }
    }

    fn on_drop(&mut self, pkt: &Packet) {
        self.sink.dropped.push(*pkt);
    }

    fn departed(&mut self, li: u32, pkt: &Packet, now: Time) {
        self.departures.push((li, pkt.size, now));
    }
}

impl Network {
    /// Build the scenario's network; the scenario must be valid. The same
    /// component indices as the simulator, so each element, link and
    /// splitter draws from the stream it draws from in a simulation.
    pub fn new(scenario: &Scenario, seed: u64) -> Network {
        let graph = NetGraph::new(scenario, seed);
        let mut net = Network {
            events: EventQueue::with_links(graph.links.len()),
            graph,
            departures: Vec::with_capacity(256),
            sink: Sink::default(),
        };
        for e in 0..net.graph.elements.len() as u32 {
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
            let Some(li) = self.graph.routing.next_link(node, to) else {
                break;
            };
            let l = &self.graph.links[li as usize];
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
        std::mem::swap(&mut self.sink, sink);
        self.arrive(&mut pkt, node, now);
        std::mem::swap(&mut self.sink, sink);
    }

    /// Handle every event due at or before `until`, each at its own time.
    pub fn run_until(&mut self, until: Time, sink: &mut Sink) {
        std::mem::swap(&mut self.sink, sink);
        while let Some((t, event)) = self.events.peek() {
            if t > until {
                break;
            }
            match event {
                Event::LinkDeliver { link } => self.deliver_link_head(link, t),
                Event::ImpairRelease { element, gen } => {
                    self.events.pop();
                    self.fire_element(element, gen, t);
                }
                Event::HeaderDeliver { link } => {
                    self.events.pop();
                    self.deliver_header(link, t);
                }
                _ => {
                    self.events.pop();
                }
            }
        }
        std::mem::swap(&mut self.sink, sink);
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
        let (s1, d) = (net.graph.node_index["S1"], net.graph.node_index["D"]);
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
        let (s1, d) = (net.graph.node_index["S1"], net.graph.node_index["D"]);
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
        let (s1, d) = (net.graph.node_index["S1"], net.graph.node_index["D"]);
        let mut sink = Sink::default();
        for s in 0..40 {
            net.run_until(ms(2 * s as u64), &mut sink);
            net.inject(data(s, d), s1, ms(2 * s as u64), &mut sink);
        }
        let got = drain(&mut net, &mut sink);
        assert_eq!(got.len(), 40);
        assert!(got.windows(2).any(|w| w[1].0 < w[0].0), "some reordering");
        assert!(got.windows(2).all(|w| w[1].1 >= w[0].1), "in time order");
        let held = net.graph.elements[0].stats.held;
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
            let (s1, d) = (net.graph.node_index["S1"], net.graph.node_index["D"]);
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
