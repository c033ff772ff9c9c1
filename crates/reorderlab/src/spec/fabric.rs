//! The fat-tree's own declaration: the load-balancing policy of its
//! switches and the changes of its links during a run (`docs/fabrics.md`). The rules that join its fields are in
//! `check_fabric.rs`.

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use super::ranges::{seconds_or_zero, within};

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
    /// Flowlets: a flow keeps its uplink until it pauses longer than flowlet_gap, then takes one at random (LetFlow, Vanini et al., NSDI 2017).
    Flowlet,
    /// REPS: hash-threshold on the flow and an entropy value each packet carries, the sender recycling the values whose ACKs came back without ECN-Echo (Bonato et al., REPS; Ultra Ethernet).
    Reps,
}

impl LoadBalancing {
    const NAMES: [(&'static str, LoadBalancing); 6] = [
        ("ecmp", LoadBalancing::Ecmp),
        ("spray", LoadBalancing::Spray),
        ("round_robin", LoadBalancing::RoundRobin),
        ("adaptive", LoadBalancing::Adaptive),
        ("flowlet", LoadBalancing::Flowlet),
        ("reps", LoadBalancing::Reps),
    ];
}

/// What happens to a cable at a [`LinkEvent`].
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkAction {
    /// Both directions go down: switches route around it.
    Down,
    /// Both directions come back up at their full rate.
    Up,
    /// Both directions run at their nominal rate times `factor` (up).
    Rate,
}

impl<'de> Deserialize<'de> for LinkAction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        match name.as_str() {
            "down" => Ok(LinkAction::Down),
            "up" => Ok(LinkAction::Up),
            "rate" => Ok(LinkAction::Rate),
            _ => Err(D::Error::custom(format!(
                "action must be \"down\", \"up\" or \"rate\", got {name:?}"
            ))),
        }
    }
}

/// A change of one cable of a fat-tree at a given time (`[[topology.events]]`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkEvent {
    /// When, s from the start of the run (< duration).
    #[schemars(transform = seconds_or_zero)]
    pub at: f64,
    /// The cable, by the name of either direction (`"agg0->core0"`).
    pub link: String,
    /// "down", "up" or "rate".
    pub action: LinkAction,
    /// action = "rate": the factor of the cable's nominal rate, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = within("(0, 1]"))]
    pub factor: Option<f64>,
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
                    "load_balancing must be \"ecmp\", \"spray\", \"round_robin\", \"adaptive\", \"flowlet\" or \"reps\", got {name:?}"
                ))
            })
    }
}
