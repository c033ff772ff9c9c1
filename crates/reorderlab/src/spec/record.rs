//! What a run records besides the per-flow counters.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::impairment::Position;
use super::ranges::{seconds, seconds_or_zero};

/// Names accepted in `record.series`.
pub const SERIES_NAMES: &[&str] = &[
    "cwnd",
    "ssthresh",
    "srtt",
    "rto",
    "dupthresh",
    "pipe",
    "delivered",
    "fa_ratio",
    "sent",
    "reorder_p10",
    "reorder_p50",
    "reorder_p90",
];

/// What to record besides the per-flow counters.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    /// Sender variables sampled every interval (`delivered`: segments delivered in order; `sent`: data packets sent, retransmissions included; `reorder_p10` / `p50` / `p90`: percentiles of RR-TCP's reordering-length histogram).
    #[serde(default)]
    #[schemars(extend("x-known" = SERIES_NAMES))]
    pub series: Vec<String>,
    /// Time between two samples of the series.
    #[serde(default = "default_interval")]
    #[schemars(transform = seconds)]
    pub interval: f64,
    /// Flow indices to sample and trace; empty = all.
    #[serde(default)]
    pub flows: Vec<u32>,
    /// List every object of the traffic generators (start, size, completion).
    #[serde(default)]
    pub objects: bool,
    /// `[from, until]`: trace every data packet sent and every ACK received by the recorded flows in that window (wwan Fig. 2); empty = no trace.
    #[serde(default)]
    #[schemars(transform = seconds_or_zero)]
    pub trace_window: Vec<f64>,
    /// With a `trace_window`: also record each ACK's SACK blocks, each retransmission's cause and whether the ground truth calls it spurious, the copies dropped, the receiver window, and every link's queue at each sample of `series` (what `reorderlab plot` draws); unset = none of this (left out of the serialised spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_details: Option<bool>,
    /// Packet captures (`docs/pcap.md`), written only by a run given an output folder; a capture never changes the run, so it is no part of its identity (left out of the serialised spec when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<PcapTapSpec>,
}

/// A capture point: one end of a link, seen as `tcpdump` on that interface
/// would see it (both directions). `ingress`: the end at the link's `from`
/// node (its packets as they are offered to the link, before its ingress
/// impairments and queue; the reverse link's as they are delivered);
/// `egress`: the end at its `to` node.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcapTapSpec {
    /// Link name, e.g. `"R1->R2"`.
    pub link: String,
    /// Which end of the link.
    #[serde(default = "default_tap_position")]
    pub position: Position,
}

fn default_tap_position() -> Position {
    Position::Egress
}

fn default_interval() -> f64 {
    0.1
}

impl Default for RecordSpec {
    fn default() -> Self {
        RecordSpec {
            series: Vec::new(),
            interval: default_interval(),
            flows: Vec::new(),
            objects: false,
            trace_window: Vec::new(),
            trace_details: None,
            pcap: Vec::new(),
        }
    }
}
