//! The network of a scenario: its topology, links and queues.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fabric::{LinkEvent, LoadBalancing};
use super::ranges::{bit_rate, seconds_or_zero, unit, within};

/// Queue discipline of a link.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    /// Tail drop when either limit would be exceeded.
    Droptail {
        /// Most packets in the queue (none: no packet limit).
        #[serde(default)]
        #[schemars(range(min = 1))]
        limit_packets: Option<u32>,
        /// Most bytes in the queue (none: no byte limit).
        #[serde(default)]
        #[schemars(range(min = 1), transform = unit("bytes"))]
        limit_bytes: Option<u64>,
    },
    /// Random Early Detection (Floyd & Jacobson 1993), thresholds in packets.
    Red {
        /// Most packets in the queue.
        #[schemars(range(min = 1))]
        limit_packets: u32,
        /// Average queue length (packets) where early drops start.
        #[schemars(transform = within(">= 0"))]
        min_th: f64,
        /// Average queue length (packets) where the drop probability reaches max_p; > min_th.
        #[schemars(transform = within("> 0"))]
        max_th: f64,
        /// Drop probability at max_th.
        #[serde(default = "default_max_p")]
        #[schemars(transform = within("(0, 1]"))]
        max_p: f64,
        /// Weight of each new sample in the average queue length (EWMA).
        #[serde(default = "default_w_q")]
        #[schemars(transform = within("(0, 1]"))]
        w_q: f64,
        /// Gentle RED: drop probability rises from max_p to 1 between max_th and 2 max_th.
        #[serde(default)]
        gentle: bool,
        /// Use the instantaneous queue length instead of the EWMA (the wwan paper).
        #[serde(default)]
        instantaneous: bool,
    },
}

fn default_max_p() -> f64 {
    0.1
}
fn default_w_q() -> f64 {
    0.002
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail {
            limit_packets: Some(100),
            limit_bytes: None,
        }
    }
}

/// One unidirectional link of a custom topology.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Node the link leaves.
    pub from: String,
    /// Node the link enters.
    pub to: String,
    /// Transmission rate.
    #[schemars(transform = bit_rate)]
    pub rate: f64,
    /// One-way propagation delay.
    #[schemars(transform = seconds_or_zero)]
    pub delay: f64,
    /// The link's queue.
    #[serde(default)]
    pub queue: QueueSpec,
    /// Also create the reverse link `to -> from` with the same parameters.
    #[serde(default = "default_true")]
    pub duplex: bool,
}

pub(super) fn default_true() -> bool {
    true
}

/// Network topology: a builder name with its parameters, or explicit links.
///
/// Link names are `"A->B"`; impairments refer to links by these names.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// rr-tcp Fig. 3: `S1 -(access)- R1 -(bottleneck)- R2 -(access)- D`.
    Chain {
        /// Rate of the access links S1-R1 and R2-D.
        #[serde(default = "default_access_rate")]
        #[schemars(transform = bit_rate)]
        access_rate: f64,
        /// One-way delay of each access link.
        #[serde(default = "default_access_delay")]
        #[schemars(transform = seconds_or_zero)]
        access_delay: f64,
        /// Rate of the bottleneck R1-R2.
        #[schemars(transform = bit_rate)]
        bottleneck_rate: f64,
        /// One-way delay of the bottleneck.
        #[schemars(transform = seconds_or_zero)]
        bottleneck_delay: f64,
        /// Queue of the bottleneck (both directions).
        #[serde(default)]
        queue: QueueSpec,
        /// Queue of the access links (none: droptail, 1000 packets).
        #[serde(default)]
        access_queue: Option<QueueSpec>,
    },
    /// `S0..S{n-1} - R1 - R2 - D0..D{n-1}`; pair i uses `S{i}` and `D{i}`.
    Dumbbell {
        /// Sender / receiver pairs n.
        #[schemars(range(min = 1, max = 100_000))]
        pairs: u32,
        /// Rate of every access link.
        #[serde(default = "default_access_rate")]
        #[schemars(transform = bit_rate)]
        access_rate: f64,
        /// One-way delay of each pair's access links (both sides), one per pair; empty: access_delay.
        #[serde(default)]
        #[schemars(transform = seconds_or_zero)]
        access_delays: Vec<f64>,
        /// One-way delay of every access link when access_delays is empty.
        #[serde(default = "default_access_delay")]
        #[schemars(transform = seconds_or_zero)]
        access_delay: f64,
        /// Rate of the bottleneck R1-R2.
        #[schemars(transform = bit_rate)]
        bottleneck_rate: f64,
        /// One-way delay of the bottleneck.
        #[schemars(transform = seconds_or_zero)]
        bottleneck_delay: f64,
        /// Queue of the bottleneck (both directions).
        #[serde(default)]
        queue: QueueSpec,
        /// Queue of the access links (none: droptail, 1000 packets).
        #[serde(default)]
        access_queue: Option<QueueSpec>,
    },
    /// tcp-pr Fig. 3: routers `R0 .. R{h}` in a chain, hop i = `R{i-1} -> R{i}`.
    /// End hosts `S` (at R0) and `D` (at R{h}) for the long flow, and cross
    /// traffic hosts `CS{i}` (at R{i-1}) and `CD{i}` (at R{i}) for every hop.
    ParkingLot {
        /// Rate of each router-router hop (its length is the number of hops h).
        #[schemars(transform = bit_rate)]
        hop_rates: Vec<f64>,
        /// One-way delay of every hop.
        #[serde(default = "default_hop_delay")]
        #[schemars(transform = seconds_or_zero)]
        hop_delay: f64,
        /// Rate of every access link.
        #[serde(default = "default_access_rate")]
        #[schemars(transform = bit_rate)]
        access_rate: f64,
        /// Rate of each cross source's access link `CS{i} -> R{i-1}` (tcp-pr Fig. 3: 5, 1.66, 2.5 Mb/s), one per hop; empty: access_rate.
        #[serde(default)]
        #[schemars(transform = bit_rate)]
        cross_access_rates: Vec<f64>,
        /// One-way delay of every access link.
        #[serde(default = "default_access_delay")]
        #[schemars(transform = seconds_or_zero)]
        access_delay: f64,
        /// Queue of every hop.
        #[serde(default)]
        queue: QueueSpec,
        /// Queue of the access links (none: droptail, 1000 packets).
        #[serde(default)]
        access_queue: Option<QueueSpec>,
    },
    /// k-ary fat-tree of k-port switches (Al-Fares et al., SIGCOMM 2008),
    /// `docs/fabrics.md`. Three tiers: k pods of k/2 edge and k/2
    /// aggregation switches, (k/2)^2 cores, k^3/4 hosts. Two tiers
    /// (leaf-spine): k leaves, k/2 spines, k^2/2 hosts. Nodes `h{i}`,
    /// `edge{i}`, `agg{i}`, `core{i}`; every cable is a duplex link.
    FatTree {
        /// Switch ports k, even.
        #[schemars(range(min = 2, max = 64))]
        k: u32,
        /// Switch tiers: 2 (leaf-spine) or 3 (edge, aggregation, core).
        #[serde(default = "default_tiers")]
        #[schemars(range(min = 2, max = 3))]
        tiers: u8,
        /// Rate of every host link (and of every switch-switch link divided by oversubscription at the edge).
        #[serde(default = "default_fabric_rate")]
        #[schemars(transform = bit_rate)]
        rate: f64,
        /// Host to uplink capacity ratio at the edge (leaf) tier: edge-aggregation links run at rate / oversubscription.
        #[serde(default = "default_oversubscription")]
        #[schemars(transform = within(">= 1"))]
        oversubscription: f64,
        /// One-way propagation delay of every link, per hop (ns resolution, e.g. 5e-7).
        #[serde(default = "default_fabric_hop_delay")]
        #[schemars(transform = seconds_or_zero)]
        hop_delay: f64,
        /// Buffer of every switch port, tail drop (hosts' own queues: 1000 packets).
        #[serde(default = "default_buffer_bytes")]
        #[schemars(range(min = 1), transform = unit("bytes"))]
        buffer_bytes: u64,
        /// How every switch picks among equal-cost uplinks.
        #[serde(default)]
        load_balancing: LoadBalancing,
        /// Cables down for the whole run, by the name of either direction (`"edge0->agg1"`).
        #[serde(default)]
        failed_links: Vec<String>,
        /// ECN: every switch port marks CE on a data packet arriving to more than this many bytes queued (DCTCP's K; none: no marking).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 1), transform = unit("bytes"))]
        ecn_threshold_bytes: Option<u64>,
        /// Packet trimming: a switch port that would drop a data packet forwards its header at high priority instead (NDP; Ultra Ethernet).
        #[serde(default, skip_serializing_if = "is_false")]
        trimming: bool,
        /// load_balancing = "flowlet": the idle gap after which a flow's next packet may take another uplink (default 100 us).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(transform = seconds_or_zero)]
        flowlet_gap: Option<f64>,
        /// Changes of cables during the run: down, up, or a fraction of their rate.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        events: Vec<LinkEvent>,
    },
    /// Explicit nodes and links.
    Custom {
        /// Node names, unique.
        nodes: Vec<String>,
        /// The links between them.
        links: Vec<LinkSpec>,
    },
}

fn default_access_rate() -> f64 {
    10e6
}
fn default_access_delay() -> f64 {
    0.001
}
fn default_hop_delay() -> f64 {
    0.002
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn default_tiers() -> u8 {
    3
}
fn default_fabric_rate() -> f64 {
    100e9
}
fn default_oversubscription() -> f64 {
    1.0
}
fn default_fabric_hop_delay() -> f64 {
    500e-9
}
fn default_buffer_bytes() -> u64 {
    150_000
}
