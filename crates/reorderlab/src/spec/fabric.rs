//! The fat-tree's own declaration: the load-balancing policy of its
//! switches (`docs/fabrics.md`). The rules that join its fields are in
//! `check_fabric.rs`.

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

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
    /// Adaptive: each packet on the uplink with the fewest bytes queued, ties at random (DRILL, Ghorbani et al., SIGCOMM 2017, with every uplink sampled).
    Adaptive,
}

impl LoadBalancing {
    const NAMES: [(&'static str, LoadBalancing); 4] = [
        ("ecmp", LoadBalancing::Ecmp),
        ("spray", LoadBalancing::Spray),
        ("round_robin", LoadBalancing::RoundRobin),
        ("adaptive", LoadBalancing::Adaptive),
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
                    "load_balancing must be \"ecmp\", \"spray\", \"round_robin\" or \"adaptive\", got {name:?}"
                ))
            })
    }
}
