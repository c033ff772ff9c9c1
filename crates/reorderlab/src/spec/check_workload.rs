//! The rules of a fabric workload (`docs/fabrics.md`): a fat-tree to run
//! on, incast fields only on an incast, a target that is a host, one way
//! to give the sizes, and a route between every pair of its hosts.

use super::error::{num, Check, SpecError};
use super::network::Topology;
use super::workload::{Pattern, WorkloadSpec};
use crate::net::fattree::{Fabric, Shape};
use crate::spec::LoadBalancing;

/// The fabric's shape and failed link ids, when the topology is a fat-tree.
pub(super) fn fabric_of(t: &Topology) -> Option<(Shape, Vec<u32>)> {
    let Topology::FatTree {
        k,
        tiers,
        failed_links,
        ..
    } = t
    else {
        return None;
    };
    let shape = Shape::new(*k, *tiers);
    let names = shape.link_names();
    let failed = (failed_links.iter())
        .filter_map(|f| names.iter().position(|n| n == f).map(|i| i as u32))
        .collect();
    Some((shape, failed))
}

/// `workloads[i]`'s own fields against the topology (`duration`: its
/// start must come before the end).
pub(super) fn check_workload(i: usize, w: &WorkloadSpec, t: &Topology, duration: f64) -> Check {
    let p = format!("workloads[{i}]");
    let Some((shape, _)) = fabric_of(t) else {
        return Err(SpecError::new(
            p,
            "runs between the hosts of a fat-tree: needs topology.kind = \"fat_tree\"",
        ));
    };
    if w.start >= duration {
        return Err(SpecError::new(
            format!("{p}.start"),
            format!(
                "must be before the end of the run ({} s), got {}",
                num(duration),
                num(w.start)
            ),
        ));
    }
    if w.pattern != Pattern::Incast {
        for (field, set) in [
            ("fan_in", w.fan_in.is_some()),
            ("target", w.target.is_some()),
        ] {
            if set {
                return Err(SpecError::new(
                    format!("{p}.{field}"),
                    "is only used by pattern = \"incast\"",
                ));
            }
        }
    }
    let hosts = shape.hosts;
    if let Some(f) = w.fan_in {
        if f >= hosts {
            return Err(SpecError::new(
                format!("{p}.fan_in"),
                format!("must be below the fabric's {hosts} hosts (the target receives), got {f}"),
            ));
        }
    }
    if w.target_host().is_none_or(|h| h >= hosts) {
        let got = w.target.as_deref().unwrap_or("h0");
        return Err(SpecError::new(
            format!("{p}.target"),
            format!(
                "must be a host of the fat-tree (h0..h{}), got '{got}'",
                hosts - 1
            ),
        ));
    }
    if w.distribution.is_some() && w.flow_size.is_some() {
        return Err(SpecError::new(
            format!("{p}.distribution"),
            "cannot be set with flow_size (one law of sizes)",
        ));
    }
    if let Some(v) = &w.flow_size {
        v.validate(&format!("{p}.flow_size"))?;
    }
    Ok(())
}

/// Every pair of the fabric's hosts has a route each way over the links
/// that are up. A route depends only on the two hosts' cables and their
/// edge switches, so this checks each host's cable and each pair of edge
/// switches (through their first hosts), not every pair of hosts.
pub(super) fn check_workload_routes(i: usize, t: &Topology) -> Check {
    let Some((shape, failed)) = fabric_of(t) else {
        return Ok(());
    };
    if failed.is_empty() {
        return Ok(());
    }
    let fabric = Fabric::new(shape, LoadBalancing::Ecmp, &failed, 0, 0);
    let cables = shape.cables();
    let refuse = |a: u32, b: u32| {
        SpecError::new(
            format!("workloads[{i}]"),
            format!(
                "no route between '{}' and '{}' in both directions (topology.failed_links)",
                shape.node_name(a),
                shape.node_name(b)
            ),
        )
    };
    if let Some(&l) = failed.iter().find(|&&l| l % cables < shape.hosts) {
        let h = l % cables;
        let other = if h == 0 { 1 } else { 0 };
        return Err(refuse(h, other));
    }
    let half = shape.half;
    for ea in 0..shape.edges {
        for eb in (0..shape.edges).filter(|&e| e != ea) {
            let (a, b) = (ea * half, eb * half);
            if !fabric.connects(a, b) {
                return Err(refuse(a, b));
            }
        }
    }
    Ok(())
}
