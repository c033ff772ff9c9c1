//! The path each flow's packets take, as the simulator will route them:
//! the links from sender to receiver and back (rate, propagation delay,
//! queue limits), and the sender's resolved segment size and window. For
//! the Python front's warnings about valid scenarios that probably do not
//! mean what they say (`python/reorderlab/lint.py`: a bottleneck that is
//! not the narrowest link, a queue far from the path's BDP, ...). Nothing
//! is simulated; the routes are those of [`super::graph::routes`] (a
//! fabric's first usable uplink, as [`crate::net::routing::Routes::next_link`]).

use std::collections::HashMap;

use serde::Serialize;

use crate::engine::time::to_secs;
use crate::net::topology::{build_topology, expand};
use crate::spec::{QueueSpec, Scenario, SpecError};
use crate::tcp::variants::resolve;

use super::graph::routes;

/// One link of a path.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hop {
    /// `from->to`, as impairments and results name it.
    pub link: String,
    /// Transmission rate, bit/s.
    pub rate: f64,
    /// One-way propagation delay, seconds.
    pub delay: f64,
    /// The queue's packet limit, if it has one.
    pub limit_packets: Option<u32>,
    /// The queue's byte limit, if it has one.
    pub limit_bytes: Option<u64>,
}

/// One flow of the scenario's `flows`, as it will run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowPath {
    /// Index in `flows`.
    pub flow: usize,
    /// Data packet size, bytes (the variant's, or `tcp.mss`).
    pub mss: u32,
    /// Pure ACK size, bytes.
    pub ack_size: u32,
    /// Maximum window, segments (the variant's, or `tcp.max_window`).
    pub max_window: u32,
    /// Sender to receiver.
    pub forward: Vec<Hop>,
    /// Receiver to sender.
    pub reverse: Vec<Hop>,
}

/// Size of an ACK when `tcp.ack_size` is not set (`sim/build.rs`).
const DEFAULT_ACK_SIZE: u32 = 40;

/// The path of every flow of a valid scenario.
pub fn flow_paths(s: &Scenario) -> Vec<FlowPath> {
    let (_, specs) = expand(&s.topology);
    let mut queues: HashMap<String, QueueSpec> = HashMap::new();
    for l in &specs {
        queues.insert(format!("{}->{}", l.from, l.to), l.queue.clone());
        if l.duplex {
            queues.insert(format!("{}->{}", l.to, l.from), l.queue.clone());
        }
    }
    let topo = build_topology(&s.topology, s.seed);
    let table = routes(
        s,
        topo.node_names.len(),
        &topo.links,
        &topo.link_index,
        s.seed,
    );
    let walk = |from: &str, to: &str| -> Vec<Hop> {
        let (Some(&a), Some(&b)) = (topo.node_index.get(from), topo.node_index.get(to)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut node = a;
        while node != b && out.len() <= topo.links.len() {
            let Some(li) = table.next_link(node, b) else {
                break;
            };
            let link = &topo.links[li as usize];
            let (limit_packets, limit_bytes) = match queues.get(&link.name) {
                Some(QueueSpec::Droptail {
                    limit_packets,
                    limit_bytes,
                }) => (*limit_packets, *limit_bytes),
                Some(QueueSpec::Red { limit_packets, .. }) => (Some(*limit_packets), None),
                None => (None, None),
            };
            out.push(Hop {
                link: link.name.clone(),
                rate: link.rate,
                delay: to_secs(link.delay),
                limit_packets,
                limit_bytes,
            });
            node = link.to;
        }
        out
    };
    let mut out = Vec::new();
    for (i, f) in s.flows.iter().enumerate() {
        let Some(cfg) = resolve(&f.variant, &f.tcp, f.segments) else {
            continue;
        };
        out.push(FlowPath {
            flow: i,
            mss: cfg.mss,
            ack_size: f.tcp.ack_size.unwrap_or(DEFAULT_ACK_SIZE),
            max_window: cfg.max_window,
            forward: walk(&f.src, &f.dst),
            reverse: walk(&f.dst, &f.src),
        });
    }
    out
}

/// [`flow_paths`] of a scenario given as JSON, as JSON (validated first).
pub fn flow_paths_json(scenario_json: &str) -> Result<String, SpecError> {
    let s = Scenario::from_json(scenario_json)?;
    s.validate()?;
    serde_json::to_string(&flow_paths(&s)).map_err(|e| SpecError::new("paths", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(extra: &str) -> Scenario {
        let json = format!(
            r#"{{"duration": 10, "topology": {{"kind": "chain", "bottleneck_rate": 1e8,
            "bottleneck_delay": 0.03{extra}}}, "flows": [{{"src": "S1", "dst": "D"}}]}}"#
        );
        Scenario::from_json(&json).expect("a valid scenario")
    }

    #[test]
    fn a_chain_flow_crosses_access_bottleneck_access_and_back() {
        let p = &flow_paths(&chain(""))[0];
        let names: Vec<&str> = p.forward.iter().map(|h| h.link.as_str()).collect();
        assert_eq!(names, ["S1->R1", "R1->R2", "R2->D"]);
        let back: Vec<&str> = p.reverse.iter().map(|h| h.link.as_str()).collect();
        assert_eq!(back, ["D->R2", "R2->R1", "R1->S1"]);
        assert_eq!(p.forward[1].rate, 1e8);
        assert!((p.forward[1].delay - 0.03).abs() < 1e-12);
        assert_eq!(p.forward[1].limit_packets, Some(100));
        assert_eq!(p.forward[0].limit_packets, Some(1000));
        assert_eq!((p.mss, p.max_window, p.ack_size), (1000, 10_000, 40));
    }

    #[test]
    fn the_flow_s_own_sizes_and_queue_are_used() {
        let json = r#"{"duration": 10, "topology": {"kind": "chain", "bottleneck_rate": 1e8,
            "bottleneck_delay": 0.03, "queue": {"kind": "droptail", "limit_bytes": 30000}},
            "flows": [{"src": "S1", "dst": "D", "tcp": {"mss": 1500, "max_window": 20}}]}"#;
        let p = &flow_paths(&Scenario::from_json(json).unwrap())[0];
        assert_eq!((p.mss, p.max_window), (1500, 20));
        assert_eq!(p.forward[1].limit_bytes, Some(30000));
        assert_eq!(p.forward[1].limit_packets, None);
    }
}
