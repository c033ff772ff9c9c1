//! Scenario specification: the plain-data description of one simulation run.
//!
//! This is the contract between the Python front (which validates the same
//! fields with pydantic and serialises them to JSON) and the Rust core. Every
//! field is documented in `docs/scenario-format.md`. Units are SI: rates in
//! bit/s, times in seconds (converted to integer nanoseconds on build), sizes
//! in bytes, windows in segments.
//!
//! [`Scenario::validate`] checks every field and names the bad one, so a
//! scenario that reaches the builder never panics it.

mod check_network;
pub mod limits;
mod random;
mod validate;

use serde::{Deserialize, Serialize};

pub use random::RandomVar;
pub use validate::{num, SpecError};

/// One simulation run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_name")]
    pub name: String,
    /// Simulated seconds.
    pub duration: f64,
    /// Default seed; `run(scenario, seed)` overrides it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Throughput and other rate metrics are measured from this time on.
    #[serde(default)]
    pub warmup: f64,
    pub topology: Topology,
    #[serde(default)]
    pub impairments: Vec<ImpairmentSpec>,
    #[serde(default)]
    pub multipath: Vec<MultipathSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Generated traffic: flows that start and end during the run.
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
    #[serde(default)]
    pub record: RecordSpec,
}

fn default_name() -> String {
    "scenario".to_string()
}
fn default_seed() -> u64 {
    1
}

/// Queue discipline of a link.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    /// Tail drop when either limit would be exceeded.
    Droptail {
        #[serde(default)]
        limit_packets: Option<u32>,
        #[serde(default)]
        limit_bytes: Option<u64>,
    },
    /// Random Early Detection (Floyd & Jacobson 1993), thresholds in packets.
    Red {
        limit_packets: u32,
        min_th: f64,
        max_th: f64,
        #[serde(default = "default_max_p")]
        max_p: f64,
        #[serde(default = "default_w_q")]
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
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub from: String,
    pub to: String,
    /// bit/s
    pub rate: f64,
    /// one-way propagation delay, s
    pub delay: f64,
    #[serde(default)]
    pub queue: QueueSpec,
    /// Also create the reverse link `to -> from` with the same parameters.
    #[serde(default = "default_true")]
    pub duplex: bool,
}

fn default_true() -> bool {
    true
}

/// Network topology: a builder name with its parameters, or explicit links.
///
/// Link names are `"A->B"`; impairments refer to links by these names.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// rr-tcp Fig. 3: `S1 -(access)- R1 -(bottleneck)- R2 -(access)- D`.
    Chain {
        #[serde(default = "default_access_rate")]
        access_rate: f64,
        #[serde(default = "default_access_delay")]
        access_delay: f64,
        bottleneck_rate: f64,
        bottleneck_delay: f64,
        #[serde(default)]
        queue: QueueSpec,
        #[serde(default)]
        access_queue: Option<QueueSpec>,
    },
    /// `S0..S{n-1} - R1 - R2 - D0..D{n-1}`; pair i uses `S{i}` and `D{i}`.
    Dumbbell {
        pairs: u32,
        #[serde(default = "default_access_rate")]
        access_rate: f64,
        /// One-way delay of every access link, or per pair (same value both sides).
        #[serde(default)]
        access_delays: Vec<f64>,
        #[serde(default = "default_access_delay")]
        access_delay: f64,
        bottleneck_rate: f64,
        bottleneck_delay: f64,
        #[serde(default)]
        queue: QueueSpec,
        #[serde(default)]
        access_queue: Option<QueueSpec>,
    },
    /// tcp-pr Fig. 3: routers `R0 .. R{h}` in a chain, hop i = `R{i-1} -> R{i}`.
    /// End hosts `S` (at R0) and `D` (at R{h}) for the long flow, and cross
    /// traffic hosts `CS{i}` (at R{i-1}) and `CD{i}` (at R{i}) for every hop.
    ParkingLot {
        /// Rate of each router-router hop (its length is the number of hops).
        hop_rates: Vec<f64>,
        #[serde(default = "default_hop_delay")]
        hop_delay: f64,
        #[serde(default = "default_access_rate")]
        access_rate: f64,
        /// Rate of each cross source's access link `CS{i} -> R{i-1}` (the tcp-pr paper
        /// Fig. 3: 5, 1.66, 2.5 Mb/s); empty = `access_rate`.
        #[serde(default)]
        cross_access_rates: Vec<f64>,
        #[serde(default = "default_access_delay")]
        access_delay: f64,
        #[serde(default)]
        queue: QueueSpec,
        #[serde(default)]
        access_queue: Option<QueueSpec>,
    },
    /// Explicit nodes and links.
    Custom {
        nodes: Vec<String>,
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

/// An impairment element placed on a link (see `docs/impairments.md`).
// No `deny_unknown_fields` here: serde does not support it together with
// `flatten`; the flattened model enum rejects unknown fields itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ImpairmentSpec {
    /// Link name, e.g. `"R1->R2"`.
    pub link: String,
    /// Where on the link: before its queue (`ingress`) or after transmission
    /// and propagation, before the next node (`egress`). Default: `egress`
    /// for `arq` (ns-2 places link-layer error modules after the queue),
    /// `ingress` for everything else.
    #[serde(default)]
    pub position: Option<Position>,
    #[serde(flatten)]
    pub model: ImpairmentModel,
}

/// Position of an impairment element on its link.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
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
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ImpairmentModel {
    /// Independent (Bernoulli) drop of each packet with probability `p`.
    Loss {
        p: f64,
        /// Only data packets (true) or every packet (false).
        #[serde(default = "default_true")]
        data_only: bool,
    },
    /// Each packet independently, with probability `fraction`, is held for
    /// a delay drawn from `delay` (seconds); the others pass at once, so a
    /// long delay reorders (rr-tcp Sec. 5).
    Delay {
        fraction: f64,
        delay: RandomVar,
        #[serde(default)]
        data_only: bool,
    },
    /// Drop episodes: each packet outside an episode starts one with
    /// probability `q`; an episode drops every packet (itself included)
    /// for a `duration` drawn in seconds (rr-tcp Table 4).
    BurstLoss {
        q: f64,
        duration: RandomVar,
        #[serde(default = "default_true")]
        data_only: bool,
    },
    /// Gilbert-Elliott two-state loss: per packet, move Good -> Bad with
    /// probability `p_gb` and Bad -> Good with `p_bg`, then drop with
    /// `loss_good` or `loss_bad` (the tail-loss paper).
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "default_one")]
        loss_bad: f64,
        #[serde(default = "default_true")]
        data_only: bool,
    },
    /// Drop given data segments (0-based segment numbers) of flow `flow`,
    /// e.g. the last n of a 10-segment flow (tail-loss Figs. 1, 2).
    Positioned {
        flow: u32,
        segments: Vec<u32>,
        #[serde(default)]
        copies: CopiesDropped,
    },
    /// Every `period` seconds, `swaps` times pick two waiting packets of the
    /// link's queue at random and exchange their places (tcp-pr Fig. 13).
    Swap { period: f64, swaps: u32 },
    /// The reordering generator of high-speed Sec. III: a reordering event
    /// every `interval` seconds holds the next `block` packets and releases
    /// them once `delay` seconds have passed since the first later packet
    /// was forwarded (or, with `delay_packets`, once that many later packets
    /// have been forwarded); with `anchor = "block-arrival"`, `delay`
    /// seconds after the block's last packet arrived. A block still held
    /// `max_hold` seconds after its first packet arrived is released then,
    /// complete or not.
    Reorder {
        interval: RandomVar,
        #[serde(default)]
        delay: Option<RandomVar>,
        #[serde(default)]
        delay_packets: Option<RandomVar>,
        #[serde(default = "default_block")]
        block: RandomVar,
        #[serde(default = "default_max_hold")]
        max_hold: f64,
        #[serde(default = "default_true")]
        data_only: bool,
        /// What the delay time is counted from (None: `LaterPacket`).
        #[serde(default)]
        anchor: Option<ReorderAnchor>,
    },
    /// Link-layer ARQ (the wwan paper): each attempt fails with probability
    /// `frame_error`; a failed frame is retransmitted one `link_rtt` later
    /// until it gets through (or `max_attempts` is reached: then dropped).
    /// `in_order` holds frames behind a gap until it is filled; otherwise
    /// each frame is passed on as soon as it gets through.
    Arq {
        frame_error: f64,
        link_rtt: f64,
        #[serde(default)]
        in_order: bool,
        #[serde(default)]
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
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MultipathSpec {
    pub at: String,
    pub dst: String,
    /// Each path a list of link names, from `at` to `dst`.
    pub paths: Vec<Vec<String>>,
    #[serde(default)]
    pub epsilon: Option<f64>,
    #[serde(default = "default_scale")]
    pub scale: f64,
    #[serde(default)]
    pub weights: Option<Vec<f64>>,
    /// Split only data packets (true) or every packet (false).
    #[serde(default = "default_true")]
    pub data_only: bool,
}

fn default_scale() -> f64 {
    1.0
}

/// The transport and application of one flow.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(default)]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// Sender variant name from the registry (`reorderlab variants`).
    #[serde(default = "default_variant")]
    pub variant: String,
    /// Congestion control name.
    #[serde(default = "default_cc")]
    pub cc: String,
    /// Start time, s.
    #[serde(default)]
    pub start: f64,
    /// Segments to send; 0 = unlimited (bulk).
    #[serde(default)]
    pub segments: u64,
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default)]
    pub receiver: ReceiverSpec,
}

fn default_variant() -> String {
    "SACK".to_string()
}
fn default_cc() -> String {
    "reno".to_string()
}

/// Sender parameters common to all variants. `None` = the variant's default.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Data packet size in bytes (headers included).
    #[serde(default)]
    pub mss: Option<u32>,
    /// Pure ACK size in bytes.
    #[serde(default)]
    pub ack_size: Option<u32>,
    /// Maximum window (receiver-advertised limit), segments.
    #[serde(default)]
    pub max_window: Option<u32>,
    #[serde(default)]
    pub initial_window: Option<u32>,
    #[serde(default)]
    pub initial_ssthresh: Option<u32>,
    #[serde(default)]
    pub min_rto: Option<f64>,
    #[serde(default)]
    pub max_rto: Option<f64>,
    #[serde(default)]
    pub initial_rto: Option<f64>,
    /// Clock granularity G of RFC 6298, s.
    #[serde(default)]
    pub granularity: Option<f64>,
    #[serde(default)]
    pub dupthresh: Option<u32>,
    /// RFC 3042 limited transmit; `None` = the variant's default.
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// Limited transmit up to this many congestion windows (RR-TCP's k).
    #[serde(default)]
    pub limited_transmit_bound: Option<f64>,
    /// Initial (DSACK-TA) or fixed (DSACK-FA) FA ratio in [0, 1].
    #[serde(default)]
    pub fa_ratio: Option<f64>,
    /// RTT measurement: one timed segment per RTT (`per_rtt`, BSD / ns-2,
    /// the default) or every ACK (`per_ack`, Linux / timestamps).
    #[serde(default)]
    pub rtt_timing: Option<RttTimingSpec>,
    /// TCP-PR srtt decay per RTT, in (0, 1).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// TCP-PR mxrtt = beta * srtt, beta >= 1.
    #[serde(default)]
    pub beta: Option<f64>,
    /// Congestion Window Validation: `"none"` or `"rfc2861"`; `None` = the
    /// variant's default (on for SACK-CWV only).
    #[serde(default)]
    pub cwv: Option<String>,
    /// Linux's HyStart in CUBIC's slow start: `None` = the variant's (on
    /// for Linux and the Linux 3.17 family of the tail-loss paper).
    #[serde(default)]
    pub hystart: Option<bool>,
    /// The RTT estimator and retransmission timer of an ns-2 release
    /// (`docs/variants.md`, ns-2 estimator); `None` = the variant's own.
    #[serde(default)]
    pub rto_estimator: Option<RtoEstimatorSpec>,
    /// How an undo restores the window: `"restore"` (cwnd and ssthresh back
    /// at once, rr-tcp Sec. 2.1) or `"slow-start"` (ssthresh = the earlier
    /// cwnd, cwnd slow-starts back: Blanton-Allman); `None` = `"restore"`.
    /// Only variants that undo (DSACK-R and its family, Linux) use it.
    #[serde(default)]
    pub undo_response: Option<UndoResponseSpec>,
    /// Open the connection with SYN / SYN-ACK before data.
    #[serde(default)]
    pub syn: bool,
}

/// An ns-2 release's RTT estimator and timer ([`crate::tcp::timers::ns2`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub enum RtoEstimatorSpec {
    /// ns-2.1b8: 100-ms tick, minimum RTO 1 s, initial 6 s.
    #[serde(rename = "ns2-2.1b8")]
    Ns2V21b8,
    /// ns-2.1b9 to 2.27: 10-ms tick, `rfc2988_`, minimum 1 s, initial 6 s
    /// ("ns2-2.27" names the same defaults).
    #[serde(rename = "ns2-2.26", alias = "ns2-2.27")]
    Ns2V226,
    /// ns-2.30 and 2.31: as 2.26 with minimum 0.2 s, initial 3 s.
    #[serde(rename = "ns2-2.31")]
    Ns2V231,
}

/// A traffic generator (`docs/traffic.md`): sessions that open a finite
/// flow per object, from `server` to `client`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub kind: TrafficKind,
    /// Node that sends the objects (the web server).
    pub server: String,
    /// Node that receives them (the web client).
    pub client: String,
    /// Concurrent sessions, each an independent page process.
    #[serde(default = "default_sessions")]
    pub sessions: u32,
    /// Time of the first page (each session starts one page gap later), s.
    #[serde(default)]
    pub start: f64,
    /// No page starts at or after this time (default: the end of the run), s.
    #[serde(default)]
    pub stop: Option<f64>,
    /// `false`: pages start as a renewal process (`page_interarrival` from
    /// one page start to the next, the ns-2 model). `true`: the next page
    /// starts `page_interarrival` after the last object of the previous page
    /// arrived (think time).
    #[serde(default)]
    pub closed_loop: bool,
    /// Time between page starts (or think time, see `closed_loop`), s.
    #[serde(default = "default_page_interarrival")]
    pub page_interarrival: RandomVar,
    /// Objects per page (rounded to the nearest integer, at least 1).
    #[serde(default = "default_objects_per_page")]
    pub objects_per_page: RandomVar,
    /// Time between the starts of a page's objects, s.
    #[serde(default = "default_inter_object")]
    pub inter_object: RandomVar,
    /// Object size, bytes (sent as ceil(size / mss) segments, at least 1).
    #[serde(default = "default_object_size")]
    pub object_size: RandomVar,
    /// `kind = "page"` only: parallel persistent connections per page
    /// (default 6, tail-loss Sec. 3.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<u32>,
    /// `kind = "page"` only: the page as a fixed list of object sizes in
    /// bytes, the HTML first (a recorded site); without it every page draws
    /// `objects_per_page` objects of `object_size`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_sizes: Option<Vec<f64>>,
    #[serde(default = "default_variant")]
    pub variant: String,
    #[serde(default = "default_cc")]
    pub cc: String,
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default)]
    pub receiver: ReceiverSpec,
}

impl TrafficSpec {
    /// `sessions` web sessions from `server` to `client` with the tcp-pr paper's
    /// parameters (every other field at its default).
    pub fn http(server: &str, client: &str, sessions: u32) -> TrafficSpec {
        TrafficSpec {
            name: None,
            kind: TrafficKind::Http,
            server: server.to_string(),
            client: client.to_string(),
            sessions,
            start: 0.0,
            stop: None,
            closed_loop: false,
            page_interarrival: default_page_interarrival(),
            objects_per_page: default_objects_per_page(),
            inter_object: default_inter_object(),
            object_size: default_object_size(),
            connections: None,
            object_sizes: None,
            variant: default_variant(),
            cc: default_cc(),
            tcp: TcpSpec::default(),
            receiver: ReceiverSpec::default(),
        }
    }
}

/// Kind of traffic generator.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TrafficKind {
    /// HTTP/1.0-like sessions, one connection per object (the ns-2 web
    /// traffic model the tcp-pr paper uses).
    #[default]
    Http,
    /// Web page downloads: the HTML, then the other objects over up to
    /// `connections` persistent connections (tail-loss Sec. 3.3;
    /// [`crate::app::web`]).
    Page,
}

fn default_sessions() -> u32 {
    1
}
/// tcp-pr Sec. V: "interpage time was exponentially distributed with mean
/// 1 second".
fn default_page_interarrival() -> RandomVar {
    RandomVar::Exponential { mean: 1.0 }
}
/// tcp-pr Sec. V: "uniformly distributed with mean 1" -- one object.
fn default_objects_per_page() -> RandomVar {
    RandomVar::Constant { value: 1.0 }
}
/// tcp-pr Sec. V: "exponentially distributed with mean 10 ms".
fn default_inter_object() -> RandomVar {
    RandomVar::Exponential { mean: 0.01 }
}
/// tcp-pr Sec. V: "Pareto-distributed with mean 40KB and shape parameter
/// equal to 1.2": scale = mean (shape - 1) / shape.
fn default_object_size() -> RandomVar {
    RandomVar::Pareto {
        scale: 40_000.0 * 0.2 / 1.2,
        shape: 1.2,
    }
}

/// How an undo restores the window ([`crate::tcp::policy::UndoResponse`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub enum UndoResponseSpec {
    #[serde(rename = "restore")]
    Restore,
    #[serde(rename = "slow-start")]
    SlowStart,
}

/// How often the sender measures the RTT.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RttTimingSpec {
    PerRtt,
    PerAck,
}

/// Receiver ACK policy.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReceiverSpec {
    #[serde(default)]
    pub delayed_ack: DelayedAck,
    /// Delayed-ACK timer, s.
    #[serde(default = "default_delack_timeout")]
    pub delack_timeout: f64,
    /// ACK at least every this many full segments.
    #[serde(default = "default_delack_every")]
    pub delack_every: u32,
    #[serde(default = "default_true")]
    pub sack: bool,
    #[serde(default = "default_true")]
    pub dsack: bool,
    /// SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps).
    #[serde(default = "default_sack_blocks")]
    pub max_sack_blocks: u8,
}

fn default_delack_timeout() -> f64 {
    0.2
}
fn default_delack_every() -> u32 {
    2
}
fn default_sack_blocks() -> u8 {
    4
}

impl Default for ReceiverSpec {
    fn default() -> Self {
        ReceiverSpec {
            delayed_ack: DelayedAck::None,
            delack_timeout: default_delack_timeout(),
            delack_every: default_delack_every(),
            sack: true,
            dsack: true,
            max_sack_blocks: default_sack_blocks(),
        }
    }
}

/// Delayed-ACK mode of the receiver.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DelayedAck {
    /// ACK every segment.
    #[default]
    None,
    /// RFC 1122 / RFC 5681 4.2: every `delack_every` segments or after the timer.
    Rfc1122,
    /// Linux style: ACK every segment while the sender is in slow start
    /// (quickack mode, approximated by the first 16 segments after start or
    /// after a gap), delayed ACK afterwards.
    Quickack,
}

/// What to record besides the per-flow counters.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    /// Sender variables sampled every `interval`: cwnd, ssthresh, srtt, rto,
    /// dupthresh, pipe, delivered.
    #[serde(default)]
    pub series: Vec<String>,
    #[serde(default = "default_interval")]
    pub interval: f64,
    /// Flow indices to sample; empty = all.
    #[serde(default)]
    pub flows: Vec<u32>,
    /// List every object of the traffic generators (start, size, completion).
    #[serde(default)]
    pub objects: bool,
    /// `[from, until]` (s): trace every data packet sent and every ACK
    /// received by the flows of `flows` (all if empty) in that window;
    /// empty = no trace.
    #[serde(default)]
    pub trace_window: Vec<f64>,
    /// Packet captures (`docs/pcap.md`): one pcap file per tap, written
    /// only by a run given an output folder ([`crate::run_with_capture`]).
    /// A capture observes and never changes the run, so it is not part of
    /// the run's identity (it is left out of the serialised spec when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<PcapTapSpec>,
}

/// A capture point: one end of a link, seen as `tcpdump` on that interface
/// would see it (both directions). `ingress`: the end at the link's `from`
/// node (its packets as they are offered to the link, before its ingress
/// impairments and queue; the reverse link's as they are delivered);
/// `egress`: the end at its `to` node.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapTapSpec {
    pub link: String,
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
            pcap: Vec::new(),
        }
    }
}

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
];

impl Scenario {
    /// Parse a scenario from JSON (what the Python front sends).
    ///
    /// An error names the field where parsing stopped (`flows[0].tcp.mss:
    /// invalid type: string "x", expected u32`); a text that is not JSON at
    /// all is `scenario: <what> at line L column C`.
    pub fn from_json(text: &str) -> Result<Scenario, SpecError> {
        // The fast parser first; the one that tracks the path only to
        // explain a failure.
        serde_json::from_str(text).map_err(|_| parse_error(text))
    }
}

/// The error of parsing `text` as a scenario, with the path of the field
/// where it happened.
fn parse_error(text: &str) -> SpecError {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed: Result<Scenario, _> = serde_path_to_error::deserialize(&mut de);
    let (path, inner) = match parsed {
        Ok(_) => match de.end() {
            Ok(()) => return SpecError::new("scenario", "could not be parsed"),
            Err(e) => (String::new(), e),
        },
        Err(e) => (e.path().to_string(), e.into_inner()),
    };
    let text = inner.to_string();
    let path = path.trim_start_matches('.');
    if path.is_empty() || inner.is_syntax() || inner.is_eof() {
        let at = if path.is_empty() { "scenario" } else { path };
        return SpecError::new(at, text);
    }
    // the position in a one-line JSON text says nothing the path does not
    let message = match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => &text,
    };
    SpecError::new(path, message)
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    const BASE: &str = r#"{"duration": 10, "topology": {"kind": "chain", "bottleneck_rate": 8e6,
        "bottleneck_delay": 0.023}, "flows": [{"src": "S1", "dst": "D", "receiver": RECV}]}"#;

    /// Issue 25: "expected value at line 1 column 464" named no field.
    #[test]
    fn parse_errors_name_the_field() {
        let e = Scenario::from_json(&BASE.replace("RECV", r#"{"max_sack_blocks": 300}"#))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "flows[0].receiver.max_sack_blocks: invalid value: integer `300`, expected u8"
        );
        let e = Scenario::from_json(&BASE.replace("RECV", r#"{"delack_timeout": NaN}"#))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("flows[0].receiver.delack_timeout: expected value"),
            "{e}"
        );
        let e = Scenario::from_json(r#"{"duration": "#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("duration: EOF while parsing"), "{e}");
        let e = Scenario::from_json("").unwrap_err().to_string();
        assert!(e.starts_with("scenario: EOF while parsing"), "{e}");
        let e = Scenario::from_json(&BASE.replace("RECV", "{}").replace("10,", "\"ten\","))
            .unwrap_err();
        assert_eq!(e.path, "duration");
    }
}
