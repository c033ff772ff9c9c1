//! Topology builders: the rr-tcp chain, the dumbbell, the parking lot of
//! the tcp-pr paper, and explicit custom graphs. Each turns a [`Topology`] spec into
//! named nodes and unidirectional links.

use std::collections::HashMap;

use crate::engine::rng::Component;
use crate::engine::time::{secs, tx_time};
use crate::engine::Rng;
use crate::net::fattree::Shape;
use crate::net::link::Link;
use crate::net::queue::{QueueDisc, Red};
use crate::spec::{LinkSpec, QueueSpec, Topology};

/// The nodes and links of a built topology.
#[derive(Debug)]
pub struct BuiltTopology {
    pub node_names: Vec<String>,
    pub node_index: HashMap<String, u32>,
    pub links: Vec<Link>,
    pub link_index: HashMap<String, u32>,
}

/// Default queue of access links when the spec gives none.
fn default_access_queue() -> QueueSpec {
    QueueSpec::Droptail {
        limit_packets: Some(1000),
        limit_bytes: None,
    }
}

/// Make a queue discipline from its spec. `rate` sets RED's typical
/// transmission time (a 1000-byte packet).
pub fn make_queue(spec: &QueueSpec, rate: f64) -> QueueDisc {
    match *spec {
        QueueSpec::Droptail {
            limit_packets,
            limit_bytes,
        } => QueueDisc::DropTail {
            limit_packets,
            limit_bytes,
        },
        QueueSpec::Red {
            limit_packets,
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            instantaneous,
        } => QueueDisc::Red(Box::new(Red::new(
            limit_packets,
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            instantaneous,
            tx_time(1000, rate),
        ))),
    }
}

fn link_spec(from: &str, to: &str, rate: f64, delay: f64, queue: &QueueSpec) -> LinkSpec {
    LinkSpec {
        from: from.to_string(),
        to: to.to_string(),
        rate,
        delay,
        queue: queue.clone(),
        duplex: true,
    }
}

/// Expand a builder into explicit nodes and duplex links.
pub fn expand(topo: &Topology) -> (Vec<String>, Vec<LinkSpec>) {
    match topo {
        Topology::Chain {
            access_rate,
            access_delay,
            bottleneck_rate,
            bottleneck_delay,
            queue,
            access_queue,
        } => {
            let aq = access_queue.clone().unwrap_or_else(default_access_queue);
            let nodes = ["S1", "R1", "R2", "D"].map(String::from).to_vec();
            let links = vec![
                link_spec("S1", "R1", *access_rate, *access_delay, &aq),
                link_spec("R1", "R2", *bottleneck_rate, *bottleneck_delay, queue),
                link_spec("R2", "D", *access_rate, *access_delay, &aq),
            ];
            (nodes, links)
        }
        Topology::Dumbbell {
            pairs,
            access_rate,
            access_delays,
            access_delay,
            bottleneck_rate,
            bottleneck_delay,
            queue,
            access_queue,
        } => {
            let aq = access_queue.clone().unwrap_or_else(default_access_queue);
            let n = *pairs as usize;
            let mut nodes: Vec<String> = (0..n).map(|i| format!("S{i}")).collect();
            nodes.push("R1".into());
            nodes.push("R2".into());
            nodes.extend((0..n).map(|i| format!("D{i}")));
            let mut links = vec![link_spec(
                "R1",
                "R2",
                *bottleneck_rate,
                *bottleneck_delay,
                queue,
            )];
            for i in 0..n {
                let d = access_delays.get(i).copied().unwrap_or(*access_delay);
                links.push(link_spec(&format!("S{i}"), "R1", *access_rate, d, &aq));
                links.push(link_spec("R2", &format!("D{i}"), *access_rate, d, &aq));
            }
            (nodes, links)
        }
        Topology::ParkingLot {
            hop_rates,
            hop_delay,
            access_rate,
            cross_access_rates,
            access_delay,
            queue,
            access_queue,
        } => {
            let aq = access_queue.clone().unwrap_or_else(default_access_queue);
            let h = hop_rates.len();
            let mut nodes: Vec<String> = (0..=h).map(|i| format!("R{i}")).collect();
            nodes.push("S".into());
            nodes.push("D".into());
            let mut links = Vec::new();
            for (i, rate) in hop_rates.iter().enumerate() {
                links.push(link_spec(
                    &format!("R{i}"),
                    &format!("R{}", i + 1),
                    *rate,
                    *hop_delay,
                    queue,
                ));
            }
            links.push(link_spec("S", "R0", *access_rate, *access_delay, &aq));
            links.push(link_spec(
                &format!("R{h}"),
                "D",
                *access_rate,
                *access_delay,
                &aq,
            ));
            for i in 1..=h {
                nodes.push(format!("CS{i}"));
                nodes.push(format!("CD{i}"));
                links.push(link_spec(
                    &format!("CS{i}"),
                    &format!("R{}", i - 1),
                    cross_access_rates
                        .get(i - 1)
                        .copied()
                        .unwrap_or(*access_rate),
                    *access_delay,
                    &aq,
                ));
                links.push(link_spec(
                    &format!("R{i}"),
                    &format!("CD{i}"),
                    *access_rate,
                    *access_delay,
                    &aq,
                ));
            }
            (nodes, links)
        }
        Topology::FatTree {
            k,
            tiers,
            rate,
            oversubscription,
            hop_delay,
            buffer_bytes,
            ..
        } => {
            let shape = Shape::new(*k, *tiers);
            let nodes = (0..shape.nodes()).map(|n| shape.node_name(n)).collect();
            let port = QueueSpec::Droptail {
                limit_packets: None,
                limit_bytes: Some(*buffer_bytes),
            };
            let nic = default_access_queue();
            // link ids as in `Shape::link`: every cable up, then down
            let mut links = Vec::with_capacity(2 * shape.cables() as usize);
            for l in 0..2 * shape.cables() {
                let (a, b) = shape.link(l);
                let c = l % shape.cables();
                let at_edge = (shape.hosts..shape.hosts + shape.edges * shape.half).contains(&c);
                let r = if at_edge {
                    rate / oversubscription
                } else {
                    *rate
                };
                let q = if a < shape.hosts { &nic } else { &port };
                let mut spec =
                    link_spec(&shape.node_name(a), &shape.node_name(b), r, *hop_delay, q);
                spec.duplex = false;
                links.push(spec);
            }
            (nodes, links)
        }
        Topology::Custom { nodes, links } => (nodes.clone(), links.clone()),
    }
}

/// Build nodes and links. The spec must have been validated (names resolve).
pub fn build_topology(topo: &Topology, seed: u64) -> BuiltTopology {
    let (node_names, link_specs) = expand(topo);
    let node_index: HashMap<String, u32> = node_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), i as u32))
        .collect();
    let mut links = Vec::new();
    let add = |from: &str, to: &str, ls: &LinkSpec, links: &mut Vec<Link>| {
        let id = links.len() as u64;
        links.push(Link::new(
            format!("{from}->{to}"),
            node_index[from],
            node_index[to],
            ls.rate,
            secs(ls.delay),
            make_queue(&ls.queue, ls.rate),
            Rng::for_component(seed, Component::Link, id),
        ));
    };
    for ls in &link_specs {
        add(&ls.from, &ls.to, ls, &mut links);
    }
    for ls in link_specs.iter().filter(|l| l.duplex) {
        add(&ls.to, &ls.from, ls, &mut links);
    }
    let link_index = links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.clone(), i as u32))
        .collect();
    BuiltTopology {
        node_names,
        node_index,
        links,
        link_index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_has_the_fig3_nodes_and_six_links() {
        let t = Topology::Chain {
            access_rate: 10e6,
            access_delay: 0.001,
            bottleneck_rate: 8e6,
            bottleneck_delay: 0.023,
            queue: QueueSpec::default(),
            access_queue: None,
        };
        let b = build_topology(&t, 1);
        assert_eq!(b.node_names, vec!["S1", "R1", "R2", "D"]);
        assert_eq!(b.links.len(), 6);
        let bn = &b.links[b.link_index["R1->R2"] as usize];
        assert_eq!(bn.rate, 8e6);
        assert!(b.link_index.contains_key("D->R2"));
    }

    #[test]
    fn parking_lot_has_cross_hosts_per_hop() {
        let t = Topology::ParkingLot {
            hop_rates: vec![15e6, 15e6, 15e6],
            hop_delay: 0.002,
            access_rate: 15e6,
            cross_access_rates: vec![5e6, 1.66e6, 2.5e6],
            access_delay: 0.001,
            queue: QueueSpec::default(),
            access_queue: None,
        };
        let b = build_topology(&t, 1);
        for n in ["R0", "R3", "S", "D", "CS1", "CD3"] {
            assert!(b.node_index.contains_key(n), "{n}");
        }
        assert_eq!(b.links[b.link_index["R1->R2"] as usize].rate, 15e6);
        assert_eq!(b.links[b.link_index["CS2->R1"] as usize].rate, 1.66e6);
        assert_eq!(b.links[b.link_index["R1->CS2"] as usize].rate, 1.66e6);
        assert_eq!(b.links[b.link_index["S->R0"] as usize].rate, 15e6);
        assert!(b.link_index.contains_key("CS2->R1"));
        assert!(b.link_index.contains_key("R2->CD2"));
    }
}
