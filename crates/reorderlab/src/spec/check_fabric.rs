//! The rules that join a fat-tree's fields (`docs/fabrics.md`): an even
//! k, failed links that are links of the fabric, and endpoints that are
//! hosts still reachable. They build the fabric's shape (`net/fattree.rs`),
//! so they sit above the declarations, with the other checks.

use super::error::{known_list, num, Check, SpecError};
use super::fabric::{LinkAction, LinkEvent, LoadBalancing};
use super::network::Topology;
use crate::net::fattree::{Fabric, Shape};

/// `topology` of kind `fat_tree`: k even, each failed link a link of the
/// fabric.
pub(super) fn check_fat_tree(k: u32, tiers: u8, failed: &[String]) -> Check {
    if !k.is_multiple_of(2) {
        return Err(SpecError::new(
            "topology.k",
            format!("must be even (k/2 ports down, k/2 up), got {k}"),
        ));
    }
    let shape = Shape::new(k, tiers);
    let names = shape.link_names();
    for (i, name) in failed.iter().enumerate() {
        if !names.contains(name) {
            return Err(SpecError::new(
                format!("topology.failed_links[{i}]"),
                format!("unknown link '{name}' (known: {})", known_list(&names)),
            ));
        }
    }
    Ok(())
}

/// On a fat-tree, every flow's and traffic generator's endpoints
/// (`(path, [(field, node); 2])`) are hosts with a path each way over the
/// links that are up.
pub(super) fn check_fabric_routes(t: &Topology, ends: &[(&str, [(&str, u32); 2])]) -> Check {
    let Topology::FatTree {
        k,
        tiers,
        failed_links,
        ..
    } = t
    else {
        return Ok(());
    };
    let shape = Shape::new(*k, *tiers);
    let names = shape.link_names();
    let failed: Vec<u32> = (failed_links.iter())
        .filter_map(|f| names.iter().position(|n| n == f).map(|i| i as u32))
        .collect();
    let fabric = Fabric::new(shape, LoadBalancing::Ecmp, &failed, 0, 0);
    for (path, [(fa, a), (fb, b)]) in ends {
        for (field, node) in [(fa, a), (fb, b)] {
            if *node >= shape.hosts {
                return Err(SpecError::new(
                    format!("{path}.{field}"),
                    format!(
                        "must be a host of the fat-tree (h0..h{}), got '{}'",
                        shape.hosts - 1,
                        shape.node_name(*node)
                    ),
                ));
            }
        }
        if !(fabric.connects(*a, *b) && fabric.connects(*b, *a)) {
            return Err(SpecError::new(
                path.to_string(),
                format!(
                    "no route between '{}' and '{}' in both directions (topology.failed_links)",
                    shape.node_name(*a),
                    shape.node_name(*b)
                ),
            ));
        }
    }
    Ok(())
}

/// A fat-tree's options that join fields: the ECN threshold below the
/// buffer, the flowlet gap only with flowlets, and each event on a cable
/// of the fabric within the run, with a factor exactly when it sets a rate.
pub(super) fn check_fabric_options(t: &Topology, duration: f64) -> Check {
    let Topology::FatTree {
        k,
        tiers,
        buffer_bytes,
        load_balancing,
        ecn_threshold_bytes,
        flowlet_gap,
        events,
        ..
    } = t
    else {
        return Ok(());
    };
    if let Some(kb) = ecn_threshold_bytes.filter(|kb| kb >= buffer_bytes) {
        return Err(SpecError::new(
            "topology.ecn_threshold_bytes",
            format!("must be below topology.buffer_bytes ({buffer_bytes}), got {kb}"),
        ));
    }
    if flowlet_gap.is_some() && *load_balancing != LoadBalancing::Flowlet {
        return Err(SpecError::new(
            "topology.flowlet_gap",
            "is only used by load_balancing = \"flowlet\"",
        ));
    }
    if events.is_empty() {
        return Ok(());
    }
    let names = Shape::new(*k, *tiers).link_names();
    for (i, e) in events.iter().enumerate() {
        check_event(i, e, &names, duration)?;
    }
    Ok(())
}

fn check_event(i: usize, e: &LinkEvent, names: &[String], duration: f64) -> Check {
    let p = format!("topology.events[{i}]");
    if !names.contains(&e.link) {
        return Err(SpecError::new(
            format!("{p}.link"),
            format!("unknown link '{}' (known: {})", e.link, known_list(names)),
        ));
    }
    if e.at >= duration {
        return Err(SpecError::new(
            format!("{p}.at"),
            format!("must be < duration ({}), got {}", num(duration), num(e.at)),
        ));
    }
    match (e.action, e.factor) {
        (LinkAction::Rate, None) => Err(SpecError::new(
            format!("{p}.factor"),
            "is needed by action = \"rate\" (the fraction of the cable's rate)",
        )),
        (LinkAction::Down | LinkAction::Up, Some(_)) => Err(SpecError::new(
            format!("{p}.factor"),
            "is only used by action = \"rate\"",
        )),
        _ => Ok(()),
    }
}
