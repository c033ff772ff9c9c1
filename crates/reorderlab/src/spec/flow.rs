//! One flow's transport: its sender variant, congestion control, sender
//! parameters and receiver.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::network::default_true;
use super::ranges::{seconds, seconds_or_zero, unit, within};

/// The transport and application of one flow.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Name shown in results (none: the flow's index).
    #[serde(default)]
    pub name: Option<String>,
    /// Sending node.
    pub src: String,
    /// Receiving node.
    pub dst: String,
    /// Sender variant name from the registry (`reorderlab variants`).
    #[serde(default = "default_variant")]
    #[schemars(extend("x-registry" = "variants"))]
    pub variant: String,
    /// Congestion control name.
    #[serde(default = "default_cc")]
    #[schemars(extend("x-registry" = "congestion_controls"))]
    pub cc: String,
    /// Start time.
    #[serde(default)]
    #[schemars(transform = seconds_or_zero)]
    pub start: f64,
    /// Segments to send; 0 = unlimited (bulk).
    #[serde(default)]
    pub segments: u64,
    /// Sender parameters.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// Receiver ACK policy.
    #[serde(default)]
    pub receiver: ReceiverSpec,
    /// QUIC settings, for a flow with a QUIC variant (`reorderlab variants`); none: the variant's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quic: Option<super::quic::QuicSpec>,
}

pub(super) fn default_variant() -> String {
    "SACK".to_string()
}
pub(super) fn default_cc() -> String {
    "reno".to_string()
}

/// Sender parameters common to all variants. `None` = the variant's default.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Data packet size, headers included.
    #[serde(default)]
    #[schemars(range(min = 1, max = 65535), transform = unit("bytes"))]
    pub mss: Option<u32>,
    /// Pure ACK size.
    #[serde(default)]
    #[schemars(range(min = 1, max = 65535), transform = unit("bytes"))]
    pub ack_size: Option<u32>,
    /// Maximum window (receiver-advertised limit).
    #[serde(default)]
    #[schemars(range(min = 1), transform = unit("segments"))]
    pub max_window: Option<u32>,
    /// Congestion window at the start.
    #[serde(default)]
    #[schemars(range(min = 1), transform = unit("segments"))]
    pub initial_window: Option<u32>,
    /// Slow-start threshold at the start.
    #[serde(default)]
    #[schemars(range(min = 2), transform = unit("segments"))]
    pub initial_ssthresh: Option<u32>,
    /// Lower bound of the retransmission timeout.
    #[serde(default)]
    #[schemars(transform = seconds)]
    pub min_rto: Option<f64>,
    /// Upper bound of the retransmission timeout; >= min_rto.
    #[serde(default)]
    #[schemars(transform = seconds)]
    pub max_rto: Option<f64>,
    /// Retransmission timeout before the first RTT sample.
    #[serde(default)]
    #[schemars(transform = seconds)]
    pub initial_rto: Option<f64>,
    /// Clock granularity G of RFC 6298.
    #[serde(default)]
    #[schemars(transform = seconds_or_zero)]
    pub granularity: Option<f64>,
    /// Duplicate ACKs that trigger a fast retransmit (fixes an adaptive variant's).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub dupthresh: Option<u32>,
    /// RFC 3042 limited transmit.
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// Limited transmit up to this many congestion windows (RR-TCP's k).
    #[serde(default)]
    #[schemars(transform = within(">= 0"))]
    pub limited_transmit_bound: Option<f64>,
    /// Initial (DSACK-TA) or fixed (DSACK-FA) FA ratio.
    #[serde(default)]
    #[schemars(transform = within("[0, 1]"))]
    pub fa_ratio: Option<f64>,
    /// RTT measurement: one timed segment per RTT (`per_rtt`, BSD / ns-2, the default) or every ACK (`per_ack`, Linux / timestamps).
    #[serde(default)]
    pub rtt_timing: Option<RttTimingSpec>,
    /// TCP-PR srtt decay per RTT.
    #[serde(default)]
    #[schemars(transform = within("(0, 1)"))]
    pub alpha: Option<f64>,
    /// TCP-PR mxrtt = beta * srtt.
    #[serde(default)]
    #[schemars(transform = within(">= 1"))]
    pub beta: Option<f64>,
    /// Congestion Window Validation, RFC 2861 (the variant's default: on for SACK-CWV only).
    #[serde(default)]
    #[schemars(extend("enum" = ["none", "rfc2861"]))]
    pub cwv: Option<String>,
    /// Linux's HyStart in CUBIC's slow start (the variant's default: on for Linux and the Linux 3.17 family of the tail-loss paper).
    #[serde(default)]
    pub hystart: Option<bool>,
    /// The RTT estimator and retransmission timer of an ns-2 release (`docs/variants.md`); min/max/initial RTO above still override it.
    #[serde(default)]
    pub rto_estimator: Option<RtoEstimatorSpec>,
    /// How an undo restores the window: `restore` (cwnd and ssthresh back at once, rr-tcp Sec. 2.1) or `slow-start` (ssthresh = the earlier cwnd, slow start back: Blanton-Allman); none: the variant's (`slow-start` for the DSACK-BL-* schemes, `restore` for the others); only variants that undo use it.
    #[serde(default)]
    pub undo_response: Option<UndoResponseSpec>,
    /// RR-TCP's dupthresh = the FA-ratio percentile of the reordering lengths plus this (rr-tcp Sec. 4.2: "90 % ... of 8 packets or fewer, a dupthresh of 9": 1, the default); 0 is the other reading.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    pub rr_percentile_offset: Option<u32>,
    /// At most this many segments limited transmit may send past the maximum window (`max_window`); none: as many as its own bound allows (RR-TCP: k x cwnd past it).
    #[serde(default)]
    #[schemars(transform = unit("segments"))]
    pub limited_transmit_past_window: Option<u32>,
    /// How RR-TCP enters a reordering length above its histogram's largest bin (64, Table 2's maximum dupthresh): `clamp` (counted in it, the default) or `discard`.
    #[serde(default)]
    pub rr_long_samples: Option<LongSamplesSpec>,
    /// Pace the sending as Linux's TCP does by itself (a next departure time per flow; `tcp_update_pacing_rate`: 2 x cwnd / srtt while cwnd < ssthresh / 2, 1.2 x after); none: off. BBR always paces at its own rate.
    #[serde(default)]
    pub pacing: Option<bool>,
    /// Open the connection with SYN / SYN-ACK before data.
    #[serde(default)]
    pub syn: bool,
}

/// An ns-2 release's RTT estimator and timer ([`crate::tcp::timers::ns2`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
pub enum RtoEstimatorSpec {
    /// ns-2.1b8: 100-ms tick, minimum RTO 1 s, initial 6 s.
    #[serde(rename = "ns2-2.1b8")]
    Ns2V21b8,
    /// ns-2.1b9 to 2.27: 10-ms tick, `rfc2988_`, minimum 1 s, initial 6 s
    /// ("ns2-2.27" names the same defaults).
    #[serde(rename = "ns2-2.26", alias = "ns2-2.27")]
    #[schemars(extend("x-aliases" = ["ns2-2.27"]))]
    Ns2V226,
    /// ns-2.30 and 2.31: as 2.26 with minimum 0.2 s, initial 3 s.
    #[serde(rename = "ns2-2.31")]
    Ns2V231,
}

/// How an undo restores the window ([`crate::tcp::policy::UndoResponse`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
pub enum UndoResponseSpec {
    #[serde(rename = "restore")]
    Restore,
    #[serde(rename = "slow-start")]
    SlowStart,
}

/// RR-TCP's reordering lengths above the histogram's largest bin
/// ([`crate::tcp::detection::reordering::LongSamples`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LongSamplesSpec {
    Clamp,
    Discard,
}

/// How often the sender measures the RTT.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttTimingSpec {
    PerRtt,
    PerAck,
}

/// Receiver ACK policy.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReceiverSpec {
    /// When to ACK: every segment, or delayed.
    #[serde(default)]
    pub delayed_ack: DelayedAck,
    /// Delayed-ACK timer.
    #[serde(default = "default_delack_timeout")]
    #[schemars(transform = seconds)]
    pub delack_timeout: f64,
    /// ACK at least every this many full segments.
    #[serde(default = "default_delack_every")]
    #[schemars(range(min = 1))]
    pub delack_every: u32,
    /// Send SACK blocks (RFC 2018).
    #[serde(default = "default_true")]
    pub sack: bool,
    /// Report duplicate segments with D-SACK (RFC 2883).
    #[serde(default = "default_true")]
    pub dsack: bool,
    /// SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps).
    #[serde(default = "default_sack_blocks")]
    #[schemars(range(min = 1, max = 4))]
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
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
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
