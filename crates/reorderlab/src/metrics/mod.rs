//! Measurements: per-flow and per-link result records, and sampled time
//! series. Everything here is plain data serialised to the result JSON.

pub mod fairness;
pub mod pcap;
mod reordering;
mod series;
pub mod trace;
pub mod trace_detail;

pub use reordering::{ReorderingMetrics, DENSITY_THRESHOLD};
pub use series::SeriesRecorder;
pub use trace::{FlowTrace, TraceRecorder};
pub use trace_detail::{DetailRecorder, TraceDetails};

use serde::Serialize;

/// Totals of one traffic generator's flows (`docs/traffic.md`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TrafficResult {
    pub name: String,
    pub kind: String,
    pub server: String,
    pub client: String,
    pub variant: String,
    pub cc: String,
    pub sessions: u32,
    pub pages: u64,
    /// Objects started (one flow each) and completed (all data delivered).
    pub objects: u64,
    pub objects_completed: u64,
    /// Flows still open at the end (started, not yet completed).
    pub active_at_end: u64,
    pub segments_delivered: u64,
    pub bytes_delivered: u64,
    /// Bytes delivered in the measurement window, and their rate.
    pub bytes_delivered_measured: u64,
    pub throughput_bps: f64,
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub spurious_retransmits: u64,
    /// DSACKs the senders received: spurious retransmissions as a sender
    /// sees them (a duplicate reported by the receiver).
    pub dsacks_received: u64,
    pub data_drops: u64,
    /// Connections opened (`http`: one per object).
    pub connections: u64,
    /// Pages all of whose objects arrived.
    pub pages_completed: u64,
    /// Object completion time (`http`: start of the object's connection,
    /// `page`: its request, to the arrival of its last segment) over
    /// completed objects, s.
    pub oct_mean: Option<f64>,
    pub oct_median: Option<f64>,
    pub oct_p95: Option<f64>,
    /// Every object when `record.objects` is set, else empty.
    pub object_list: Vec<ObjectRecord>,
}

/// How many of an object's last segments are its tail: tail-loss Sec. 3.3
/// keeps objects "where at least one object experienced a segment
/// retransmission in one of the four last segments".
pub const TAIL_SEGMENTS: u32 = 4;

/// The tail of the segments `from..to`: the last [`TAIL_SEGMENTS`] of
/// them, or all if fewer.
pub fn tail(from: u32, to: u32) -> std::ops::Range<u32> {
    to.saturating_sub(TAIL_SEGMENTS).max(from)..to
}

/// One object of a traffic generator.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct ObjectRecord {
    /// Start of its completion time: the object's connection start (`http`)
    /// or its request (`page`), s.
    pub start: f64,
    pub segments: u64,
    /// Completion time, s; `None` if not completed by the end of the run.
    pub oct: Option<f64>,
    /// `http`: retransmissions of the object's connection; `page`:
    /// retransmissions of the object's segments.
    pub retransmits: u64,
    /// Timeouts of its connection while the object was in transfer.
    pub timeouts: u64,
    /// Segments among the object's last four with a dropped copy.
    pub tail_drops: u32,
    /// Segments among the object's last four sent more than once (the tail-loss paper
    /// Sec. 3.3 keeps objects "where at least one object experienced a
    /// segment retransmission in one of the four last segments").
    pub tail_retransmits: u32,
    /// Session and page (generator-wide page number) it belongs to.
    pub session: u32,
    pub page: u64,
    /// Position in its page (`page`: 0 is the HTML).
    pub index: u32,
    /// Connection carrying it: `http` one per object (equal to `index`);
    /// `page` 0 .. connections - 1 within the page.
    pub connection: u32,
}

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
    /// Tail loss probes that retransmitted (the highest segment sent).
    pub probe_retransmits: u64,
    /// Every tail loss probe sent: new data or retransmission (draft-01
    /// Sec. 2.1, RFC 8985 Sec. 7.3).
    pub tlp_probes: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// Segments (or their retransmissions) RACK deemed lost (RFC 8985 Sec.
    /// 6.2 step 5), on ACKs or on the reorder timer.
    pub rack_marked_lost: u64,
    /// Reorder-timer expiries that marked a segment lost (RFC 8985 Sec.
    /// 6.3).
    pub rack_reorder_timeouts: u64,
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
    /// Throughput / mean throughput of the scenario's flows (the tcp-pr paper `T_i`);
    /// `None` for a lone flow.
    pub normalized_throughput: Option<f64>,
    pub completed: bool,
    pub fct: Option<f64>,
    pub srtt: Option<f64>,
    pub rttvar: f64,
    pub min_rtt: Option<f64>,
    pub rto: f64,
    /// Mean RTO over every arming of the timer (each restart by an ACK).
    pub rto_mean: f64,
    /// Mean RTO in force when the timer expired (backoff included), over
    /// the timeouts; `None` without one.
    pub rto_expired_mean: Option<f64>,
    pub cwnd: f64,
    pub ssthresh: Option<f64>,
    pub max_cwnd: f64,
    /// A QUIC flow's loss recovery counters (`crate::quic`); absent (not
    /// written) for TCP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quic: Option<crate::quic::QuicFlowResult>,
    /// Data packets that reached the receiver marked CE (a fabric with an ECN threshold; not written when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub ce_received: u64,
    /// Trimmed headers that reached the receiver, each a NACK for a sender that used them (not written when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub trimmed_received: u64,
    /// A UET flow's counters (`crate::uet`): retransmissions by cause,
    /// NACKs, probes; absent (not written) for TCP and QUIC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uet: Option<crate::uet::UetFlowResult>,
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
    /// Data packets marked CE (a fabric with an ECN threshold; not written when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub ce_marks: u64,
    /// Data packets trimmed to their header (a fabric with trimming; not written when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub trimmed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Engine-level counters of a run.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct EngineCounters {
    pub events: u64,
    pub packet_hops: u64,
}
