//! The network a packet walks through: the scenario's nodes, its links
//! (rate, propagation delay, queue), the impairment elements on them,
//! the routing table and the multipath splitters. Built once per run, the
//! same way for the simulator and the emulator, so that each element, link
//! and splitter draws from the random stream it draws from in the other;
//! [`super::walk`] moves packets through it.

use std::collections::HashMap;

use crate::engine::time::secs;
use crate::engine::{Time, TimerSlot};
use crate::impair::Element;
use crate::net::changes::LinkChange;
use crate::net::fattree::{Fabric, Shape};
use crate::net::link::Link;
use crate::net::multipath::{epsilon_probabilities, normalise, Multipath};
use crate::net::packet::Packet;
use crate::net::routing::{Routes, RoutingTable};
use crate::net::topology::build_topology;
use crate::spec::{Position, Scenario, Topology};

#[derive(Debug)]
pub struct NetGraph {
    pub node_names: Vec<String>,
    pub node_index: HashMap<String, u32>,
    pub links: Vec<Link>,
    pub routing: Routes,
    pub elements: Vec<Element>,
    /// One timer per element (its next release).
    pub element_timers: Vec<TimerSlot>,
    pub multipath: Multipath,
    /// Scratch buffer for packets released by an element.
    pub released: Vec<Packet>,
    /// A fabric's cable changes, in scenario order (`topology.events`).
    pub changes: Vec<LinkChange>,
    /// Per link: where its FIFO's head packet is stored and the next
    /// packet's arrival time, as last seen (prefetch hints only, never
    /// dereferenced: [`NetGraph::prefetch_link`]).
    pub head_hints: Vec<[usize; 2]>,
}

impl NetGraph {
    /// The scenario's network; the scenario must be valid. Element `i`
    /// draws from stream `i`, links and splitters from theirs.
    pub fn new(scenario: &Scenario, seed: u64) -> NetGraph {
        let topo = build_topology(&scenario.topology, seed);
        let nodes = topo.node_names.len();
        let routing = routes(scenario, nodes, &topo.links, &topo.link_index, seed);
        let mut links = topo.links;
        let changes = fabric_ports(scenario, &topo.link_index, &mut links);
        let elements = attach_impairments(scenario, &topo.link_index, &mut links, seed);
        let multipath = build_multipath(scenario, &topo.link_index, &topo.node_index, &links, seed);
        let head_hints = vec![[0, 0]; links.len()];
        NetGraph {
            node_names: topo.node_names,
            node_index: topo.node_index,
            links,
            routing,
            element_timers: vec![TimerSlot::default(); elements.len()],
            elements,
            multipath,
            released: Vec::with_capacity(64),
            changes,
            head_hints,
        }
    }

    /// Start loading what delivering link `li`'s head will read: the link,
    /// its head packet and the next one's arrival time. Called when that delivery is the next event, a
    /// whole event ahead: at fabric scale the links and the packets in
    /// flight are far larger than the caches, and these loads were most of
    /// an event's time. A hint: no effect on results.
    #[inline(always)]
    pub fn prefetch_link(&self, li: u32) {
        use crate::net::fifo::prefetch_addr;
        let link = self.links.as_ptr().wrapping_add(li as usize) as usize;
        for line in 0..std::mem::size_of::<Link>().div_ceil(64) {
            prefetch_addr(link + 64 * line);
        }
        if let Some(&[packet, time]) = self.head_hints.get(li as usize) {
            prefetch_addr(packet);
            prefetch_addr(time);
        }
    }

    /// Record where link `li`'s head packet is now (see `head_hints`).
    #[inline(always)]
    pub fn note_head(&mut self, li: u32) {
        let at = self.links[li as usize].head_addrs();
        if let Some(h) = self.head_hints.get_mut(li as usize) {
            *h = at;
        }
    }

    /// Apply `topology.events[i]` (its time has come).
    pub fn apply_change(&mut self, i: u32) {
        if let Routes::Fabric(f) = &mut self.routing {
            self.changes[i as usize].apply(f, &mut self.links);
        }
    }

    /// The link a packet at `node` takes at `now`: its multipath route's
    /// next hop (a route chosen where a splitter sits, kept until it ends),
    /// else the routing's (an adaptive fabric reads the links' queues).
    #[inline]
    pub fn next_link(&mut self, pkt: &mut Packet, node: u32, now: Time) -> Option<u32> {
        let links = &self.links;
        let queued = |l: u32| links[l as usize].queued_bytes(now);
        if self.multipath.is_empty() {
            return self.routing.choose(node, pkt, now, queued);
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
        self.routing.choose(node, pkt, now, queued)
    }
}

/// A fat-tree's own routing, else shortest paths over the links.
pub fn routes(
    scenario: &Scenario,
    nodes: usize,
    links: &[Link],
    link_index: &HashMap<String, u32>,
    seed: u64,
) -> Routes {
    match &scenario.topology {
        Topology::FatTree {
            k,
            tiers,
            load_balancing,
            failed_links,
            flowlet_gap,
            ..
        } => {
            let failed: Vec<u32> = failed_links.iter().map(|n| link_index[n]).collect();
            let shape = Shape::new(*k, *tiers);
            let gap = secs(flowlet_gap.unwrap_or(DEFAULT_FLOWLET_GAP));
            let f = Fabric::new(shape, *load_balancing, &failed, seed, gap);
            Routes::Fabric(Box::new(f))
        }
        _ => {
            let pairs: Vec<(u32, u32)> = links.iter().map(|l| (l.from, l.to)).collect();
            Routes::Table(RoutingTable::shortest_paths(nodes, &pairs))
        }
    }
}

/// The flowlet gap when `topology.flowlet_gap` is not given: 100 us, a
/// few round trips of a fabric at 1 us per hop (our choice; LetFlow's
/// gap is a parameter of the fabric).
pub const DEFAULT_FLOWLET_GAP: f64 = 100e-6;

/// A fat-tree's switch ports get its ECN threshold and trimming; its
/// cable changes are resolved to links (none for other topologies).
fn fabric_ports(
    scenario: &Scenario,
    link_index: &HashMap<String, u32>,
    links: &mut [Link],
) -> Vec<LinkChange> {
    let Topology::FatTree {
        k,
        tiers,
        ecn_threshold_bytes,
        trimming,
        events,
        ..
    } = &scenario.topology
    else {
        return Vec::new();
    };
    let shape = Shape::new(*k, *tiers);
    for l in links.iter_mut().filter(|l| l.from >= shape.hosts) {
        l.ecn_threshold = ecn_threshold_bytes.unwrap_or(u64::MAX);
        if *trimming {
            l.headers = Some(Box::default());
        }
    }
    let index = |name: &str| link_index[name];
    (events.iter())
        .map(|e| LinkChange::resolve(e, index, shape.cables(), links))
        .collect()
}

/// The scenario's impairment elements, each appended to its link's ingress
/// or egress chain, in scenario order (element `i` draws from stream `i`).
fn attach_impairments(
    scenario: &Scenario,
    link_index: &HashMap<String, u32>,
    links: &mut [Link],
    seed: u64,
) -> Vec<Element> {
    let mut elements = Vec::new();
    for (i, imp) in scenario.impairments.iter().enumerate() {
        let li = link_index[&imp.link];
        let link = &mut links[li as usize];
        let position = imp.position();
        let chain = match position {
            Position::Ingress => &mut link.ingress,
            Position::Egress => &mut link.egress,
        };
        let element = Element::new(li, position, chain.len(), &imp.model, seed, i as u64);
        chain.push(elements.len() as u32);
        elements.push(element);
    }
    elements
}

/// The multipath splitters: each path as (node, link) hops, with
/// probabilities from explicit weights or from epsilon (tcp-pr Sec. VII).
fn build_multipath(
    scenario: &Scenario,
    link_index: &HashMap<String, u32>,
    node_index: &HashMap<String, u32>,
    links: &[Link],
    seed: u64,
) -> Multipath {
    let mut multipath = Multipath::default();
    for mp in &scenario.multipath {
        let hop = |name: &String| {
            let l = link_index[name];
            (links[l as usize].from, l)
        };
        let paths: Vec<Vec<(u32, u32)>> = (mp.paths.iter())
            .map(|p| p.iter().map(hop).collect())
            .collect();
        let probs = match (&mp.weights, mp.epsilon) {
            (Some(w), _) => normalise(w),
            (None, e) => {
                let hops: Vec<usize> = mp.paths.iter().map(Vec::len).collect();
                epsilon_probabilities(&hops, e.unwrap_or(0.0), mp.scale)
            }
        };
        let (at, dst) = (node_index[&mp.at], node_index[&mp.dst]);
        multipath.add(at, dst, paths, &probs, mp.data_only, seed);
    }
    multipath
}
