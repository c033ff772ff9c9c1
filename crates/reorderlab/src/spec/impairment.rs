//! Impairment elements on links and per-packet multipath splitters.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::network::default_true;
use super::random::RandomVar;
use super::ranges::{seconds, seconds_or_zero, unit, within};

/// An impairment element placed on a link (see `docs/impairments.md`).
// No `deny_unknown_fields` here: serde does not support it together with
// `flatten`; the flattened model enum rejects unknown fields itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ImpairmentSpec {
    /// Link name, e.g. `"R1->R2"`.
    pub link: String,
    /// Before the link's queue (`ingress`) or after transmission and propagation (`egress`); none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    #[serde(default)]
    pub position: Option<Position>,
    #[serde(flatten)]
    pub model: ImpairmentModel,
}

/// Position of an impairment element on its link.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Position {
    Ingress,
    Egress,
}

impl ImpairmentSpec {
    pub fn position(&self) -> Position {
        self.position.unwrap_or(match self.model {
            ImpairmentModel::Arq { .. } => Position::Egress,
            _ => Position::Ingress,
        })
    }
}

/// Which retransmitted copies a positioned loss drops.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CopiesDropped {
    /// Only the first transmission of each listed segment.
    #[default]
    Original,
    /// Every transmission of each listed segment.
    All,
}

/// What the reordering generator (high-speed Sec. III-B) counts a block's
/// delay time from.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReorderAnchor {
    /// From the forwarding of the earliest later packet P_y: the paper's
    /// definition of the delay time as measured, t(P_x) - t(P_y). A block
    /// waits (up to `max_hold`) for a later packet, so every event reorders.
    #[default]
    LaterPacket,
    /// From the block's own arrival (its last packet): the block is
    /// "delayed for a reordering delay time" (Sec. III-B). A later packet
    /// overtakes it only if one arrives within that time.
    BlockArrival,
}

/// The impairment models (`docs/impairments.md` documents each).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ImpairmentModel {
    /// Independent (Bernoulli) drop of each packet with probability `p`.
    Loss {
        /// Drop probability of each packet.
        #[schemars(transform = within("[0, 1)"))]
        p: f64,
        /// Only data packets (true) or every packet (false).
        #[serde(default = "default_true")]
        data_only: bool,
    },
    /// Each packet independently, with probability `fraction`, is held for
    /// a delay drawn from `delay` (seconds); the others pass at once, so a
    /// long delay reorders (rr-tcp Sec. 5).
    Delay {
        /// Probability that a packet is held.
        #[schemars(transform = within("[0, 1]"))]
        fraction: f64,
        /// How long a held packet is held.
        #[schemars(transform = unit("s"))]
        delay: RandomVar,
        /// Only data packets (true) or every packet (false).
        #[serde(default)]
        data_only: bool,
    },
    /// Drop episodes: each packet outside an episode starts one with
    /// probability `q`; an episode drops every packet (itself included)
    /// for a `duration` drawn in seconds (rr-tcp Table 4).
    BurstLoss {
        /// Probability that a packet starts an episode.
        #[schemars(transform = within("[0, 1)"))]
        q: f64,
        /// Length of an episode.
        #[schemars(transform = unit("s"))]
        duration: RandomVar,
        /// Only data packets (true) or every packet (false).
        #[serde(default = "default_true")]
        data_only: bool,
    },
    /// Gilbert-Elliott two-state loss: per packet, move Good -> Bad with
    /// probability `p_gb` and Bad -> Good with `p_bg`, then drop with
    /// `loss_good` or `loss_bad` (the tail-loss paper).
    GilbertElliott {
        /// Probability of moving from Good to Bad, per packet.
        #[schemars(transform = within("[0, 1]"))]
        p_gb: f64,
        /// Probability of moving from Bad to Good, per packet.
        #[schemars(transform = within("[0, 1]"))]
        p_bg: f64,
        /// Drop probability in the Good state.
        #[serde(default)]
        #[schemars(transform = within("[0, 1]"))]
        loss_good: f64,
        /// Drop probability in the Bad state.
        #[serde(default = "default_one")]
        #[schemars(transform = within("[0, 1]"))]
        loss_bad: f64,
        /// Only data packets (true) or every packet (false).
        #[serde(default = "default_true")]
        data_only: bool,
    },
    /// Drop given data segments (0-based segment numbers) of flow `flow`,
    /// e.g. the last n of a 10-segment flow (tail-loss Figs. 1, 2).
    Positioned {
        /// Index of the flow in `flows`.
        flow: u32,
        /// Segment numbers to drop, 0-based.
        segments: Vec<u32>,
        /// Drop only the first transmission, or every copy.
        #[serde(default)]
        copies: CopiesDropped,
    },
    /// Every `period` seconds, `swaps` times pick two waiting packets of the
    /// link's queue at random and exchange their places (tcp-pr Fig. 13).
    Swap {
        /// Time between two rounds of swaps.
        #[schemars(transform = seconds)]
        period: f64,
        /// Swaps per round.
        #[schemars(range(min = 1, max = 1_000_000))]
        swaps: u32,
    },
    /// The reordering generator of high-speed Sec. III: a reordering event
    /// every `interval` seconds holds the next `block` packets and releases
    /// them once `delay` seconds have passed since the first later packet
    /// was forwarded (or, with `delay_packets`, once that many later packets
    /// have been forwarded); with `anchor = "block-arrival"`, `delay`
    /// seconds after the block's last packet arrived. A block still held
    /// `max_hold` seconds after its first packet arrived is released then,
    /// complete or not.
    Reorder {
        /// Time between reordering events.
        #[schemars(transform = unit("s"))]
        interval: RandomVar,
        /// Hold time after the first later packet (give this or delay_packets).
        #[serde(default)]
        #[schemars(transform = unit("s"))]
        delay: Option<RandomVar>,
        /// Later packets to let pass before the release (give this or delay).
        #[serde(default)]
        #[schemars(transform = unit("packets"))]
        delay_packets: Option<RandomVar>,
        /// Packets held per event.
        #[serde(default = "default_block")]
        #[schemars(transform = unit("packets"))]
        block: RandomVar,
        /// Longest hold of a block, from its first packet's arrival.
        #[serde(default = "default_max_hold")]
        #[schemars(transform = seconds)]
        max_hold: f64,
        /// Only data packets (true) or every packet (false).
        #[serde(default = "default_true")]
        data_only: bool,
        /// What the delay time counts from (none: later-packet).
        #[serde(default)]
        anchor: Option<ReorderAnchor>,
    },
    /// Linux netem's `delay D reorder P% C%` (`sch_netem.c`): each packet
    /// leaves at once with probability `reorder` (correlated by
    /// `correlation` as netem's `get_crandom`), else after `delay`; those
    /// that leave at once overtake the delayed ones.
    Netem {
        /// netem's `delay D`.
        #[schemars(transform = seconds)]
        delay: f64,
        /// netem's `reorder P%`, as a fraction.
        #[schemars(transform = within("[0, 1]"))]
        reorder: f64,
        /// netem's reorder correlation `C%`, as a fraction.
        #[serde(default)]
        #[schemars(transform = within("[0, 1)"))]
        correlation: f64,
        /// Only data packets (true) or every packet (false, as netem).
        #[serde(default)]
        data_only: bool,
    },
    /// Link-layer ARQ (the wwan paper): each attempt fails with probability
    /// `frame_error`; a failed frame is retransmitted one `link_rtt` later
    /// until it gets through (or `max_attempts` is reached: then dropped).
    /// `in_order` holds frames behind a gap until it is filled; otherwise
    /// each frame is passed on as soon as it gets through.
    Arq {
        /// Probability that an attempt fails.
        #[schemars(transform = within("[0, 1)"))]
        frame_error: f64,
        /// Time from a failed attempt to the next.
        #[schemars(transform = seconds_or_zero)]
        link_rtt: f64,
        /// Deliver frames in order (hold them behind a gap) or as they get through.
        #[serde(default)]
        in_order: bool,
        /// Attempts before a frame is dropped (none: until it gets through).
        #[serde(default)]
        #[schemars(range(min = 1))]
        max_attempts: Option<u32>,
    },
}

fn default_one() -> f64 {
    1.0
}
fn default_block() -> RandomVar {
    RandomVar::Constant { value: 1.0 }
}
fn default_max_hold() -> f64 {
    0.01
}

/// Per-packet multipath routing (tcp-pr Sec. VI-B): packets reaching node
/// `at` for destination `dst` follow one of `paths`, chosen independently
/// per packet, with probabilities from `weights` or from `epsilon`:
/// p_i proportional to exp(-epsilon * (hops_i - min_hops) / scale).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultipathSpec {
    /// Node where packets are split.
    pub at: String,
    /// Destination node of the packets split.
    pub dst: String,
    /// Each path a list of link names, from `at` to `dst`.
    pub paths: Vec<Vec<String>>,
    /// Preference for short paths (none: weights, or equal shares).
    #[serde(default)]
    #[schemars(transform = within(">= 0"))]
    pub epsilon: Option<f64>,
    /// Hop difference that epsilon is measured in.
    #[serde(default = "default_scale")]
    #[schemars(transform = within("> 0"))]
    pub scale: f64,
    /// Share of each path, one per path, with a positive sum (instead of epsilon).
    #[serde(default)]
    pub weights: Option<Vec<f64>>,
    /// Split only data packets (true) or every packet (false).
    #[serde(default = "default_true")]
    pub data_only: bool,
}

fn default_scale() -> f64 {
    1.0
}
