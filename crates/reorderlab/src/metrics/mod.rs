//! Measurements: per-flow and per-link result records, and sampled time
//! series. Everything here is plain data serialised to the result JSON.

mod reordering;
mod series;

pub use reordering::{ReorderingMetrics, DENSITY_THRESHOLD};
pub use series::SeriesRecorder;

use serde::Serialize;

/// Per-flow results (documented in `docs/scenario-format.md`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowResult {
    pub flow: u32,
    pub name: String,
    pub src: String,
    pub dst: String,
    pub variant: String,
    pub cc: String,
    pub start: f64,
    pub segments_sent: u64,
    pub data_packets_sent: u64,
    pub bytes_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeout_retransmits: u64,
    pub probe_retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub spurious_retransmits: u64,
    pub spurious_fast_retransmits: u64,
    pub spurious_timeout_retransmits: u64,
    pub spurious_probe_retransmits: u64,
    pub data_drops: u64,
    pub dsacks_received: u64,
    /// Spurious retransmissions the sender detected itself via DSACK.
    pub false_fast_retransmits_detected: u64,
    pub false_timeouts_detected: u64,
    pub undos: u64,
    pub lt_idle_periods: u64,
    /// dupthresh and FA ratio at the end of the run.
    pub dupthresh: u32,
    pub fa_ratio: Option<f64>,
    pub acks_received: u64,
    pub acks_sent: u64,
    pub segments_delivered: u64,
    pub bytes_delivered: u64,
    pub duplicate_segments_received: u64,
    /// RFC 4737 reordered ratio of the segments the receiver saw.
    pub reordered_ratio: f64,
    /// RFC 4737 mean and maximum reordering extent (packets).
    pub reorder_extent_mean: f64,
    pub reorder_extent_max: u64,
    pub throughput_bps: f64,
    pub completed: bool,
    pub fct: Option<f64>,
    pub srtt: Option<f64>,
    pub rttvar: f64,
    pub min_rtt: Option<f64>,
    pub rto: f64,
    pub rto_mean: f64,
    pub cwnd: f64,
    pub ssthresh: Option<f64>,
    pub max_cwnd: f64,
}

/// Per-link results.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LinkResult {
    pub link: String,
    pub from: String,
    pub to: String,
    pub rate: f64,
    pub delay: f64,
    pub arrivals: u64,
    pub enqueued: u64,
    pub queue_drops: u64,
    pub impairment_drops: u64,
    pub egress_drops: u64,
    pub delivered: u64,
    pub bytes_delivered: u64,
    pub in_system_at_end: u64,
    pub max_queue: u32,
}

/// Engine-level counters of a run.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct EngineCounters {
    pub events: u64,
    pub packet_hops: u64,
}
