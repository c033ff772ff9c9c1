//! The fat-tree's own declarations and the rules that join its fields:
//! the load-balancing policy of its switches, an even k, and failed links
//! that exist (`docs/fabrics.md`).

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use super::error::{known_list, Check, SpecError};
use super::network::Topology;
use crate::net::fattree::{Fabric, Shape};

/// How a switch picks one of its equal-cost uplinks for a packet.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadBalancing {
    /// ECMP, hash-threshold on the flow (RFC 2992): every packet of a flow on one path.
    #[default]
    Ecmp,
    /// Per-packet random spraying (Dixit et al., INFOCOM 2013).
    Spray,
    /// Per-packet round robin over the uplinks, one counter per switch (Dixit et al., INFOCOM 2013).
    RoundRobin,
}

impl LoadBalancing {
    const NAMES: [(&'static str, LoadBalancing); 3] = [
        ("ecmp", LoadBalancing::Ecmp),
        ("spray", LoadBalancing::Spray),
        ("round_robin", LoadBalancing::RoundRobin),
    ];
}

/// By hand, so that an unknown name is refused naming the field: serde
/// reports an error inside a tagged enum (the topology) at the enum.
impl<'de> Deserialize<'de> for LoadBalancing {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        (LoadBalancing::NAMES.iter())
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                D::Error::custom(format!(
                    "load_balancing must be \"ecmp\", \"spray\" or \"round_robin\", got {name:?}"
                ))
            })
    }
}

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
    let fabric = Fabric::new(shape, LoadBalancing::Ecmp, &failed, 0);
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
