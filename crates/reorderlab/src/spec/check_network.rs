//! Checks of the network part of a scenario that join fields: queues,
//! topologies, impairments and multipath splitters (each field's own range
//! is declared on it and checked by `fields.rs`). Each names the field by
//! its path.

use std::collections::{HashMap, HashSet};

use super::check_fabric::check_fat_tree;
use super::error::{known_list, num, Check, SpecError};
use super::impairment::{ImpairmentModel, MultipathSpec, ReorderAnchor};
use super::network::{LinkSpec, QueueSpec, Topology};

/// A queue's rule that joins two fields (each field's own range is
/// declared on it).
pub(super) fn check_queue(path: &str, q: &QueueSpec) -> Check {
    match *q {
        QueueSpec::Droptail { .. } => Ok(()),
        QueueSpec::Red { min_th, max_th, .. } => {
            if !(max_th.is_finite() && max_th > min_th) {
                return Err(SpecError::new(
                    format!("{path}.max_th"),
                    format!("must be > min_th ({}), got {}", num(min_th), num(max_th)),
                ));
            }
            Ok(())
        }
    }
}

fn check_queues(queue: &QueueSpec, access: Option<&QueueSpec>) -> Check {
    check_queue("topology.queue", queue)?;
    if let Some(q) = access {
        check_queue("topology.access_queue", q)?;
    }
    Ok(())
}

pub(super) fn check_topology(t: &Topology) -> Check {
    match t {
        Topology::Chain {
            queue,
            access_queue,
            ..
        } => check_queues(queue, access_queue.as_ref()),
        Topology::Dumbbell {
            pairs,
            access_delays,
            queue,
            access_queue,
            ..
        } => {
            if !access_delays.is_empty() && access_delays.len() != *pairs as usize {
                return Err(SpecError::new(
                    "topology.access_delays",
                    format!(
                        "must have one delay per pair ({pairs}), got {}",
                        access_delays.len()
                    ),
                ));
            }
            check_queues(queue, access_queue.as_ref())
        }
        Topology::ParkingLot {
            hop_rates,
            cross_access_rates,
            queue,
            access_queue,
            ..
        } => {
            if hop_rates.is_empty() {
                return Err(SpecError::new(
                    "topology.hop_rates",
                    "must list at least one hop rate, got []",
                ));
            }
            if !cross_access_rates.is_empty() && cross_access_rates.len() != hop_rates.len() {
                return Err(SpecError::new(
                    "topology.cross_access_rates",
                    format!(
                        "must list one rate per hop ({}) or none, got {}",
                        hop_rates.len(),
                        cross_access_rates.len()
                    ),
                ));
            }
            check_queues(queue, access_queue.as_ref())
        }
        Topology::FatTree {
            k,
            tiers,
            failed_links,
            ..
        } => check_fat_tree(*k, *tiers, failed_links),
        Topology::Custom { nodes, links } => check_custom(nodes, links),
    }
}

fn check_custom(nodes: &[String], links: &[LinkSpec]) -> Check {
    if nodes.is_empty() {
        return Err(SpecError::new(
            "topology.nodes",
            "must not be empty, got []",
        ));
    }
    let mut seen = HashSet::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.is_empty() || !seen.insert(n.as_str()) {
            return Err(SpecError::new(
                format!("topology.nodes[{i}]"),
                format!("node names must be unique and non-empty, got '{n}'"),
            ));
        }
    }
    let mut names = HashSet::new();
    for (i, l) in links.iter().enumerate() {
        let p = format!("topology.links[{i}]");
        for (field, node) in [("from", &l.from), ("to", &l.to)] {
            if !seen.contains(node.as_str()) {
                return Err(SpecError::new(
                    format!("{p}.{field}"),
                    format!("unknown node '{node}' (known: {})", known_list(nodes)),
                ));
            }
        }
        if l.from == l.to {
            return Err(SpecError::new(
                format!("{p}.to"),
                format!("a link must join two different nodes, got '{}' twice", l.to),
            ));
        }
        check_queue(&format!("{p}.queue"), &l.queue)?;
        let mut dirs = vec![format!("{}->{}", l.from, l.to)];
        if l.duplex {
            dirs.push(format!("{}->{}", l.to, l.from));
        }
        for d in dirs {
            if !names.insert(d.clone()) {
                return Err(SpecError::new(p.clone(), format!("duplicate link '{d}'")));
            }
        }
    }
    Ok(())
}

/// The most random draws an ARQ frame may need on average (each attempt
/// is one draw, all at the arrival of the frame).
const MAX_MEAN_ATTEMPTS: f64 = 1e6;

/// An impairment's rules beyond each field's own range: random times,
/// the flow a positioned loss names, the reorder generator's delay.
pub(super) fn check_impairment(p: &str, model: &ImpairmentModel, flows: usize) -> Check {
    match model {
        ImpairmentModel::Loss { .. } | ImpairmentModel::GilbertElliott { .. } => Ok(()),
        ImpairmentModel::Swap { .. } | ImpairmentModel::Netem { .. } => Ok(()),
        ImpairmentModel::Delay { delay, .. } => delay.validate_time(&format!("{p}.delay")),
        ImpairmentModel::BurstLoss { duration, .. } => {
            duration.validate_time(&format!("{p}.duration"))
        }
        ImpairmentModel::Positioned { flow, segments, .. } => {
            if *flow as usize >= flows {
                return Err(SpecError::new(
                    format!("{p}.flow"),
                    format!("no flow with index {flow} ({flows} flows)"),
                ));
            }
            if segments.is_empty() {
                return Err(SpecError::new(
                    format!("{p}.segments"),
                    "must list at least one segment, got []",
                ));
            }
            Ok(())
        }
        ImpairmentModel::Reorder {
            interval,
            delay,
            delay_packets,
            block,
            anchor,
            ..
        } => {
            interval.validate_time(&format!("{p}.interval"))?;
            match (delay, delay_packets) {
                (Some(d), None) => d.validate_time(&format!("{p}.delay"))?,
                (None, Some(_)) if *anchor == Some(ReorderAnchor::BlockArrival) => {
                    return Err(SpecError::new(
                        format!("{p}.anchor"),
                        "\"block-arrival\" needs delay (s): delay_packets counts later packets",
                    ))
                }
                (None, Some(d)) => d.validate(&format!("{p}.delay_packets"))?,
                _ => {
                    return Err(SpecError::new(
                        format!("{p}.delay"),
                        "give exactly one of delay (s) and delay_packets",
                    ))
                }
            }
            block.validate(&format!("{p}.block"))
        }
        ImpairmentModel::Arq {
            frame_error,
            max_attempts,
            ..
        } => check_arq_attempts(p, *frame_error, *max_attempts),
    }
}

/// A frame is retried until it gets through: with `frame_error` near 1 and
/// no `max_attempts` that is about 1 / (1 - p) draws per frame.
fn check_arq_attempts(p: &str, frame_error: f64, max_attempts: Option<u32>) -> Check {
    let geometric = 1.0 / (1.0 - frame_error);
    let mean = max_attempts.map_or(geometric, |m| geometric.min(m as f64));
    if mean > MAX_MEAN_ATTEMPTS {
        return Err(SpecError::new(
            format!("{p}.frame_error"),
            format!(
                "must leave at most 1e6 attempts per frame on average (1 / (1 - p), or set \
                 max_attempts), got {}",
                num(frame_error)
            ),
        ));
    }
    Ok(())
}

/// Direction name -> (from, to) of every link of the expanded topology.
pub(super) fn link_ends(links: &[LinkSpec]) -> HashMap<String, (&str, &str)> {
    let mut out = HashMap::with_capacity(links.len() * 2);
    for l in links {
        out.insert(
            format!("{}->{}", l.from, l.to),
            (l.from.as_str(), l.to.as_str()),
        );
        if l.duplex {
            out.insert(
                format!("{}->{}", l.to, l.from),
                (l.to.as_str(), l.from.as_str()),
            );
        }
    }
    out
}

/// A multipath splitter: paths are chains of known links from `at` to `dst`.
pub(super) fn check_multipath(
    i: usize,
    mp: &MultipathSpec,
    nodes: &HashMap<&str, u32>,
    ends: &HashMap<String, (&str, &str)>,
) -> Check {
    let p = format!("multipath[{i}]");
    for (field, node) in [("at", &mp.at), ("dst", &mp.dst)] {
        if !nodes.contains_key(node.as_str()) {
            return Err(SpecError::new(
                format!("{p}.{field}"),
                format!("unknown node '{node}'"),
            ));
        }
    }
    if mp.paths.is_empty() {
        return Err(SpecError::new(
            format!("{p}.paths"),
            "must list at least one path, got []",
        ));
    }
    for (k, path) in mp.paths.iter().enumerate() {
        check_path(&format!("{p}.paths[{k}]"), path, mp, ends)?;
    }
    if let Some(w) = &mp.weights {
        if w.len() != mp.paths.len() {
            return Err(SpecError::new(
                format!("{p}.weights"),
                format!(
                    "must have one weight per path ({}), got {}",
                    mp.paths.len(),
                    w.len()
                ),
            ));
        }
        let sum: f64 = w.iter().sum();
        if w.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || !(sum > 0.0 && sum.is_finite()) {
            let shown: Vec<String> = w.iter().map(|x| num(*x)).collect();
            return Err(SpecError::new(
                format!("{p}.weights"),
                format!(
                    "must be >= 0 with a positive sum, got [{}]",
                    shown.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn check_path(
    pp: &str,
    path: &[String],
    mp: &MultipathSpec,
    ends: &HashMap<String, (&str, &str)>,
) -> Check {
    if path.is_empty() {
        return Err(SpecError::new(pp, "must list at least one link, got []"));
    }
    let mut at = mp.at.as_str();
    for (j, name) in path.iter().enumerate() {
        let Some(&(from, to)) = ends.get(name) else {
            return Err(SpecError::new(
                format!("{pp}[{j}]"),
                format!("unknown link '{name}'"),
            ));
        };
        if from != at {
            return Err(SpecError::new(
                format!("{pp}[{j}]"),
                format!("link '{name}' does not start at '{at}'"),
            ));
        }
        at = to;
    }
    if at != mp.dst {
        return Err(SpecError::new(
            pp,
            format!("ends at '{at}', not at dst '{}'", mp.dst),
        ));
    }
    Ok(())
}
